/** Upkeep across all accounts, for the sweep. */
import { sql } from 'kysely';
import type { Housekeeping } from '../upkeep/housekeeping.js';
import { writerProcedure } from './dialects/dialect.js';
import { Repository, type StoreConnection } from './writes.js';
import { CHUNK_MEMBERS, expireDueProcedure } from './member-updates.js';
import type { Database } from './schema.js';
import type { NewEvent } from '../events/event.js';
import { expiringEvent, purgedEvent } from '../events/member-events.js';
import { queueMail } from './mail-repository.js';
import { appendEvents, sequenceEvents } from './event-repository.js';
import { unwarned } from './migrations/010-event-settings.js';

/** Tables whose rows are written and deleted within seconds: the event outbox, and the counters' deltas (PostgreSQL). */
const QUEUE_TABLES = ['event_outbox', 'member_count_deltas', 'account_usage_deltas'] as const satisfies ReadonlyArray<keyof Database>;

/**
 * Up to `limit` members Deleted before `before` purged, each with its `member.purged` in the
 * same transaction (in batches, so that a purge of many members never holds the store long).
 */
export const purgeDeletedProcedure = writerProcedure(
  'housekeeping.purgeDeleted',
  ({ db }, before: number, limit: number, now: number, withEvents: boolean): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const purged = await trx
        .deleteFrom('members')
        .where('id', 'in', (eb) => eb.selectFrom('members').select('id').where('status', '=', 'D').where('deleted_at', '<', before).limit(limit))
        .returning(['account_id', 'id', 'login'])
        .execute();
      if (withEvents) {
        const byAccount = new Map<number, NewEvent[]>();
        for (const row of purged) {
          const events = byAccount.get(Number(row.account_id)) ?? [];
          events.push(purgedEvent({ id: Number(row.id), login: row.login }, now));
          byAccount.set(Number(row.account_id), events);
        }
        for (const [accountId, events] of [...byAccount].sort(([a], [b]) => a - b)) await appendEvents(trx, accountId, events);
      }
      return purged.length;
    }),
  () => true,
);

/**
 * Up to `limit` of the account's Active members whose time expiry falls by `until` marked
 * warned, each with its `member.expiring` (and its reminder mail, when the account has a mail
 * server); answers how many.
 */
export const warnExpiringProcedure = writerProcedure(
  'housekeeping.warnExpiring',
  ({ db, engine }, account: { id: number; smtp_url: string }, now: number, until: number, limit: number): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('members')
        .select(['id', 'login', 'exp_time_at', 'exp_time_mode'])
        .where('account_id', '=', account.id)
        .where('status', '=', 'A')
        .where('exp_time_at', 'is not', null)
        .where(unwarned(engine))
        .where('exp_time_at', '>', now)
        .where('exp_time_at', '<=', until)
        .orderBy('exp_time_at')
        .limit(limit)
        .execute();
      if (due.length === 0) return 0;
      await trx
        .updateTable('members')
        .set({ exp_warned_at: sql`exp_time_at` })
        .where(
          'id',
          'in',
          due.map((row) => row.id),
        )
        .execute();
      // The reminder mail, when the account has a mail server: queued with the warning.
      if (account.smtp_url !== '')
        await queueMail(
          trx,
          account.id,
          due.map((row) => row.id),
          { kind: 'expiring' },
          now,
        )?.execute();
      await appendEvents(
        trx,
        account.id,
        due.map((row) => expiringEvent({ id: row.id, login: row.login }, Number(row.exp_time_at), row.exp_time_mode, now)),
      );
      return due.length;
    }),
  () => true,
);

/** The member counts' deltas folded into the counts (PostgreSQL); answers how many deltas. */
export const foldMemberCountsProcedure = writerProcedure(
  'housekeeping.foldMemberCounts',
  ({ db }): Promise<number> =>
    db.transaction().execute(async (trx) => {
      // Exactly the deltas deleted are folded: one that commits meanwhile waits for the next sweep.
      const moved = await trx.deleteFrom('member_count_deltas').returning(['account_id', 'status', 'n']).execute();
      const sums = new Map<string, { account_id: number; status: string; n: number }>();
      for (const delta of moved) {
        const key = `${delta.account_id}:${delta.status}`;
        const sum = sums.get(key) ?? { account_id: delta.account_id, status: delta.status, n: 0 };
        sum.n += Number(delta.n);
        sums.set(key, sum);
      }
      const rows = [...sums.values()].sort((a, b) => a.account_id - b.account_id || a.status.localeCompare(b.status));
      if (rows.length > 0) {
        await trx
          .insertInto('member_counts')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['account_id', 'status']).doUpdateSet((eb) => ({ n: sql<number>`${eb.ref('member_counts.n')} + ${eb.ref('excluded.n')}` })),
          )
          .execute();
      }
      return moved.length;
    }),
  () => true,
);

/** The profile bytes' deltas folded into each account's usage (PostgreSQL); answers how many deltas. */
export const foldAccountUsageProcedure = writerProcedure(
  'housekeeping.foldAccountUsage',
  ({ db }): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const moved = await trx.deleteFrom('account_usage_deltas').returning(['account_id', 'profile_bytes']).execute();
      const sums = new Map<number, number>();
      for (const delta of moved) sums.set(delta.account_id, (sums.get(delta.account_id) ?? 0) + Number(delta.profile_bytes));
      const rows = [...sums].sort(([a], [b]) => a - b).map(([account_id, profile_bytes]) => ({ account_id, profile_bytes }));
      if (rows.length > 0) {
        await trx
          .insertInto('account_usage')
          .values(rows)
          .onConflict((oc) =>
            oc
              .column('account_id')
              .doUpdateSet((eb) => ({ profile_bytes: sql<number>`${eb.ref('account_usage.profile_bytes')} + ${eb.ref('excluded.profile_bytes')}` })),
          )
          .execute();
      }
      return moved.length;
    }),
  () => true,
);

export class HousekeepingRepository extends Repository implements Housekeeping {
  constructor(
    connection: StoreConnection,
    /** Whether the sweep's changes write events (the EVENTS setting). */
    private readonly events = true,
  ) {
    super(connection);
  }

  refreshStatistics(): Promise<void> {
    return this.connection.refreshStatistics();
  }

  exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
    return this.connection.exclusively(name, work);
  }

  async expireAllDue(now: number): Promise<number> {
    let expired = 0;
    for (;;) {
      const count = await this.connection.transact(expireDueProcedure, now, this.events);
      expired += count;
      if (count < CHUNK_MEMBERS) return expired;
    }
  }

  async purgeDeleted(before: number, limit: number, now: number): Promise<number> {
    // In batches, so that a purge of many members never holds the store for long; each
    // purged member's `member.purged` in the same transaction.
    return this.connection.transact(purgeDeletedProcedure, before, limit, now, this.events);
  }

  async warnExpiring(now: number, limit: number): Promise<number> {
    if (!this.events) return 0;
    const accounts = await this.reads
      .selectFrom('accounts')
      .select(['id', 'expiry_warning_seconds', 'smtp_url'])
      .where('expiry_warning_seconds', '>', 0)
      .execute();
    let warned = 0;
    for (const account of accounts) {
      const until = now + Number(account.expiry_warning_seconds) * 1000;
      for (;;) {
        const count = await this.connection.transact(warnExpiringProcedure, { id: account.id, smtp_url: account.smtp_url }, now, until, limit);
        warned += count;
        if (count < limit) break;
      }
    }
    return warned;
  }

  async purgeSessions(before: number, now: number): Promise<number> {
    // Every session past SESSION_RETENTION_DAYS, then each account's past its own lifetime.
    let purged = Number((await this.connection.write(this.build.deleteFrom('sessions').where('created_at', '<', before), { long: true })).numAffectedRows);
    const accounts = await this.reads.selectFrom('accounts').select(['id', 'session_lifetime_seconds']).execute();
    for (const account of accounts) {
      const ended = now - Number(account.session_lifetime_seconds) * 1000;
      if (ended <= before) continue;
      const result = await this.connection.write(this.build.deleteFrom('sessions').where('created_at', '<', ended).where('account_id', '=', account.id), {
        long: true,
      });
      purged += Number(result.numAffectedRows);
    }
    return purged;
  }

  async purgeResetLinks(before: number): Promise<number> {
    const result = await this.connection.write(this.build.deleteFrom('reset_links').where('expires_at', '<', before), { long: true });
    return Number(result.numAffectedRows);
  }

  async purgeMails(before: number): Promise<number> {
    const result = await this.connection.write(
      this.build.deleteFrom('mail_outbox').where((eb) => eb.or([eb('sent_at', '<', before), eb('failed_at', '<', before)])),
      { long: true },
    );
    return Number(result.numAffectedRows);
  }

  async purgeLoginEvents(before: number): Promise<number> {
    const [result] = await this.connection.writeAll(
      [
        this.build.deleteFrom('login_events').where('at', '<', before),
        // The overview's counts of logins and registrations go with the records of logins.
        this.build.deleteFrom('activity_counts').where('hour', '<', before),
      ],
      { long: true },
    );
    return Number(result!.numAffectedRows);
  }

  sequenceEvents(): Promise<number> {
    return sequenceEvents(this.connection);
  }

  async purgeEvents(before: number, max: number): Promise<number> {
    const result = await this.connection.write(
      this.build.deleteFrom('events').where('entry', 'in', (eb) => eb.selectFrom('events').select('entry').where('at', '<', before).limit(max)),
      { long: true },
    );
    // The members of the bulk updates purged go with them (a few at a time, as the events).
    await this.connection.write(
      this.build
        .deleteFrom('bulk_updated_members')
        .where('at', 'in', (eb) => eb.selectFrom('bulk_updated_members').select('at').where('at', '<', before).orderBy('at').limit(1)),
      { long: true },
    );
    return Number(result.numAffectedRows);
  }

  async foldMemberCounts(): Promise<number> {
    // Nothing to fold (always on SQLite, whose triggers keep the counts themselves): no transaction.
    if (!(await this.connection.reads.selectFrom('member_count_deltas').select('account_id').limit(1).executeTakeFirst())) return 0;
    return this.connection.transact(foldMemberCountsProcedure);
  }

  async foldAccountUsage(): Promise<number> {
    if (!(await this.connection.reads.selectFrom('account_usage_deltas').select('account_id').limit(1).executeTakeFirst())) return 0;
    return this.connection.transact(foldAccountUsageProcedure);
  }

  vacuumQueues(): Promise<string[]> {
    return this.connection.vacuumQueues(QUEUE_TABLES);
  }

  async purgeExpiredKeys(before: number): Promise<number> {
    const result = await this.connection.write(this.build.deleteFrom('api_keys').where('expires_at', '<', before), { long: true });
    return Number(result.numAffectedRows);
  }

  async purgeRateLimits(before: number): Promise<number> {
    const result = await this.connection.write(this.build.deleteFrom('rate_limits').where('expire', '<', before), { long: true });
    return Number(result.numAffectedRows);
  }

  async purgeThrottles(before: number): Promise<number> {
    const result = await this.connection.write(
      this.build.deleteFrom('login_failures').where('last_failure_at', '<', before).where('locked_until', '<', before),
      { long: true },
    );
    return Number(result.numAffectedRows);
  }
}
