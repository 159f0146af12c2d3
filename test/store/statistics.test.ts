/**
 * The sweep keeps the planner's statistics current as the members grow, where the engine does
 * not on its own (PostgreSQL with autovacuum off or behind, as on the CI machine): without
 * them a substring search read a whole account's index of logins.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember } from '../support/factories.js';
import { peek } from '../support/peek.js';

describeEachEngine('the planner statistics', (context) => {
  /** The tables of members the engine holds statistics for. */
  async function tablesWithStatistics(): Promise<string[]> {
    const { database } = context();
    const rows = await peek(database, async (db) =>
      database.engine === 'postgres'
        ? (
            await sql<{ name: string }>`select relname as name from pg_stat_user_tables
              where relname in ('members', 'member_search', 'member_fields') and last_analyze is not null order by relname`.execute(db)
          ).rows
        : (await sql<{ name: string }>`select distinct tbl as name from sqlite_stat1 where tbl = 'members' order by tbl`.execute(db)).rows,
    );
    return rows.map((row) => row.name);
  }

  it('are gathered once the members have grown', { timeout: 30_000 }, async () => {
    const { store, database } = context();
    const account = await insertAccount(store);
    for (let i = 0; i < 400; i++) await insertMember(store, account.id, { login: `member${i}`, email: `member${i}@example.com` });
    const expected = database.engine === 'postgres' ? ['member_search', 'members'] : ['members'];
    // As the sweep does, run after run: PostgreSQL's counts of changed rows reach
    // pg_stat_user_tables only when each writing connection flushes them (up to 10 s when idle).
    await expect
      .poll(
        async () => {
          await store.housekeeping.refreshStatistics();
          return tablesWithStatistics();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toEqual(expected);
  });
});
