/** The console's overview: the activity counters, and the reads of the overview (accounts/overview.ts). */
import { sql, type CompiledQuery } from 'kysely';
import { hourOf, type ActivityCount, type ActivityKind, type ExpiringMember, type OverviewStore } from '../accounts/overview.js';
import type { LoginEvent } from '../members/login-records.js';
import type { MemberStatus } from '../members/member.js';
import { countByStatus } from './member-listing.js';
import { Repository } from './writes.js';

export class OverviewRepository extends Repository implements OverviewStore {
  /**
   * One upsert of the hour's row. Registrations and logins each hash a password first, so
   * they come at hundreds a second per core, not at a rate where one row per account and hour
   * makes them queue.
   */
  async count(accountId: number, kind: ActivityKind, at: number): Promise<void> {
    await this.connection.write(
      this.build
        .insertInto('activity_counts')
        .values({ account_id: accountId, hour: hourOf(at), kind, n: 1 })
        .onConflict((oc) => oc.columns(['account_id', 'hour', 'kind']).doUpdateSet((eb) => ({ n: sql<number>`${eb.ref('activity_counts.n')} + 1` }))),
    );
  }

  async activitySince(accountId: number, fromHour: number): Promise<ActivityCount[]> {
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
      .where('outcome', '<>', 'ok')
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ memberId: row.member_id, login: row.login, ip: row.ip, at: Number(row.at), outcome: row.outcome as LoginEvent['outcome'] }));
  }
}
