/**
 * The first step of a login: is this the member's password? A verifier answers what it found
 * (the member, whether the password is right, and who said so) and records nothing of the
 * attempt (the upstream's may bring a member over, with `captureUnknown`); the login service
 * then records the attempt (login-service.ts), as Kratos's password strategy hands its
 * result to the post-login hooks.
 *
 * Both verifiers cost the same whatever the answer: a login that names no member is verified
 * against a dummy hash, and while an account is linked to an upstream every password this
 * store cannot confirm is asked there, so that every failure waits for the upstream alike.
 */
import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { PASSWORD_AT_UPSTREAM } from '../auth/legacy-hashes.js';
import type { HashingShare, PasswordHasher } from '../auth/passwords.js';
import type { Member } from './member.js';

/** What a verifier found. */
export interface Verification {
  /** The member to log in: the one the login names, or one brought over from the upstream now. */
  readonly member: Member | undefined;
  /** Whether the password is the member's. */
  readonly ok: boolean;
  /** Who said so: this store's hash, or the upstream that still holds the password. */
  readonly source: 'local' | 'upstream';
  /** The member was brought over by this attempt (it has no failures of its own yet). */
  readonly broughtOver?: boolean;
}

/** A login attempt, as the verifiers see it. */
export interface Credentials {
  /** Undefined when the `user` names no account: the verification still costs the same. */
  readonly account: Account | undefined;
  readonly login: string;
  readonly password: string;
  readonly ip: string | null;
  /** The member the login names; undefined when none, or a Deleted one (which is no member). */
  readonly member: Member | undefined;
  /** Whether a member, even a Deleted one, holds the login (then none is brought over). */
  readonly loginTaken: boolean;
  /** Whose turn the verification takes at the hashing gate. */
  readonly share: HashingShare;
}

export interface CredentialVerifier {
  verify(credentials: Credentials): Promise<Verification>;
}

/** What the upstream said of a password: right, wrong, or nothing in time (a no). */
export type UpstreamCheck = 'ok' | 'fail' | 'unavailable';

/**
 * The service a linked account's members come from (upstream/), as the login needs it: it
 * checks the passwords of members whose password is still there, keeps them once right, and
 * may bring over a member it knows and this store does not.
 */
export interface UpstreamPasswords {
  /** The account's link, when it has one. */
  linkOf(account: Account): Promise<{ readonly captureUnknown: boolean } | undefined>;
  check(account: Account, login: string, password: string, ip: string | null): Promise<UpstreamCheck>;
  /** Keeps a password the upstream confirmed (its argon2id hash), clearing the member's mark. */
  capture(account: Account, memberId: number, hash: string): Promise<void>;
  /** Brings the member with this login over from the upstream; undefined when it has none. */
  bringOver(account: Account, login: string): Promise<Member | undefined>;
}

/** This store's hashes: the member's, or a dummy one of the same cost when there is none (or its password is at the upstream). */
export class LocalVerifier implements CredentialVerifier {
  /** Verified against when there is no member, made at start so the first attempt costs the same. */
  private readonly dummyHash: Promise<string>;

  constructor(private readonly passwords: PasswordHasher) {
    this.dummyHash = passwords.hash(randomBytes(16).toString('hex'));
  }

  async verify({ member, password, share }: Credentials): Promise<Verification> {
    // The upstream's mark matches no password; the dummy hash costs what a real one does.
    const hash = member && member.passwordHash !== PASSWORD_AT_UPSTREAM ? member.passwordHash : await this.dummyHash;
    return { member, ok: await this.passwords.verify(hash, password, share), source: 'local' };
  }
}

/**
 * This store's hashes first; then, while the account is linked, the upstream. For a member
 * whose password is still there, the upstream's answer is the verification; for any other
 * failure it is asked only so that every failure waits for it alike, and its answer is not used
 * (except, with `captureUnknown`, to bring over a member it knows and this store does not).
 */
export class UpstreamVerifier implements CredentialVerifier {
  constructor(
    private readonly local: CredentialVerifier,
    private readonly upstream: UpstreamPasswords,
  ) {}

  async verify(credentials: Credentials): Promise<Verification> {
    const { account, login, member } = credentials;
    const here = await this.local.verify(credentials);
    if (here.ok || !account) return here;
    const link = await this.upstream.linkOf(account);
    if (!link) return here;
    const answer = await this.upstream.check(account, login, credentials.password, credentials.ip);
    if (member?.passwordHash === PASSWORD_AT_UPSTREAM) return { member, ok: answer === 'ok', source: 'upstream' };
    if (!credentials.loginTaken && answer === 'ok' && link.captureUnknown) {
      const broughtOver = await this.upstream.bringOver(account, login);
      if (broughtOver) return { member: broughtOver, ok: true, source: 'upstream', broughtOver: true };
    }
    return here;
  }
}
