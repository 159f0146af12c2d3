/** The console's overview: the activity counters, and the reads of the overview (accounts/overview.ts). */
import { sql, type CompiledQuery } from 'kysely';
import { hourOf, type ActivityCount, type ActivityKind, type ExpiringMember, type OverviewStore } from '../accounts/overview.js';
import type { LoginEvent } from '../members/login-records.js';
import type { MemberStatus } from '../members/member.js';
import { countByStatus } from './member-listing.js';
import { Repository } from './writes.js';

/** How long a count may wait before it is written with the others counted meanwhile. */
const COUNT_WAIT_MS = 1000;

export class OverviewRepository extends Repository implements OverviewStore {
  /** Counts not written yet, by account, hour and kind. */
  private pending = new Map<string, { account_id: number; hour: number; kind: ActivityKind; n: number }>();
  private writing: ReturnType<typeof setTimeout> | undefined;

  /**
   * Counted in memory, and written within a second with every count made meanwhile, by one
   * upsert of each account's hour row: a login or a registration then costs the store no
   * statement of its own, and the hour's row, one per account and kind, is no row every login
   * of the account waits to lock. A server stopped writes what it holds (close); one killed
   * loses its last second of counts, and a chart a little low is all that is lost.
   */
  async count(accountId: number, kind: ActivityKind, at: number): Promise<void> {
    const hour = hourOf(at);
    const key = `${accountId} ${hour} ${kind}`;
    const row = this.pending.get(key);
    if (row) row.n++;
    else this.pending.set(key, { account_id: accountId, hour, kind, n: 1 });
    this.writing ??= setTimeout(() => void this.flush().catch(() => {}), COUNT_WAIT_MS).unref();
  }

  /** Writes the counts held (in one order, so that two servers' upserts never lock crosswise). */
  async flush(): Promise<void> {
    clearTimeout(this.writing);
    this.writing = undefined;
    if (this.pending.size === 0) return;
    const rows = [...this.pending.values()].sort((a, b) => a.account_id - b.account_id || a.hour - b.hour || a.kind.localeCompare(b.kind));
    this.pending = new Map();
    await this.connection.write(
      this.build
        .insertInto('activity_counts')
        .values(rows)
        .onConflict((oc) => oc.columns(['account_id', 'hour', 'kind']).doUpdateSet((eb) => ({ n: sql<number>`${eb.ref('activity_counts.n')} + ${eb.ref('excluded.n')}` }))),
    );
  }

  async activitySince(accountId: number, fromHour: number): Promise<ActivityCount[]> {
    // This server's counts are read with the others.
    await this.flush();
    const rows = await this.reads
      .selectFrom('activity_counts')
      .select(['hour', 'kind', 'n'])
      .where('account_id', '=', accountId)
      .where('hour', '>=', fromHour)
      .execute();
    return rows.map((row) => ({ hour: Number(row.hour), kind: row.kind as ActivityKind, n: Number(row.n) }));
  }

  /**
   * Short reads, not a snapshot (on SQLite a snapshot is a reader thread's, and the page needs
   * none): the counters and their deltas are one statement; the expirations due but not yet
   * written down, read just after, may be off by a member changed in between.
   */
  membersByStatus(accountId: number, now: number): Promise<Record<MemberStatus, number>> {
    const reader = { all: async <R>(query: CompiledQuery<R>) => (await this.reads.executeQuery(query)).rows };
    return countByStatus(this.build, reader, accountId, now) as Promise<Record<MemberStatus, number>>;
  }

  async expiring(accountId: number, from: number, to: number, limit: number, countUpTo: number): Promise<{ count: number; members: ExpiringMember[] }> {
    // Both read the partial index of Active members with a time expiration, by due time.
    const due = this.reads
      .selectFrom('members')
      .where('account_id', '=', accountId)
      .where('status', '=', 'A')
      .where('exp_time_at', 'is not', null)
      .where('exp_time_at', '>=', from)
      .where('exp_time_at', '<', to);
    const [rows, counted] = await Promise.all([
      due.select(['id', 'login', 'email', 'exp_time_at', 'exp_time_mode']).orderBy('exp_time_at').orderBy('id').limit(limit).execute(),
      this.reads
        .selectFrom(due.select('id').limit(countUpTo).as('d'))
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ]);
    return {
      count: Number(counted.n),
      members: rows.map((row) => ({
        id: Number(row.id),
        login: row.login,
        email: row.email,
        expiresAt: Number(row.exp_time_at),
        action: row.exp_time_mode === 'D' ? 'D' : 'S',
      })),
    };
  }

  async failedLogins(accountId: number, limit: number): Promise<LoginEvent[]> {
    const rows = await this.reads
      .selectFrom('login_events')
      .select(['member_id', 'login', 'ip', 'at', 'outcome'])
      .where('account_id', '=', accountId)
      // A literal: the partial index login_events_failed is of `outcome <> 'ok'` (a named statement's generic plan could not use it for a parameter).
      .where('outcome', '<>', sql.lit('ok'))
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ memberId: row.member_id, login: row.login, ip: row.ip, at: Number(row.at), outcome: row.outcome as LoginEvent['outcome'] }));
  }
}
