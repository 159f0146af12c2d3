/**
 * PostgreSQL keeps room on each page of `members` (migration 033), so that a login's update
 * of a member, which changes no indexed column, writes its new version on the same page and
 * no index entry (a HOT update), even on a page filled before by inserts.
 */
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember } from '../support/factories.js';
import { poke } from '../support/peek.js';

describeEachEngine('a login on a full page of members', (context) => {
  it('updates the member without a new index entry (PostgreSQL)', async ({ skip }) => {
    const { store, database } = context();
    if (database.engine !== 'postgres') skip();
    const account = await insertAccount(store);
    // Enough members that the first one's page was filled by the later ones.
    const first = await insertMember(store, account.id, { login: 'first', email: 'first@example.com' });
    for (let i = 0; i < 80; i++) await insertMember(store, account.id, { login: `member${i}`, email: `member${i}@example.com` });
    let hot: number | undefined;
    await poke(database, (db) =>
      db.transaction().execute(async (trx) => {
        const pages = await sql<{ pages: number }>`select count(distinct (ctid::text::point)[0]) as pages from members where account_id = ${account.id}`.execute(trx);
        expect(Number(pages.rows[0]!.pages)).toBeGreaterThan(1);
        // The columns a login changes (login-records-repository.ts: loginUpdate).
        await sql`update members set login_count = login_count + 1, last_login_at = 1, last_login_ip = '192.0.2.1', updated_at = 1 where id = ${first}`.execute(trx);
        hot = Number((await sql<{ hot: string }>`select pg_stat_get_xact_tuples_hot_updated('members'::regclass) as hot`.execute(trx)).rows[0]!.hot);
      }),
    );
    expect(hot).toBe(1);
  });
});
