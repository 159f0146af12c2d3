import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Members per account and status, kept by triggers in the same transactions as the members
 * themselves, so that /list/'s `members_total` for a list filtered by status alone (the
 * default list, `status=A`…) reads a few rows instead of counting a million.
 *
 * The count of (account, status) is its `member_counts` row plus its `member_count_deltas`.
 * SQLite has one writer: its triggers update the counters in place. PostgreSQL has many: a
 * counter row updated by every create would make concurrent transactions queue (and, with
 * status changes both ways, deadlock) on it, so its triggers only append deltas, which the
 * sweep folds into the counters (one row per statement and status, from the transition
 * tables).
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('member_counts')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('member_counts_pk', ['account_id', 'status'])
    .execute();
  await db.schema
    .createTable('member_count_deltas')
    // SQLite's rowid is an integer (64-bit); PostgreSQL's integer is not.
    .addColumn('id', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
      engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('member_count_deltas_account').on('member_count_deltas').columns(['account_id', 'status']).execute();
  await sql`insert into member_counts (account_id, status, n) select account_id, status, count(*) from members group by account_id, status`.execute(db);

  if (engine === 'sqlite') {
    const bump = (account: string, status: string, delta: number) =>
      `insert into member_counts (account_id, status, n) values (${account}, ${status}, ${delta})
         on conflict (account_id, status) do update set n = n + excluded.n;`;
    for (const statement of [
      `create trigger member_counts_insert after insert on members begin ${bump('new.account_id', 'new.status', 1)} end`,
      `create trigger member_counts_delete after delete on members begin ${bump('old.account_id', 'old.status', -1)} end`,
      `create trigger member_counts_update after update of status on members when old.status is not new.status begin
         ${bump('old.account_id', 'old.status', -1)}
         ${bump('new.account_id', 'new.status', 1)}
       end`,
    ]) {
      await sql.raw(statement).execute(db);
    }
    return;
  }

  for (const statement of [
    `create function member_counts_inserted() returns trigger language plpgsql as $$ begin
       insert into member_count_deltas (account_id, status, n) select account_id, status, count(*) from new_rows group by account_id, status;
       return null;
     end $$`,
    `create function member_counts_deleted() returns trigger language plpgsql as $$ begin
       insert into member_count_deltas (account_id, status, n) select account_id, status, -count(*) from old_rows group by account_id, status;
       return null;
     end $$`,
    `create function member_counts_updated() returns trigger language plpgsql as $$ begin
       insert into member_count_deltas (account_id, status, n)
         select account_id, status, sum(n) from (
           select account_id, status, 1 as n from new_rows
           union all
           select account_id, status, -1 from old_rows
         ) changes group by account_id, status having sum(n) <> 0;
       return null;
     end $$`,
    `create trigger member_counts_insert after insert on members referencing new table as new_rows
       for each statement execute function member_counts_inserted()`,
    `create trigger member_counts_delete after delete on members referencing old table as old_rows
       for each statement execute function member_counts_deleted()`,
    // For every update statement (a trigger with transition tables cannot name columns); an
    // update that changes no status adds nothing, and an update of every member adds a row
    // per status, not per member.
    `create trigger member_counts_update after update on members referencing old table as old_rows new table as new_rows
       for each statement execute function member_counts_updated()`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}
