/**
 * What the login side needs from storage: the record of attempts (failure counts per member
 * and address, the events recorded with an address), the sessions a login hands out, the
 * login count and allowance, and the hash upgrade. Owned by the login service; the member
 * store knows nothing of it.
 */
import type { LockoutPolicy } from '../accounts/account.js';
import type { LoginFailures } from '../auth/lockout.js';
import type { Member, MemberStatus } from './member.js';
import type { EventOrigin } from '../events/event.js';
import type { LoginAttempt } from '../events/member-events.js';

/**
 * The events a login attempt writes, in its own transaction (absent: none): what the attempt
 * tells of itself, and whether it writes `member.login` (the account's `--login-events`).
 */
export interface LoginAttemptEvents extends LoginAttempt {
  readonly loginEvent: boolean;
}

export interface SuccessfulLogin {
  /** The login as the client sent it, for the event record. */
  readonly login: string;
  readonly at: number;
  readonly ip: string | null;
  /** Digest of the new session id, kept so that the session can be recognised later. */
  readonly sessionDigest: string;
  /** "Keep me signed in": the session lasts its absolute lifetime, whatever its idle time. */
  readonly remember?: boolean;
}

export type LoginRecording =
  /** The member's status after this login (S or D when it used up its allowance). */
  | { kind: 'recorded'; status: MemberStatus }
  /** The member stopped being active (expired, suspended, used up) before this login counted. */
  | { kind: 'not-active' };

export interface FailedAttempt {
  readonly at: number;
  readonly resetBefore: number;
  /** False for an attempt that must cost the same but not count (a right password while locked). */
  readonly counted: boolean;
  /** The account's lockout: what turns each new count into a lock (auth/lockout.ts: lockedUntil). */
  readonly policy: LockoutPolicy;
}

export interface LoginEvent {
  readonly memberId: number | null;
  readonly login: string;
  readonly ip: string;
  readonly at: number;
  readonly outcome: 'ok' | 'wrong-credentials' | 'suspended' | 'locked';
}

/** A failure count as kept: per address (its canonical scope), or across all addresses. */
export interface FailureCount {
  readonly scope: string;
  readonly failures: number;
  readonly lastFailureAt: number;
  readonly lockedUntil: number;
}

/** The member a login names, and the failure counts its attempt may count against (LoginRecords.findLoginSubject). */
export interface LoginSubject {
  readonly member: Member | undefined;
  /** The counts of the member found, or of the `noMember` id. */
  failuresOf(subject: number): LoginFailures;
}

export interface LoginRecords {
  /**
   * Counts a successful login in one atomic step: last-login time and address, the login
   * count, the login allowance (moving the member to S or D when this login uses it up), a
   * new session, cleared failure counts for `throttleScope` and across addresses, and the
   * event when an address was given. Does nothing and answers not-active unless the member is
   * Active at `at`.
   */
  recordLogin(accountId: number, memberId: number, login: SuccessfulLogin & { throttleScope: string; events?: LoginAttemptEvents }): Promise<LoginRecording>;
  /** The failure counts of member `memberId` (0: attempts at logins that name no member) in `scope` and across all addresses. */
  findLoginFailures(accountId: number, memberId: number, scope: string): Promise<LoginFailures>;
  /**
   * What a login attempt reads before its verification, in one statement whatever it finds
   * (an unknown login reads as a known one does): the member the login names (any state), and
   * the failure counts (as findLoginFailures) of that member and of `noMember`, under which an
   * attempt that names no member, or a Deleted one, is counted.
   */
  findLoginSubject(accountId: number, login: string, scope: string, noMember: number): Promise<LoginSubject>;
  /**
   * Counts a failed attempt, in `scope` and across all addresses, in one transaction (a count
   * starts over when its last failure was before `resetBefore`), and lets the lockout `policy`
   * turn each new count into a lock. An attempt that is not `counted` runs the same statements.
   */
  recordLoginFailure(
    accountId: number,
    memberId: number,
    scope: string,
    attempt: FailedAttempt & { events?: LoginAttemptEvents & { outcome: 'fail' | 'locked' } },
  ): Promise<LoginFailures>;
  /** Writes a `member.login` event of an attempt that changed nothing (a suspended member's). */
  recordLoginAttemptEvent(accountId: number, at: number, events: LoginAttemptEvents & { outcome: 'suspended' }): Promise<void>;
  recordLoginEvent(accountId: number, event: LoginEvent): Promise<void>;
  /** Every failure count a member has (bounded by the housekeeping's purge of stale counts). */
  listLoginFailures(accountId: number, memberId: number): Promise<FailureCount[]>;
  /**
   * Forgets a member's failure counts, which ends any lock; answers how many were kept. With
   * `unlocked`, a lock that was on at its `at` writes `member.unlocked`.
   */
  clearLoginFailures(accountId: number, memberId: number, unlocked?: { at: number; login: string; origin: EventOrigin }): Promise<number>;
  /** A member's recorded attempts, newest first, at most `limit`. */
  recentLoginEvents(accountId: number, memberId: number, limit: number): Promise<LoginEvent[]>;
  /** Replaces the hash only if it is still `oldHash`, so a concurrent password change wins. */
  replacePasswordHash(accountId: number, memberId: number, oldHash: string, newHash: string): Promise<void>;
}
