/**
 * Password hashing: argon2id at OWASP's recommended m=19456 KiB, t=2, p=1. Hashing and
 * verifying run on libuv's thread pool (the native module's async tasks), never on the
 * event loop. Passwords are NFKC-normalised first, so that the same characters typed on
 * different keyboards give the same password.
 */
import { randomInt } from 'node:crypto';
import { hash, parseOptions, verify, type Algorithm } from '@node-rs/argon2';
import { excessiveCost, verifyLegacyHashOffThread } from './legacy-hashes.js';

// The package declares `Algorithm` as a const enum, which has no value at run time.
const ARGON2ID = 2 as Algorithm.Argon2id;

export interface Argon2Parameters {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

export const OWASP_ARGON2: Argon2Parameters = Object.freeze({ memoryCost: 19456, timeCost: 2, parallelism: 1 });

/**
 * Whose hash it is, for a fair turn at the hashing gate (hashing-gate.ts): the account it is for
 * (or a door of its own, such as the console's sign-in) and the client's address scope (an
 * IPv4 address, an IPv6 /64). Hashes that name none share one turn.
 */
export interface HashingShare {
  readonly account: string;
  readonly client: string;
}

export interface PasswordHasher {
  hash(password: string, share?: HashingShare): Promise<string>;
  /** False for a wrong password and for a hash this hasher cannot read. */
  verify(passwordHash: string, password: string, share?: HashingShare): Promise<boolean>;
  /** True when the hash was made with other (older) parameters and should be replaced. */
  needsRehash(passwordHash: string): boolean;
}

export function normalizePassword(password: string): string {
  return password.normalize('NFKC');
}

export function createArgon2Hasher(parameters: Argon2Parameters = OWASP_ARGON2): PasswordHasher {
  const options = { algorithm: ARGON2ID, ...parameters };
  return {
    hash: (password) => hash(normalizePassword(password), options),
    async verify(passwordHash, password) {
      // A hash imported from another system: verified by its format's library, then
      // replaced with ours by the login (needsRehash is true for it).
      if (!passwordHash.startsWith('$argon2')) return verifyLegacyHashOffThread(passwordHash, password);
      // An argon2 hash imported with a hostile cost (a gigabyte, many passes) is never verified.
      if (excessiveCost(passwordHash) !== undefined) return false;
      try {
        const normalized = normalizePassword(password);
        if (await verify(passwordHash, normalized)) return true;
        // An argon2 hash from elsewhere may be of the password as typed, not normalised.
        return normalized !== password && (await verify(passwordHash, password));
      } catch {
        return false;
      }
    },
    needsRehash(passwordHash) {
      try {
        const used = parseOptions(passwordHash);
        return (
          used.algorithm !== ARGON2ID ||
          used.memoryCost !== parameters.memoryCost ||
          used.timeCost !== parameters.timeCost ||
          used.parallelism !== parameters.parallelism
        );
      } catch {
        return true;
      }
    },
  };
}

/** No 0/O/o, 1/l/I: a generated password is read off a screen and typed. */
const GENERATED_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
export const GENERATED_LENGTH = 12;

/** 12 characters from a cryptographic source, without look-alike characters (~69 bits). */
export function generatePassword(): string {
  let password = '';
  for (let i = 0; i < GENERATED_LENGTH; i++) password += GENERATED_ALPHABET[randomInt(GENERATED_ALPHABET.length)];
  return password;
}

/** Longest password, in code points (after normalisation, and before it). */
export const MAX_PASSWORD_LENGTH = 1024;

/**
 * Whether a password as sent is longer than any can be, checked before anything else is done
 * with it: normalising can make a text 18 times longer, and hashing a long one costs more.
 */
export function isOverlongPassword(password: string): boolean {
  // A code point is one or two UTF-16 units: over twice the limit in units is too long.
  if (password.length > 2 * MAX_PASSWORD_LENGTH) return true;
  let codePoints = 0;
  for (let i = 0; i < password.length; i++) {
    const unit = password.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < password.length) i++;
    if (++codePoints > MAX_PASSWORD_LENGTH) return true;
  }
  return false;
}

/** Length as a person counts it: in code points, after normalisation. */
export function passwordLength(password: string): number {
  return [...normalizePassword(password)].length;
}
