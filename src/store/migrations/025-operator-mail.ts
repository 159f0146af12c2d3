import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Mails to operators go through the members' outbox (queued in the change's transaction, sent
 * by the same sender with its leases and retries): a row names a member or an operator. On
 * SQLite a column's NOT NULL cannot be dropped, so the table is made again with its rows.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    await sql`alter table mail_outbox alter column member_id drop not null`.execute(db);
    await db.schema
      .alterTable('mail_outbox')
      .addColumn('operator_id', 'bigint', (c) => c.references('operators.id').onDelete('cascade'))
      .execute();
    return;
  }
  await sql`create table mail_outbox_new (
    id integer primary key autoincrement,
    account_id bigint not null references accounts (id) on delete cascade,
    member_id bigint references members (id) on delete cascade,
    operator_id bigint references operators (id) on delete cascade,
    kind text not null,
    vars text not null,
    created_at bigint not null,
    due_at bigint not null,
    attempts integer default 0 not null,
    lease_until bigint default 0 not null,
    sent_at bigint,
    failed_at bigint,
    last_error text
  )`.execute(db);
  await sql`insert into mail_outbox_new (id, account_id, member_id, kind, vars, created_at, due_at, attempts, lease_until, sent_at, failed_at, last_error)
    select id, account_id, member_id, kind, vars, created_at, due_at, attempts, lease_until, sent_at, failed_at, last_error from mail_outbox`.execute(db);
  await sql`drop table mail_outbox`.execute(db);
  await sql`alter table mail_outbox_new rename to mail_outbox`.execute(db);
  await sql`create index mail_outbox_due on mail_outbox (due_at) where sent_at is null and failed_at is null`.execute(db);
}
