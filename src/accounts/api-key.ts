import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url: 43 characters. Shown once, stored only as a digest. */
export function generateApiKey(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A key is 256 random bits, so a plain SHA-256 digest is enough to store it: there is nothing
 * to brute-force that a slow hash would protect.
 */
export function digestApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented key with a stored digest. */
export function apiKeyMatches(storedDigest: string, presentedKey: string): boolean {
  const presented = Buffer.from(digestApiKey(presentedKey), 'hex');
  const stored = Buffer.from(storedDigest, 'hex');
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}
