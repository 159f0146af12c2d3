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

export type HashFormat = 'argon2' | 'bcrypt' | 'md5-crypt' | 'apr1' | 'sha256-crypt' | 'sha512-crypt' | 'htpasswd-sha1';

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
];

/** The format of a stored hash, or undefined when it is none this service can verify. */
export function hashFormat(hash: string): HashFormat | undefined {
  return FORMATS.find(([, shape]) => shape.test(hash))?.[0];
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Whether `password` matches a hash in one of the foreign formats (not argon2, which the
 * argon2 hasher verifies). The password is used as typed: the other system did not
 * normalise it.
 */
export async function verifyLegacyHash(hash: string, password: string): Promise<boolean> {
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
