/**
 * The sessions /login/ hands out, checked (/session/) and ended (/logout/).
 *
 * A session is a row keyed by the SHA-256 digest of its id (the id itself is never kept). It
 * is valid while its member is Active (effectively: an expiration that fell due counts), for
 * the account's idle lifetime since it was last checked (unless the member asked the sign-in
 * page to keep it signed in) and its absolute lifetime since the login. It ends for good, its row deleted, when: /logout/ ends it; /update/ with
 * `revoke_sessions=1`, a change of password or a status change to S or D (any door) ends the
 * member's sessions in the change's own transaction; a check finds it past a lifetime or its
 * member no longer Active (an expiry, a login allowance used up); the sweep purges old ones.
 *
 * No oracle: an ended session is a missing row, so it is answered exactly as one that never
 * existed, by the same statement.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../common/clock.js';
import { createDateFormatter, type DateFormatter } from './date-format.js';
import { effectiveState } from './lifecycle.js';
import type { Member } from './member.js';
import { createRecordRenderer, profileFieldsOf, type ListedRow, type RecordField } from './record-template.js';

/** What a check needs of the member: who it is, and what decides whether it is Active now. */
export type SessionMember = Pick<Member, 'id' | 'login' | 'email' | 'status' | 'timeExpiry' | 'deletedAt'>;

/** A session as the store finds it, with its member (and, for a record, its listed row). */
export interface FoundSession {
  readonly createdAt: number;
  /** When a check last moved the idle deadline; null: not since the login. */
  readonly seenAt: number | null;
  /** "Keep me signed in": only the absolute lifetime ends it. */
  readonly remember: boolean;
  readonly member: SessionMember;
  /** With a record: the member's columns and the record's profile values (`pf0`, …). */
  readonly row?: ListedRow;
}

export interface SessionStore {
  /** The account's session with this digest and its member; with a record, the member's whole row and the record's profile fields. */
  findSession(
    accountId: number,
    digest: string,
    record?: { readonly profileFields: readonly string[] },
  ): FoundSession | undefined | Promise<FoundSession | undefined>;
  /** Moves the idle deadline: the session was checked at `at`. */
  touchSession(digest: string, at: number): Promise<void>;
  /** Ends one session of the account (nothing when there is none). */
  endSession(accountId: number, digest: string): Promise<void>;
  /** A member's sessions, newest first (ended ones are gone): what an operator sees. */
  listSessions(accountId: number, memberId: number, limit: number): Promise<SessionSummary[]>;
  /** Keeps a new session of a member (its id's digest). */
  createSession(session: { accountId: number; memberId: number; digest: string; createdAt: number; ip: string | null; remember: boolean }): Promise<void>;
  /** Ends one session of this member; false when it has none with this digest. */
  endMemberSession(accountId: number, memberId: number, digest: string): Promise<boolean>;
}

/** A session as an operator sees it: never its id, which is not kept; its digest names it. */
export interface SessionSummary {
  readonly digest: string;
  readonly createdAt: number;
  readonly seenAt: number | null;
  readonly ip: string | null;
  readonly remember: boolean;
}

/** A `/list/` record asked of a check: its template (the renderer's key) and its fields. */
export interface SessionRecord {
  readonly template: string;
  readonly fields: readonly RecordField[];
}

export type SessionCheck = { kind: 'valid'; member: SessionMember; expiresAt: number; remember: boolean; record?: string } | { kind: 'not-found' };

const NOT_FOUND: SessionCheck = Object.freeze({ kind: 'not-found' });

/** A valid check writes the session's last-seen time at most this often: checks stay reads. */
export const SESSION_TOUCH_MS = 60_000;

export function sessionDigest(session: string): string {
  return createHash('sha256').update(session).digest('hex');
}

export class SessionsService {
  /** Date formatters and record renderers, by time zone and template: made once, not per check. */
  private readonly formatters = new Map<string, DateFormatter>();
  private readonly renderers = new Map<string, (row: ListedRow) => string>();

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Whether the session is valid now; a valid check moves its idle deadline (a write at most
   * once a minute). Answered without a promise when the store answers at once (SQLite): this
   * runs on every page of an integrator's site.
   */
  check(account: Account, session: string, record?: SessionRecord): SessionCheck | Promise<SessionCheck> {
    const now = this.clock();
    const digest = sessionDigest(session);
    const found = this.store.findSession(account.id, digest, record && { profileFields: profileFieldsOf(record.fields) });
    return found instanceof Promise ? found.then((f) => this.decide(account, digest, f, now, record)) : this.decide(account, digest, found, now, record);
  }

  private decide(account: Account, digest: string, found: FoundSession | undefined, now: number, record?: SessionRecord): SessionCheck | Promise<SessionCheck> {
    if (!found) return NOT_FOUND;
    const { sessionIdleSeconds, sessionLifetimeSeconds } = account.settings;
    const seen = found.seenAt ?? found.createdAt;
    const endsAt = found.createdAt + sessionLifetimeSeconds * 1000;
    const idleEndsAt = found.remember ? endsAt : seen + sessionIdleSeconds * 1000;
    if (now >= endsAt || now >= idleEndsAt || effectiveState(found.member, now).status !== 'A') {
      // Over for good: a later check (the member restored, say) must not bring it back.
      return this.store.endSession(account.id, digest).then(() => NOT_FOUND);
    }
    const answer = (lastSeen: number): SessionCheck => ({
      kind: 'valid',
      member: found.member,
      remember: found.remember,
      expiresAt: found.remember ? endsAt : Math.min(endsAt, lastSeen + sessionIdleSeconds * 1000),
      ...(record && found.row ? { record: this.renderer(record, account.settings.timeZone)(found.row) } : {}),
    });
    if (now - seen >= SESSION_TOUCH_MS) return this.store.touchSession(digest, now).then(() => answer(now));
    return answer(seen);
  }

  /** A member's live sessions, newest first (at most `limit`): those past a lifetime, not purged yet, are left out. */
  async listOf(account: Account, memberId: number, limit = 20): Promise<SessionSummary[]> {
    const now = this.clock();
    const { sessionIdleSeconds, sessionLifetimeSeconds } = account.settings;
    const live = (session: SessionSummary) =>
      now < session.createdAt + sessionLifetimeSeconds * 1000 && (session.remember || now < (session.seenAt ?? session.createdAt) + sessionIdleSeconds * 1000);
    return (await this.store.listSessions(account.id, memberId, limit)).filter(live);
  }

  /** Ends one of the member's sessions by its digest (an operator's "end this one"); false when it is not the member's. */
  endOne(account: Account, memberId: number, digest: string): Promise<boolean> {
    return this.store.endMemberSession(account.id, memberId, digest);
  }

  /**
   * A new session for a member already known to be who it is (its password just changed by
   * itself): not a login, so nothing is counted (no allowance spent, no lockout, no event).
   * Answers the new id.
   */
  async start(account: Account, memberId: number, options: { ip: string | null; remember: boolean }): Promise<string> {
    const session = randomBytes(24).toString('base64url');
    await this.store.createSession({ accountId: account.id, memberId, digest: sessionDigest(session), createdAt: this.clock(), ...options });
    return session;
  }

  /** Ends the session, if there is one: /logout/ answers the same either way. */
  async end(account: Account, session: string): Promise<void> {
    await this.store.endSession(account.id, sessionDigest(session));
  }

  /** `YYYY-MM-DD hh:mm:ss` in the account's time zone, as /list/ renders times. */
  formatTime(account: Account, instant: number): string {
    const zone = account.settings.timeZone;
    let formatter = this.formatters.get(zone);
    if (!formatter) this.formatters.set(zone, (formatter = createDateFormatter(zone)));
    return formatter.dateTime(instant);
  }

  private renderer(record: SessionRecord, timeZone: string): (row: ListedRow) => string {
    const key = `${timeZone}\u0000${record.template}`;
    let render = this.renderers.get(key);
    if (!render) {
      // Bounded: integrators use a few templates; an odd one costs a renderer, not memory.
      if (this.renderers.size >= 256) this.renderers.clear();
      this.renderers.set(key, (render = createRecordRenderer(record.fields, timeZone)));
    }
    return render;
  }
}
