import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * PostgreSQL: the folded logins and addresses of `member_search` in byte order (`collate "C"`),
 * for the console's "begins with" search (SearchSql.idsStartingWith): a prefix is then one
 * range of the index, whatever the database's collation, and the first few in order are read
 * without reading the rest. `member_search` is written only when a login or an address
 * changes (migration 023), so a status or expiration change pays nothing for them.
 *
 * SQLite: nothing; its indexes of `login_key` and `email_key` already compare bytes.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`create index member_search_login_prefix on member_search (account_id, (login_key collate "C"))`.execute(db);
  await sql`create index member_search_email_prefix on member_search (account_id, (email_key collate "C"))`.execute(db);
}
