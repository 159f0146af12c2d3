/**
 * Password hashes made by other systems, kept as they are at import and verified at a
 * member's next login, which replaces them with argon2id (the login service rehashes any
 * hash that is not ours). Members keep their passwords; nobody has to reset one.
 *
 * Each format is verified by a library made for it: bcryptjs ($2a$ $2b$ $2y$), unixcrypt
 * (SHA-crypt $5$ $6$), apache-md5 (md5-crypt $1$ and Apache's $apr1$); htpasswd's {SHA} is
 * one SHA-1, done with node:crypto. argon2 hashes from elsewhere are verified as our own.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import apacheMd5 from 'apache-md5';
import bcrypt from 'bcryptjs';
import { verify as verifyShaCrypt } from 'unixcrypt';
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../common/worker-pool.js';

export type HashFormat = 'argon2' | 'bcrypt' | 'md5-crypt' | 'apr1' | 'sha256-crypt' | 'sha512-crypt' | 'htpasswd-sha1' | 'at-upstream';

/**
 * Not a hash: the mark of a member brought over from an upstream service (`migrate-members`)
 * whose password is still there. Nothing verifies against it here; the login service asks
 * the upstream instead, and keeps the password (hashed with argon2id) when the upstream says
 * it is right. Any password set here replaces it. Like a shadow file's `!`, it can match no
 * password.
 */
export const PASSWORD_AT_UPSTREAM = '!upstream';

// A CommonJS module whose declared default export is, at run time, the module itself.
const md5Crypt = apacheMd5 as unknown as (password: string, salt: string) => string;

const CRYPT64 = '[./0-9A-Za-z]';

/** What each format looks like whole, so that a damaged hash is refused at import, not at login. */
const FORMATS: ReadonlyArray<readonly [HashFormat, RegExp]> = [
  ['argon2', /^\$argon2(id|i|d)\$(v=\d+\$)?m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/],
  ['bcrypt', new RegExp(`^\\$2[aby]\\$\\d\\d\\$${CRYPT64}{53}$`)],
  ['md5-crypt', new RegExp(`^\\$1\\$${CRYPT64}{1,8}\\$${CRYPT64}{22}$`)],
  ['apr1', new RegExp(`^\\$apr1\\$${CRYPT64}{1,8}\\$${CRYPT64}{22}$`)],
  ['sha256-crypt', new RegExp(`^\\$5\\$(rounds=\\d+\\$)?[^$:\\n]{1,16}\\$${CRYPT64}{43}$`)],
  ['sha512-crypt', new RegExp(`^\\$6\\$(rounds=\\d+\\$)?[^$:\\n]{1,16}\\$${CRYPT64}{86}$`)],
  ['htpasswd-sha1', /^\{SHA\}[A-Za-z0-9+/]{27}=$/],
  ['at-upstream', /^!upstream$/],
];

/** The format of a stored hash, or undefined when it is none this service can verify. */
export function hashFormat(hash: string): HashFormat | undefined {
  return FORMATS.find(([, shape]) => shape.test(hash))?.[0];
}

/**
 * The most a hash may ask of a login. A hash carries its own cost, and a hostile one would
 * pin a core for hours (`$2b$31$`) or take a gigabyte (argon2 m=1 GiB): such a hash is refused
 * at import, and never verified at login. Each ceiling is well above what the systems these
 * hashes come from use by default (bcrypt 10 to 12, SHA-crypt 5,000 rounds, argon2 19 to
 * 64 MiB; libsodium's "moderate" argon2 is 256 MiB).
 */
export const HASH_COST_CEILINGS = {
  bcryptCost: 14,
  shaCryptRounds: 1_000_000,
  argon2MemoryKiB: 262_144,
  argon2Iterations: 10,
  argon2Parallelism: 16,
} as const;

/** Why a hash asks too much, or undefined when it is within the ceilings (or not a known format). */
export function excessiveCost(hash: string): string | undefined {
  const c = HASH_COST_CEILINGS;
  switch (hashFormat(hash)) {
    case 'bcrypt': {
      const cost = Number(hash.slice(4, 6));
      return cost > c.bcryptCost ? `bcrypt cost ${cost} over ${c.bcryptCost}` : undefined;
    }
    case 'sha256-crypt':
    case 'sha512-crypt': {
      const rounds = Number(/^\$[56]\$rounds=(\d+)\$/.exec(hash)?.[1] ?? 5000);
      return rounds > c.shaCryptRounds ? `SHA-crypt rounds ${rounds} over ${c.shaCryptRounds}` : undefined;
    }
    case 'argon2': {
      const [, m, t, p] = /m=(\d+),t=(\d+),p=(\d+)/.exec(hash)!.map(Number) as [number, number, number, number];
      if (m > c.argon2MemoryKiB) return `argon2 memory ${m} KiB over ${c.argon2MemoryKiB}`;
      if (t > c.argon2Iterations) return `argon2 iterations ${t} over ${c.argon2Iterations}`;
      if (p > c.argon2Parallelism) return `argon2 parallelism ${p} over ${c.argon2Parallelism}`;
      return undefined;
    }
    default:
      return undefined;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Whether `password` matches a hash in one of the foreign formats (not argon2, which the
 * argon2 hasher verifies). The password is used as typed: the other system did not
 * normalise it. The libraries are JavaScript and run where they are called: the service
 * calls this in a worker thread (`verifyLegacyHashOffThread`), never on the event loop.
 */
export async function verifyLegacyHash(hash: string, password: string): Promise<boolean> {
  if (excessiveCost(hash) !== undefined) return false;
  switch (hashFormat(hash)) {
    case 'bcrypt':
      return bcrypt.compare(password, hash);
    case 'md5-crypt':
    case 'apr1':
      return sameText(md5Crypt(password, hash), hash);
    case 'sha256-crypt':
    case 'sha512-crypt':
      return verifyShaCrypt(password, hash);
    case 'htpasswd-sha1':
      return sameText(`{SHA}${createHash('sha1').update(password, 'utf8').digest('base64')}`, hash);
    default:
      return false;
  }
}

let pool: WorkerPool<{ hash: string; password: string }, boolean> | undefined;

/**
 * `verifyLegacyHash` in a worker thread (one per core at most; the hashing gate admits the
 * calls), so that a slow format never holds the event loop.
 */
export function verifyLegacyHashOffThread(hash: string, password: string): Promise<boolean> {
  if (excessiveCost(hash) !== undefined) return Promise.resolve(false);
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  pool ??= new WorkerPool(new URL(`./legacy-hash-worker.${ext}`, import.meta.url), availableParallelism());
  return pool.run({ hash, password });
}
