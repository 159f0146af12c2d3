import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * PostgreSQL: the trigram indexes of logins and addresses move from `members` to a table of
 * their own, `member_search`, kept in step by triggers, as SQLite's FTS table already is.
 *
 * Why: a change of status, of an expiration or of any indexed column makes a new version of
 * the member's row, and every index of `members` gets an entry for it. The two trigram GIN
 * indexes were the dearest of those entries (about 40% of a bulk suspend's update, measured at
 * a million members), for a change that touches neither the login nor the address. Now only a
 * change of one of those two writes the search table; an insert or a delete of members writes
 * it once per statement (from the statement's transition table).
 *
 * SQLite: nothing (its `members_fts` already lives beside `members`).
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  for (const statement of [
    // Writers wait until the migration commits (readers do not): a member written between the
    // copy below and the triggers would be missing from the search for good.
    sql`lock table members in share row exclusive mode`,
    // Keyed by the member alone, as `members` is: with no statistics yet (a new store, a large
    // import just made), a key led by the account tempted the planner into reading the
    // account's whole search table once per member. A member never changes account: the
    // account is copied once, at the insert.
    sql`create table member_search (
      member_id bigint primary key,
      account_id bigint not null,
      login_key text not null,
      email_key text not null
    )`,
    sql`insert into member_search (member_id, account_id, login_key, email_key) select id, account_id, login_key, email_key from members`,
    sql`create index member_search_login_trgm on member_search using gin (login_key gin_trgm_ops)`,
    sql`create index member_search_email_trgm on member_search using gin (email_key gin_trgm_ops)`,
    sql`create function member_search_inserted() returns trigger language plpgsql as $$ begin
      insert into member_search (member_id, account_id, login_key, email_key) select id, account_id, login_key, email_key from new_rows;
      return null;
    end $$`,
    sql`create function member_search_deleted() returns trigger language plpgsql as $$ begin
      delete from member_search where member_id in (select id from old_rows);
      return null;
    end $$`,
    sql`create function member_search_updated() returns trigger language plpgsql as $$ begin
      update member_search set login_key = new.login_key, email_key = new.email_key where account_id = new.account_id and member_id = new.id;
      return null;
    end $$`,
    sql`create trigger member_search_insert after insert on members referencing new table as new_rows
      for each statement execute function member_search_inserted()`,
    sql`create trigger member_search_delete after delete on members referencing old table as old_rows
      for each statement execute function member_search_deleted()`,
    // Per row, and only for an update that names one of the two columns (a status change does
    // not, and fires nothing): a trigger with transition tables cannot name columns.
    sql`create trigger member_search_update after update of login_key, email_key on members for each row
      when (old.login_key is distinct from new.login_key or old.email_key is distinct from new.email_key)
      execute function member_search_updated()`,
    // Statistics now: until autovacuum gathers them, the planner would take the new table for
    // a few rows and join a common search's thousands of matches row by row.
    sql`analyze member_search`,
    sql`drop index members_login_trgm`,
    sql`drop index members_email_trgm`,
  ]) {
    await statement.execute(db);
  }
}
