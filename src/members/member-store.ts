import type { MailRequest } from '../mail/mail.js';
import type { LoginExpiry, Member, MemberStatus, NewMember, RegType, TimeExpiry } from './member.js';
import type { ListedRow, RecordField } from './record-template.js';
import type { EventOrigin } from '../events/event.js';

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
  | { readonly by: 'all' }
  /**
   * The members the console's filters find at `now` (its bulk actions), never a Deleted one
   * unless `restoring` (an activation, which brings Deleted members back).
   */
  | {
      readonly by: 'filter';
      readonly filters: MemberFilters;
      readonly now: number;
      readonly restoring?: boolean;
      /** The selection a preview showed: the update is refused ('selection-changed') when the members found now are not these. */
      readonly expect?: Selection;
    };

/** A selection of members, told apart cheaply: how many, and the sum of their ids. */
export interface Selection {
  readonly count: number;
  readonly idSum: number;
}

/**
 * The most an update may write, in profile values: per request, and the account's storage
 * quota in bytes (what the account holds already is read in the update's transaction).
 */
export interface UpdateLimits {
  readonly maxProfileBytes: number;
  readonly storageQuota: number;
}

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
  /** End the members' sessions (a password change or a status change to S or D ends them anyway). */
  readonly revokeSessions?: boolean;
  /** A mail queued to every member changed, in the change's transaction (an approval's welcome). */
  readonly mail?: MailRequest;
  /** Paid (a payment's effect) or Manual (an operator's grant without payment). */
  readonly regType?: RegType;
  /** The seed's billing fields, set by a payment's effect. */
  readonly billPc?: string;
  readonly billCust?: string;
  readonly billSubscr?: string;
  readonly billItem?: string;
  readonly billQty?: string;
  readonly billId?: string;
}

export type MemberUpdate =
  | { kind: 'updated'; count: number }
  | { kind: 'not-found' }
  /** A new login was asked for while several members matched. */
  | { kind: 'login-not-unique' }
  /** A member would have more profile fields than allowed. */
  | { kind: 'too-many-fields' }
  /** The profile values set, times the members matched, are more than one update may write. */
  | { kind: 'too-large'; bytes: number }
  /** The account would hold more profile data than its storage quota. */
  | { kind: 'over-quota' }
  /** The members the filter finds are no longer those the preview counted (`expect`). */
  | { kind: 'selection-changed' };

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
  /**
   * The console's one search box: the id (when the text is one), or a case-insensitive
   * substring of the login, the e-mail or any profile value.
   */
  readonly anyContains?: string;
  /** Without a status, without `deletedFrom` and without `includeDeleted`, Deleted members are left out. */
  readonly status?: MemberStatus;
  readonly includeDeleted?: boolean;
  /** Members whose id is at most this (those a bulk action's preview saw: none added since). */
  readonly idAtMost?: number;
  readonly regType?: RegType;
  /** reg_at >= registeredFrom */
  readonly registeredFrom?: number;
  /** reg_at < registeredBefore */
  readonly registeredBefore?: number;
  /** Deleted members whose deletion is at or after this instant. */
  readonly deletedFrom?: number;
}

/**
 * A list being read: its rows in chunks, from one snapshot that is opened at the first read
 * and released when the reading ends (however it ends).
 */
export interface MemberListing extends AsyncIterable<ListedRow[]> {
  /** The number of members the filters match, before the limit; known once every row has been read. */
  readonly total: number;
}

export interface MemberListQuery {
  /** The fields to return: the store reads the columns and profile fields they need. */
  readonly record: readonly RecordField[];
  readonly filters: MemberFilters;
  /** At most this many members, by id; null for all. */
  readonly limit: number | null;
}

/** The console's members page: one page of a filtered, sorted list, by keyset. */
export interface MemberPageQuery {
  readonly filters: MemberFilters;
  readonly order: 'id' | 'login' | 'email' | 'status' | 'registered';
  /** Newest, or last in the alphabet, first. */
  readonly descending?: boolean;
  /** The page after this cursor, the page before it, the first page (neither) or the last page. */
  readonly after?: string;
  readonly before?: string;
  readonly last?: boolean;
  readonly limit: number;
  /** Profile fields shown as columns. */
  readonly profileFields: readonly string[];
}

export interface MemberPage {
  readonly members: ReadonlyArray<{ readonly member: Member; readonly profile: ReadonlyMap<string, string> }>;
  /** Cursors of the first and last member of the page, for the pages before and after it. */
  readonly firstCursor: string | undefined;
  readonly lastCursor: string | undefined;
  /** Whether there are members before and after this page. */
  readonly hasBefore: boolean;
  readonly hasAfter: boolean;
  /** Every member the filters match. */
  readonly total: number;
}

/** A member that registered on the member pages, and whether it waits for an operator's approval. */
export interface Registered {
  readonly approval: boolean;
  /** The language of the page it was made on: the decision's mail is in it. */
  readonly language?: string;
}

/**
 * What the member services need from storage: members and their profiles. Every method takes
 * the account id, and never sees or changes another account's members. A write that breaks a
 * uniqueness rule (a login taken) fails with the store's UniqueViolation.
 */
export interface MemberStore {
  /**
   * The new member's id; `member.created` is written with it (from `origin`), `mail` queued to
   * it, and for a registration `member.registered`, in one transaction.
   */
  insertMember(accountId: number, member: NewMember, origin: EventOrigin, mail?: MailRequest, registration?: Registered): Promise<number>;
  /** The first `limit` members (by id) a selector finds that are not Deleted (as stored). */
  findMembers(accountId: number, selector: MemberSelector, limit: number): Promise<Member[]>;
  /** The registrations awaiting approval whose member is still Suspended: the oldest `limit` ids, and how many in all. */
  pendingRegistrations(accountId: number, limit: number): Promise<{ ids: number[]; total: number }>;
  /** Takes the member's registration out of the queue, with the language of its page ('' when not known); undefined when it was not there (decided already). */
  takePendingRegistration(accountId: number, memberId: number): Promise<{ language: string } | undefined>;
  /** How many members an update with this selector matches, and the sum of their ids (its cost grows with them: read apart). */
  countSelected(accountId: number, selector: MemberSelector): Promise<Selection>;
  /** Whether a member (in any state) holds this login, compared case-insensitively. */
  loginTaken(accountId: number, login: string): Promise<boolean>;
  findMemberByLogin(accountId: number, login: string): Promise<Member | undefined>;
  /** The first `limit` members (in any state), in byte order of the folded login or address, whose login or address begins with `prefix`. */
  findMembersStartingWith(accountId: number, column: 'login_key' | 'email_key', prefix: string, limit: number): Promise<Member[]>;
  findMemberById(accountId: number, memberId: number): Promise<Member | undefined>;
  /** A member's profile fields, by name. */
  findProfile(accountId: number, memberId: number): Promise<Map<string, string>>;
  /**
   * Marks the member's address verified, if it is still `email` (compared folded; once: the
   * first instant is kept). False when there is no such member, or its address changed.
   */
  markEmailVerified(accountId: number, memberId: number, email: string, at: number, origin: EventOrigin): Promise<boolean>;
  /**
   * Erases a member, at its own request (the member pages' deletion), in one transaction: it is
   * Deleted, and everything about it but its id, its login, its registration and its deletion
   * time goes (store/member-erasure.ts). Answers its login; undefined when there is none.
   */
  eraseMember(accountId: number, memberId: number, now: number, origin: EventOrigin): Promise<string | undefined>;

  /**
   * Applies `changes` to every member `selector` finds, in one transaction: all change or
   * none does. Set-based, in chunks of members. Due time expirations are written down first,
   * so that they hold for the update. The change's events are written in the same
   * transaction: each member's (`member.updated`, `member.status_changed`, `member.deleted`),
   * or one `member.bulk_updated` for the selector `all`.
   */
  updateMembers(
    accountId: number,
    selector: MemberSelector,
    changes: MemberChanges,
    now: number,
    limits: UpdateLimits,
    origin: EventOrigin,
  ): Promise<MemberUpdate>;

  /**
   * Lists members in id order from a cursor, in one read snapshot, as they are at `now` (a
   * time expiration that fell due counts, written down or not). Writes nothing.
   */
  listMembers(accountId: number, query: MemberListQuery, now: number): MemberListing;
  /** One page of members, by keyset, and how many match: the same cost on the last page as on the first. */
  pageMembers(accountId: number, query: MemberPageQuery, now: number): Promise<MemberPage>;

  /** Bytes of profile values the account's members hold together (for its storage quota). */
  profileBytes(accountId: number): Promise<number>;
}
