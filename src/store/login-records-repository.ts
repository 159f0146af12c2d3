/** The record of logins (attempts, failure counts, sessions, the hash upgrade): the login side's storage. */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { ALL_ADDRESSES, lockedUntil, type LoginFailures, type LoginThrottle } from '../auth/lockout.js';
import type { MemberStatus } from '../members/member.js';
import type { FailedAttempt, FailureCount, LoginAttemptEvents, LoginEvent, LoginRecording, LoginRecords, LoginSubject, SuccessfulLogin } from '../members/login-records.js';
import { foldKey } from '../members/member.js';
import { toMember, type MemberRow } from './member-rows.js';
import { endResetLinksOf, RESET_LINK_ENDED } from './reset-repository.js';
import type { EventOrigin, NewEvent } from '../events/event.js';
import { lockedEvent, loginEvent, loginExpiryEvents, unlockedEvent } from '../events/member-events.js';
import { appendEvents, appendEventsStatements, outboxInsertFrom } from './event-repository.js';
import { writerProcedure } from './dialects/dialect.js';
import { Repository, type StoreConnection } from './writes.js';
import { hotRead } from './hot-reads.js';

function failuresOf(rows: ReadonlyArray<{ scope: string; failures: number; last_failure_at: number; locked_until: number }>, scope: string): LoginFailures {
  const throttle = (s: string): LoginThrottle | undefined => {
    const row = rows.find((r) => r.scope === s);
    return row && { failures: row.failures, lastFailureAt: row.last_failure_at, lockedUntil: row.locked_until };
  };
  return { address: throttle(scope), all: throttle(ALL_ADDRESSES) };
}

type RecordedLogin = SuccessfulLogin & { throttleScope: string; events?: LoginAttemptEvents };

/**
 * A successful login counted (see LoginRecords.recordLogin); `withEvents`: whether logins
 * write their events (the EVENTS setting). Where a statement is a round trip and a WITH may
 * write (PostgreSQL), one statement (recordLoginAtOnce); otherwise one transaction of several
 * (SQLite's writer thread, where a statement costs no round trip).
 */
export const recordLoginProcedure = writerProcedure(
  'logins.recordLogin',
  ({ db, writesInOneStatement }, accountId: number, memberId: number, login: RecordedLogin, withEvents: boolean): Promise<LoginRecording> => {
    const events = loginEvents(login, withEvents);
    return writesInOneStatement ? recordLoginAtOnce(db, accountId, memberId, login, events) : recordLoginInSteps(db, accountId, memberId, login, events);
  },
);

/**
 * The member's side of a login: one more login counted, one less left of an allowance (and
 * the status its last one gives), if the member may log in now. Columns on the right-hand side
 * read the values from before this update, so the allowance check and the decrement are one
 * atomic step on both engines.
 */
function loginUpdate(db: Pick<Kysely<Database>, 'updateTable'>, accountId: number, memberId: number, login: RecordedLogin) {
  const { at } = login;
  return db
    .updateTable('members')
    .set({
      login_count: sql`login_count + 1`,
      last_login_at: at,
      last_login_ip: login.ip,
      exp_logins_left: sql`case when exp_logins_mode is null then exp_logins_left else exp_logins_left - 1 end`,
      status: sql`case when exp_logins_mode is not null and exp_logins_left <= 1 then exp_logins_mode else status end`,
      deleted_at: sql`case when exp_logins_mode = 'D' and exp_logins_left <= 1 then cast(${at} as bigint) else deleted_at end`,
      updated_at: at,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', memberId)
    .where('status', '=', sql.lit('A'))
    // Value first: the comparison filters the member found by its id (postgres-prepared.ts then
    // names the statement); the constants are literals.
    .where((eb) => eb.or([eb('exp_time_at', 'is', null), eb(eb.val(at), '<', eb.ref('exp_time_at'))]))
    .where((eb) => eb.or([eb('exp_logins_mode', 'is', null), eb('exp_logins_left', '>', sql.lit(0))]))
    .returning(['id', 'status']);
}

/** The events a login writes: always (its `member.login`, when the account asks), and by the status it leaves (the last login of an allowance). */
interface LoginEvents {
  readonly always: readonly NewEvent[];
  readonly ifStatus: { readonly S: readonly NewEvent[]; readonly D: readonly NewEvent[] };
}

function loginEvents(login: RecordedLogin, withEvents: boolean): LoginEvents {
  const events = withEvents ? login.events : undefined;
  if (!events?.member) return { always: [], ifStatus: { S: [], D: [] } };
  return {
    always: events.loginEvent ? [loginEvent(events, 'ok', login.at)] : [],
    ifStatus: { S: loginExpiryEvents(events.member, 'S', login.at), D: loginExpiryEvents(events.member, 'D', login.at) },
  };
}

/** SQLite: the login's statements one after the other in a transaction. */
function recordLoginInSteps(db: Kysely<Database>, accountId: number, memberId: number, login: RecordedLogin, events: LoginEvents): Promise<LoginRecording> {
  const { at } = login;
  return db.transaction().execute(async (trx) => {
    const updated = await loginUpdate(trx, accountId, memberId, login).executeTakeFirst();
    if (!updated) return { kind: 'not-active' } as const;
    // The last login its allowance gave suspended or deleted it: its reset links end.
    if (updated.status !== 'A') await endResetLinksOf(trx, accountId, [memberId]);
    await trx
      .insertInto('sessions')
      .values({ digest: login.sessionDigest, account_id: accountId, member_id: memberId, created_at: at, ip: login.ip, remember: login.remember ? 1 : 0 })
      .execute();
    // A success clears the count of its own scope and the count across addresses.
    await trx
      .deleteFrom('login_failures')
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .where('scope', 'in', [login.throttleScope, ALL_ADDRESSES])
      .execute();
    if (login.ip !== null) {
      await trx.insertInto('login_events').values({ account_id: accountId, member_id: memberId, login: login.login, ip: login.ip, at, outcome: 'ok' }).execute();
    }
    const byStatus = updated.status === 'S' || updated.status === 'D' ? events.ifStatus[updated.status] : [];
    await appendEvents(trx, accountId, [...events.always, ...byStatus]);
    return { kind: 'recorded', status: updated.status as MemberStatus } as const;
  });
}

/**
 * PostgreSQL: the same writes as recordLoginInSteps in one statement, a transaction of its own
 * (one round trip: no BEGIN, no COMMIT). Every part after the member's update reads its
 * returned row, `updated`: when the member may not log in there is none, and nothing is
 * written. The events are written in the statement too, each where the status it needs is
 * the one the update left.
 */
async function recordLoginAtOnce(db: Kysely<Database>, accountId: number, memberId: number, login: RecordedLogin, events: LoginEvents): Promise<LoginRecording> {
  const { at } = login;
  const outbox = [
    ...events.always.map((event) => ({ event })),
    ...(['S', 'D'] as const).flatMap((status) => events.ifStatus[status].map((event) => ({ event, status }))),
  ];
  let statement = db
    .with('updated', (qb) => loginUpdate(qb, accountId, memberId, login))
    .with('session', (qb) =>
      qb
        .insertInto('sessions')
        .columns(['digest', 'account_id', 'member_id', 'created_at', 'ip', 'remember'])
        .expression((eb) =>
          eb
            .selectFrom('updated')
            .select([
              sql<string>`cast(${login.sessionDigest} as text)`.as('digest'),
              sql<number>`cast(${accountId} as bigint)`.as('account_id'),
              'id',
              sql<number>`cast(${at} as bigint)`.as('created_at'),
              sql<string | null>`cast(${login.ip} as text)`.as('ip'),
              sql<number>`cast(${login.remember ? 1 : 0} as integer)`.as('remember'),
            ]),
        ),
    )
    // A success clears the count of its own scope and the count across addresses.
    .with('cleared', (qb) =>
      qb
        .deleteFrom('login_failures')
        .where('account_id', '=', accountId)
        .where('member_id', 'in', qb.selectFrom('updated').select('id'))
        .where('scope', 'in', [login.throttleScope, ALL_ADDRESSES]),
    )
    // The last login its allowance gave suspended or deleted it: its reset links end.
    .with('links_ended', (qb) =>
      qb
        .updateTable('reset_links')
        .set({ expires_at: RESET_LINK_ENDED })
        .where('account_id', '=', accountId)
        .where('member_id', 'in', qb.selectFrom('updated').select('id').where('status', '<>', 'A'))
        .where('expires_at', '>', sql.lit(RESET_LINK_ENDED)),
    );
  if (login.ip !== null) {
    const ip = login.ip;
    statement = statement.with('recorded', (qb) =>
      qb
        .insertInto('login_events')
        .columns(['account_id', 'member_id', 'login', 'ip', 'at', 'outcome'])
        .expression((eb) =>
          eb
            .selectFrom('updated')
            .select([
              sql<number>`cast(${accountId} as bigint)`.as('account_id'),
              'id',
              sql<string>`cast(${login.login} as text)`.as('login'),
              sql<string>`cast(${ip} as text)`.as('ip'),
              sql<number>`cast(${at} as bigint)`.as('at'),
              sql<string>`cast('ok' as text)`.as('outcome'),
            ]),
        ),
    ) as unknown as typeof statement;
  }
  if (outbox.length > 0) {
    const insert = outboxInsertFrom('updated', accountId, outbox);
    statement = statement.with('outbox', () => sql<Record<string, unknown>>`(${insert})`) as unknown as typeof statement;
  }
  const updated = await statement.selectFrom('updated').select('status').executeTakeFirst();
  if (!updated) return { kind: 'not-active' };
  return { kind: 'recorded', status: updated.status as MemberStatus };
}

/**
 * A failed attempt counted, in its scope and across all addresses, in one transaction (see
 * LoginRecords.recordLoginFailure), locking by the account's policy.
 */
export const recordLoginFailureProcedure = writerProcedure(
  'logins.recordLoginFailure',
  (
    { db },
    accountId: number,
    memberId: number,
    scope: string,
    attempt: FailedAttempt & { events?: LoginAttemptEvents & { outcome: 'fail' | 'locked' } },
    withEvents: boolean,
  ): Promise<LoginFailures> => {
    const { at, resetBefore } = attempt;
    const added = attempt.counted ? 1 : 0;
    return db.transaction().execute(async (trx) => {
      // Both counts in one statement: the scope's and the one across addresses. An attempt
      // that does not count (a right password while locked) still runs the very same
      // statements, so that its time tells nothing.
      const counted = await trx
        .insertInto('login_failures')
        .values(
          [scope, ALL_ADDRESSES].map((s) => ({ account_id: accountId, member_id: memberId, scope: s, failures: added, last_failure_at: at, locked_until: 0 })),
        )
        .onConflict((oc) =>
          oc.columns(['account_id', 'member_id', 'scope']).doUpdateSet({
            failures: sql`case when login_failures.last_failure_at < ${resetBefore} then excluded.failures else login_failures.failures + excluded.failures end`,
            last_failure_at: sql`case when excluded.failures = 0 then login_failures.last_failure_at else excluded.last_failure_at end`,
          }),
        )
        .returning(['scope', 'failures', 'last_failure_at', 'locked_until'])
        .execute();
      const rows = [];
      let lockedNow: { until: number; scope: 'all' | 'address'; failures: number } | undefined;
      for (const row of counted) {
        // An attempt that does not count locks nothing (the update then matches no row).
        const until = attempt.counted ? lockedUntil(row.scope === ALL_ADDRESSES ? 'all' : 'address', row.failures, at, attempt.policy) : 0;
        await trx
          .updateTable('login_failures')
          .set({ locked_until: until })
          .where('account_id', '=', accountId)
          .where('member_id', '=', memberId)
          .where('scope', '=', row.scope)
          .where('locked_until', '<', until)
          .execute();
        rows.push({ ...row, locked_until: Math.max(row.locked_until, until) });
        // A lock that begins now (none was on): `member.locked`.
        if (until > at && row.locked_until <= at && (!lockedNow || until > lockedNow.until))
          lockedNow = { until, scope: row.scope === ALL_ADDRESSES ? 'all' : 'address', failures: Number(row.failures) };
      }
      const events = withEvents ? attempt.events : undefined;
      if (events) {
        const written: NewEvent[] = [];
        if (events.loginEvent) written.push(loginEvent(events, events.outcome, at));
        if (lockedNow && events.member) {
          written.push(lockedEvent(events.member, lockedNow, at));
        }
        await appendEvents(trx, accountId, written);
      }
      return failuresOf(rows, scope);
    });
  },
);

/** A member's failure counts cleared, with `member.unlocked` when that ended a lock; answers how many counts there were. */
export const clearLoginFailuresProcedure = writerProcedure(
  'logins.clearLoginFailures',
  ({ db }, accountId: number, memberId: number, unlocked: { at: number; login: string; origin: EventOrigin } | undefined): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const cleared = await trx
        .deleteFrom('login_failures')
        .where('account_id', '=', accountId)
        .where('member_id', '=', memberId)
        .returning('locked_until')
        .execute();
      if (unlocked && cleared.some((row) => Number(row.locked_until) > unlocked.at)) {
        await appendEvents(trx, accountId, [unlockedEvent({ id: memberId, login: unlocked.login }, unlocked.at, unlocked.origin)]);
      }
      return cleared.length;
    }),
);

/**
 * A login's row: the member's columns (all null when no member has that login) beside the
 * counts of one scope (f: the member's, g: those of logins that name none).
 */
type SubjectRow = { [K in keyof MemberRow]: MemberRow[K] | null } & { [K in 'f' | 'g' as `${K}_scope`]: string | null } & {
  [K in 'f' | 'g' as `${K}_${'failures' | 'last_failure_at' | 'locked_until'}`]: number | null;
};

/**
 * A login's one read: from one row, the member its login names (its columns null when there is
 * none), joined to its counts (f) and to noMember's (g), each by the counts' key: up to four
 * rows, each count on one or two.
 */
function loginSubjectRead(connection: StoreConnection) {
  return hotRead<SubjectRow, { accountId: number; loginKey: string; scope: string; noMember: number }>('login_subject', (v) =>
    connection.reads
      .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
      .leftJoin(
        (eb) =>
          eb
            .selectFrom('members')
            .selectAll()
            // A list of one: memberIs compares `= key` for a string, and a slot is none.
            .where(connection.search.memberIs(v.accountId, 'login_key', [v.loginKey], 'members'))
            .as('m'),
        (join) => join.onTrue(),
      )
      .leftJoin('login_failures as f', (join) => join.onRef('f.member_id', '=', 'm.id').on('f.account_id', '=', v.accountId).on('f.scope', 'in', [v.scope, ALL_ADDRESSES]))
      .leftJoin('login_failures as g', (join) => join.on('g.member_id', '=', v.noMember).on('g.account_id', '=', v.accountId).on('g.scope', 'in', [v.scope, ALL_ADDRESSES]))
      .selectAll('m')
      .select(['f.scope as f_scope', 'f.failures as f_failures', 'f.last_failure_at as f_last_failure_at', 'f.locked_until as f_locked_until'])
      .select(['g.scope as g_scope', 'g.failures as g_failures', 'g.last_failure_at as g_last_failure_at', 'g.locked_until as g_locked_until'])
      .$castTo<SubjectRow>(),
  );
}

export class LoginRecordsRepository extends Repository implements LoginRecords {
  constructor(
    connection: StoreConnection,
    /** Whether logins write their events (the EVENTS setting). */
    private readonly events = true,
  ) {
    super(connection);
  }

  /** A login's one read (findLoginSubject), compiled once. */
  private readonly subject = loginSubjectRead(this.connection);

  recordLogin(accountId: number, memberId: number, login: SuccessfulLogin & { throttleScope: string; events?: LoginAttemptEvents }): Promise<LoginRecording> {
    return this.connection.transact(recordLoginProcedure, accountId, memberId, login, this.events);
  }

  async findLoginFailures(accountId: number, memberId: number, scope: string): Promise<LoginFailures> {
    const rows = await this.reads
      .selectFrom('login_failures')
      .select(['scope', 'failures', 'last_failure_at', 'locked_until'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .where('scope', 'in', [scope, ALL_ADDRESSES])
      .execute();
    return failuresOf(rows, scope);
  }

  async findLoginSubject(accountId: number, login: string, scope: string, noMember: number): Promise<LoginSubject> {
    const rows = await this.subject.run(this.connection, { accountId, loginKey: foldKey(login), scope, noMember });
    const keptOf = (alias: 'f' | 'g') => {
      const kept = new Map<string, { scope: string; failures: number; last_failure_at: number; locked_until: number }>();
      for (const row of rows) {
        const at = row[`${alias}_scope`];
        if (at !== null) kept.set(at, { scope: at, failures: row[`${alias}_failures`]!, last_failure_at: row[`${alias}_last_failure_at`]!, locked_until: row[`${alias}_locked_until`]! });
      }
      return [...kept.values()];
    };
    const first = rows[0];
    const member = first && first.id !== null ? toMember(first as MemberRow) : undefined;
    const own = keptOf('f');
    const nobodys = keptOf('g');
    return { member, failuresOf: (subject) => failuresOf(subject === noMember ? nobodys : member?.id === subject ? own : [], scope) };
  }

  recordLoginFailure(
    accountId: number,
    memberId: number,
    scope: string,
    attempt: FailedAttempt & { events?: LoginAttemptEvents & { outcome: 'fail' | 'locked' } },
  ): Promise<LoginFailures> {
    return this.connection.transact(recordLoginFailureProcedure, accountId, memberId, scope, attempt, this.events);
  }

  async recordLoginEvent(accountId: number, event: LoginEvent): Promise<void> {
    await this.connection.write(
      this.build.insertInto('login_events').values((eb) => ({
        account_id: accountId,
        // Only a member of this account can be named in its events.
        member_id: event.memberId === null ? null : eb.selectFrom('members').select('id').where('account_id', '=', accountId).where('id', '=', event.memberId),
        login: event.login,
        ip: event.ip,
        at: event.at,
        outcome: event.outcome,
      })),
    );
  }

  async listLoginFailures(accountId: number, memberId: number): Promise<FailureCount[]> {
    const rows = await this.reads
      .selectFrom('login_failures')
      .select(['scope', 'failures', 'last_failure_at', 'locked_until'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .orderBy('last_failure_at', 'desc')
      .limit(1000)
      .execute();
    return rows.map((row) => ({
      scope: row.scope,
      failures: Number(row.failures),
      lastFailureAt: Number(row.last_failure_at),
      lockedUntil: Number(row.locked_until),
    }));
  }

  async recordLoginAttemptEvent(accountId: number, at: number, events: LoginAttemptEvents & { outcome: 'suspended' }): Promise<void> {
    if (!this.events || !events.loginEvent) return;
    await this.connection.writeAll(appendEventsStatements(this.build, accountId, [loginEvent(events, events.outcome, at)]));
  }

  async clearLoginFailures(accountId: number, memberId: number, unlocked?: { at: number; login: string; origin: EventOrigin }): Promise<number> {
    return this.connection.transact(clearLoginFailuresProcedure, accountId, memberId, this.events ? unlocked : undefined);
  }

  async recentLoginEvents(accountId: number, memberId: number, limit: number): Promise<LoginEvent[]> {
    const rows = await this.reads
      .selectFrom('login_events')
      .select(['member_id', 'login', 'ip', 'at', 'outcome'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ memberId: row.member_id, login: row.login, ip: row.ip, at: Number(row.at), outcome: row.outcome as LoginEvent['outcome'] }));
  }

  async replacePasswordHash(accountId: number, memberId: number, oldHash: string, newHash: string): Promise<void> {
    await this.connection.write(
      this.build
        .updateTable('members')
        .set({ password_hash: newHash })
        .where('account_id', '=', accountId)
        .where('id', '=', memberId)
        .where('password_hash', '=', oldHash),
    );
  }
}
