/**
 * The operators' second step: TOTP (RFC 6238, 30-second steps, six digits, SHA-1: what every
 * authenticator app reads from an `otpauth://` link) through otplib, and recovery codes for a
 * lost phone. A code is taken at most once (its time step is kept); recovery codes are random,
 * shown once and kept as SHA-256 digests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';

/** Codes a step before or after the server's clock are taken too (a phone's clock drifts). */
const TOLERANCE_SECONDS = 30;
export const RECOVERY_CODES = 10;
/** What the authenticator app shows as the entry's issuer. */
const ISSUER = 'member-api';

export function newSecret(): string {
  return generateSecret();
}

/** The link an authenticator app reads (from a QR code, or opened on the phone). */
export function secretUri(email: string, secret: string): string {
  return generateURI({ issuer: ISSUER, label: email, secret });
}

/** The secret in groups of four, for typing into an app by hand. */
export function groupedSecret(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

/** The time step a six-digit code is valid at, or undefined when it is not valid now. */
export function stepOf(secret: string, code: string, now: number): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const result = verifySync({ secret, token, epoch: Math.floor(now / 1000), epochTolerance: TOLERANCE_SECONDS });
  // A TOTP result carries the matched code's time step (the type is shared with HOTP's).
  return result.valid ? (result as { timeStep?: number }).timeStep : undefined;
}

/** Ten new recovery codes (`xxxxx-xxxxx`, 50 bits each), and their digests to keep. */
export function newRecoveryCodes(): { codes: string[]; digests: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, () => {
    const text = randomBytes(8).readBigUInt64BE(0).toString(36).padStart(10, '0').slice(-10);
    return `${text.slice(0, 5)}-${text.slice(5)}`;
  });
  return { codes, digests: codes.map(recoveryDigest) };
}

/** A recovery code's digest, however it was typed (case, spaces, the dash). */
export function recoveryDigest(code: string): string {
  return createHash('sha256')
    .update(code.toLowerCase().replace(/[^0-9a-z]/g, ''))
    .digest('base64url');
}
