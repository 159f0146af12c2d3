import type { LoginThrottle } from '../auth/lockout.js';
import type { Member, MemberStatus, NewMember } from './member.js';

export type MemberInsertion = { kind: 'created'; id: number } | { kind: 'login-taken' };

export interface SuccessfulLogin {
  /** The login as the client sent it, for the event record. */
  readonly login: string;
  readonly at: number;
  readonly ip: string | null;
  /** Digest of the new session id, kept so that the session can be recognised later. */
  readonly sessionDigest: string;
}

export type LoginRecording =
  /** The member's status after this login (S or D when it used up its allowance). */
  | { kind: 'recorded'; status: MemberStatus }
  /** The member stopped being active (expired, suspended, used up) before this login counted. */
  | { kind: 'not-active' };

export interface LoginEvent {
  readonly memberId: number | null;
  readonly login: string;
  readonly ip: string;
  readonly at: number;
  readonly outcome: 'ok' | 'wrong-credentials' | 'suspended' | 'locked';
}

/**
 * What the member services need from storage. Every method takes the account id, and never
 * sees or changes another account's members.
 */
export interface MemberStore {
  insertMember(accountId: number, member: NewMember): Promise<MemberInsertion>;
  /** Whether a member (in any state) holds this login, compared case-insensitively. */
  loginTaken(accountId: number, login: string): Promise<boolean>;
  findMemberByLogin(accountId: number, login: string): Promise<Member | undefined>;
  findMemberById(accountId: number, memberId: number): Promise<Member | undefined>;
  getProfile(accountId: number, memberId: number): Promise<Map<string, string>>;

  /**
   * Counts a successful login in one atomic step: last-login time and address, the login
   * count, the login allowance (moving the member to S or D when this login uses it up), a
   * new session, a cleared failure count for `throttleIp`, and the event when an address
   * was given. Does nothing and answers not-active unless the member is Active at `at`.
   */
  recordLogin(accountId: number, memberId: number, login: SuccessfulLogin & { throttleIp: string }): Promise<LoginRecording>;
  findThrottle(accountId: number, memberId: number, ip: string): Promise<LoginThrottle | undefined>;
  /**
   * Counts one more failure for (member, ip), starting over when the last failure was before
   * `resetBefore`, and lets `lockUntil` turn the new count into a lock. Atomic. Undefined
   * when the account has no such member.
   */
  recordLoginFailure(
    accountId: number,
    memberId: number,
    ip: string,
    at: number,
    resetBefore: number,
    lockUntil: (failures: number) => number,
  ): Promise<LoginThrottle | undefined>;
  recordLoginEvent(accountId: number, event: LoginEvent): Promise<void>;
  /** Replaces the hash only if it is still `oldHash`, so a concurrent password change wins. */
  replacePasswordHash(accountId: number, memberId: number, oldHash: string, newHash: string): Promise<void>;
  /** Marks the e-mail verified (once; the first instant is kept). False when there is no such member. */
  markEmailVerified(accountId: number, memberId: number, at: number): Promise<boolean>;
}
