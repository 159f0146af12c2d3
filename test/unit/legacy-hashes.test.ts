import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { excessiveCost, hashFormat, verifyLegacyHash, verifyLegacyHashOffThread } from '../../src/auth/legacy-hashes.js';
import { createArgon2Hasher } from '../../src/auth/passwords.js';

/**
 * Hashes made by other programs (OpenSSL, which implements md5-crypt, apr1 and SHA-crypt as
 * glibc and Apache do; and known vectors), so that the libraries are checked against
 * independent implementations, not against themselves.
 */
function openssl(...args: string[]): string {
  return execFileSync('openssl', ['passwd', ...args], { encoding: 'utf8' }).trim();
}

const PASSWORD = 'correct horse';
const VECTORS: Array<[string, string, string]> = [
  // [format, hash of PASSWORD, where from]
  ['md5-crypt', openssl('-1', '-salt', 'Zx9Qk2Ab', PASSWORD), 'openssl passwd -1'],
  ['apr1', openssl('-apr1', '-salt', 'p5Lm0N/.', PASSWORD), 'openssl passwd -apr1'],
  ['sha256-crypt', openssl('-5', '-salt', 'saltsalt', PASSWORD), 'openssl passwd -5'],
  ['sha512-crypt', openssl('-6', '-salt', 'saltsaltsalt', PASSWORD), 'openssl passwd -6'],
  ['sha512-crypt', openssl('-6', '-salt', 'rounds=6000$shortsalt', PASSWORD).replace('$6$rounds=6000$', '$6$rounds=6000$'), 'openssl passwd -6 with rounds'],
  // htpasswd -s: "{SHA}" + base64(sha1(password)).
  ['htpasswd-sha1', '{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=', 'htpasswd -s "test"'],
  // The OpenBSD test vector for "U*U", and PHP's documented password_verify() example.
  ['bcrypt', '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'OpenBSD test vector "U*U"'],
  ['bcrypt', '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a', 'PHP manual, "rasmuslerdorf"'],
];

describe('legacy password hashes', () => {
  it('recognises each format, and nothing damaged', () => {
    for (const [format, hash] of VECTORS) expect(hashFormat(hash), hash).toBe(format);
    expect(hashFormat('$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG')).toBe('argon2');
    for (const damaged of ['', 'plain', '$1$abc$short', '{SHA}nope', '$2b$10$tooShort', '$6$salt$' + 'a'.repeat(85), '$7$x$y', '$2c$10$' + 'a'.repeat(53)]) {
      expect(hashFormat(damaged), damaged).toBeUndefined();
    }
  });

  it('verifies hashes made by OpenSSL and known vectors, and refuses a wrong password', async () => {
    for (const [, hash, from] of VECTORS.slice(0, 5)) {
      expect(await verifyLegacyHash(hash, PASSWORD), from).toBe(true);
      expect(await verifyLegacyHash(hash, `${PASSWORD}!`), from).toBe(false);
    }
    expect(await verifyLegacyHash('{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=', 'test')).toBe(true);
    expect(await verifyLegacyHash('{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=', 'Test')).toBe(false);
    expect(await verifyLegacyHash('$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U')).toBe(true);
    expect(await verifyLegacyHash('$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a', 'rasmuslerdorf')).toBe(true);
    // $2b$ and $2y$ are the same algorithm as $2a$.
    expect(await verifyLegacyHash('$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U')).toBe(true);
    expect(await verifyLegacyHash('$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW', 'U*U!')).toBe(false);
  });

  it('is what the password hasher falls back to, and marks every foreign hash for replacement', async () => {
    const hasher = createArgon2Hasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });
    for (const [, hash] of VECTORS.slice(0, 5)) {
      expect(await hasher.verify(hash, PASSWORD)).toBe(true);
      expect(hasher.needsRehash(hash)).toBe(true);
    }
    const ours = await hasher.hash(PASSWORD);
    expect(hasher.needsRehash(ours)).toBe(false);
    expect(await hasher.verify('not a hash', PASSWORD)).toBe(false);
  });

  it('verifies foreign hashes in a worker thread: the event loop keeps turning meanwhile', async () => {
    // bcrypt at cost 13 is half a second of pure JavaScript.
    const slow = await import('bcryptjs').then((b) => b.default.hash('correct horse', 13));
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = performance.now();
    const [right, wrong] = await Promise.all([verifyLegacyHashOffThread(slow, 'correct horse'), verifyLegacyHashOffThread(slow, 'wrong horse')]);
    clearInterval(ticker);
    expect([right, wrong]).toEqual([true, false]);
    // At least half the 10 ms ticks that fit came: nothing held the loop for long.
    expect(ticks).toBeGreaterThanOrEqual(Math.floor((performance.now() - started) / 10 / 2));
  }, 60_000);

  it('refuses hashes that ask too much of a login, and never verifies them', async () => {
    const hostile = [
      '$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
      '$6$rounds=999999999$saltsalt$' + 'a'.repeat(86),
      '$argon2id$v=19$m=1048576,t=2,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
      '$argon2id$v=19$m=19456,t=1000,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG',
    ];
    for (const hash of hostile) {
      expect(hashFormat(hash), hash).toBeDefined();
      expect(excessiveCost(hash), hash).toMatch(/over/);
      const started = performance.now();
      expect(await createArgon2Hasher().verify(hash, 'anything')).toBe(false);
      expect(performance.now() - started).toBeLessThan(1000);
    }
    for (const [, hash] of VECTORS) expect(excessiveCost(hash), hash).toBeUndefined();
  });
});
