import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * PostgreSQL: the B-tree indexes of the folded logins (unique per account) and addresses move
 * from `members` to `member_search`, beside the trigram indexes migration 023 moved there.
 *
 * Why: a change PostgreSQL cannot make in place (a status, an expiration) writes a new version
 * of the member's row and an entry for it in every index of `members`. The two indexes keyed
 * by text in no order of the rows were the dearest of those entries: 45% of a bulk suspend's
 * update (10,000 members: 240 ms with them, 130 ms without, measured at a million members).
 * `member_search` is written only when a login or an address changes (migration 023's
 * triggers); a login taken twice in an account fails at its unique index, in the statement
 * that writes the member, as the same unique violation (23505).
 *
 * Lookups and orders by login or address go through `member_search` on PostgreSQL
 * (SearchSql.memberIs, SearchSql.keyTable). SQLite: nothing; an update there writes only the
 * index entries of the columns it changes.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const statement of [
    // Writers wait until the migration commits: a login written twice meanwhile would find
    // neither index.
    sql`lock table members in share row exclusive mode`,
    sql`create unique index member_search_login_key on member_search (account_id, login_key)`,
    sql`create index member_search_email_key on member_search (account_id, email_key)`,
    sql`analyze member_search`,
    // Last: dropping an index locks `members` against reads too, until the migration commits.
    sql`drop index members_login_key`,
    sql`drop index members_email_key`,
  ]) {
    await statement.execute(db);
  }
}
