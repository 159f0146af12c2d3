import type { LoginThrottle } from '../auth/lockout.js';
import type { LoginExpiry, Member, MemberStatus, NewMember, RegType, TimeExpiry } from './member.js';
import type { ListedRow, MemberColumn } from './record-template.js';
import type { ImportWrite, MemberExport } from './transfer.js';

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

/** Which members an update applies to (seed 4.3): exactly one way of finding them. */
export type MemberSelector =
  /** One member, any state; compared case-insensitively. */
  | { readonly by: 'login'; readonly login: string }
  /** Every member with this address, any state; compared case-insensitively. */
  | { readonly by: 'email'; readonly email: string }
  /** Paid members whose billing id or subscription id is this value. */
  | { readonly by: 'ptrans'; readonly value: string }
  /** One member, any state. */
  | { readonly by: 'id'; readonly id: number }
  /** Every member that is not Deleted. */
  | { readonly by: 'all' };

/** What an update changes; absent means unchanged. */
export interface MemberChanges {
  readonly login?: string;
  readonly email?: string;
  readonly passwordHash?: string;
  /** Null clears the member's own URL (the account's default applies). */
  readonly urlOk?: string | null;
  readonly urlFail?: string | null;
  readonly status?: MemberStatus;
  /** Null clears the expiration. */
  readonly timeExpiry?: TimeExpiry | null;
  readonly loginExpiry?: LoginExpiry | null;
  /** Profile fields to remove, then to set. */
  readonly deleteFields: readonly string[];
  readonly setFields: ReadonlyMap<string, string>;
}

export type MemberUpdate =
  | { kind: 'updated'; count: number }
  | { kind: 'not-found' }
  | { kind: 'login-taken' }
  /** A new login was asked for while several members matched. */
  | { kind: 'login-not-unique' }
  /** A member would have more profile fields than allowed. */
  | { kind: 'too-many-fields' };

/** Filters of /list/, resolved to instants; all combine with AND. */
export interface MemberFilters {
  /** Case-insensitive substrings; `%` and `_` are plain characters. */
  readonly loginContains?: string;
  readonly emailContains?: string;
  readonly profileContains?: string;
  readonly profileFieldContains?: ReadonlyArray<{ readonly name: string; readonly text: string }>;
  /** Exact, case-insensitive. */
  readonly login?: string;
  readonly email?: string;
  /** Without a status and without `deletedFrom`, Deleted members are left out. */
  readonly status?: MemberStatus;
  readonly regType?: RegType;
  /** reg_at >= registeredFrom */
  readonly registeredFrom?: number;
  /** reg_at < registeredBefore */
  readonly registeredBefore?: number;
  /** Deleted members whose deletion is at or after this instant. */
  readonly deletedFrom?: number;
}

export interface MemberListing {
  readonly rows: AsyncIterable<ListedRow[]>;
  /** Call after reading `rows`: the number of members the filters match, before the limit. */
  total(): Promise<number>;
}

export interface MemberListQuery {
  readonly columns: readonly MemberColumn[];
  readonly profileFields: readonly string[];
  readonly filters: MemberFilters;
  /** At most this many members, by id; null for all. */
  readonly limit: number | null;
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

  /**
   * Applies `changes` to every member `selector` finds, in one transaction: all change or
   * none does. Set-based: a handful of statements whatever the number of members. Due time
   * expirations are written down first, so that they hold for the update.
   */
  updateMembers(accountId: number, selector: MemberSelector, changes: MemberChanges, now: number): Promise<MemberUpdate>;

  /**
   * Lists members in id order from a cursor, in one read snapshot: `consume` gets the rows in
   * chunks, and once it has read them, `total()` gives the number of members matching the
   * filters before the limit (counted while streaming when there is no limit). Due time
   * expirations are written down first, so that the list shows them.
   */
  listMembers(accountId: number, query: MemberListQuery, now: number, consume: (listing: MemberListing) => Promise<void>): Promise<void>;

  /** Writes down the time expirations of this account's members that are due at `now`. */
  expireDue(accountId: number, now: number): Promise<number>;

  /** The ids of the members holding these logins (case-insensitively), by folded login. */
  findLoginIds(accountId: number, logins: readonly string[]): Promise<Map<string, number>>;
  /** Writes one batch of an import in one transaction: all of it, or none. */
  writeImport(accountId: number, write: ImportWrite): Promise<void>;
  /** The account's members, whole, in id order, from one read snapshot, handed to `consume`. */
  exportMembers(accountId: number, consume: (exported: MemberExport) => Promise<void>): Promise<void>;
}

/** Installation-wide upkeep, run by the sweep: not tied to one account. */
export interface MemberHousekeeping {
  /** Writes down every due time expiration; returns how many members changed. */
  expireAllDue(now: number): Promise<number>;
  /** Removes up to `limit` members deleted before `before`; their logins become free. */
  purgeDeleted(before: number, limit: number): Promise<number>;
  /** Removes sessions created, login events recorded and failure counters last touched before `before`. */
  purgeSessions(before: number): Promise<number>;
  purgeLoginEvents(before: number): Promise<number>;
  purgeThrottles(before: number): Promise<number>;
  /** Folds the member-count deltas into the counters (PostgreSQL's triggers append deltas). */
  foldMemberCounts(): Promise<number>;
  /** Removes request-limit counters that expired before `before`. */
  purgeRateLimits(before: number): Promise<number>;
  /** Keeps the query planner's statistics current. */
  refreshStatistics(): Promise<void>;
  /**
   * Runs `work` unless another server on this store is running work of the same name, and
   * answers undefined then: several servers on one database elect one sweeper.
   */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined>;
}
