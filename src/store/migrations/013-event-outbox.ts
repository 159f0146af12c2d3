import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The event outbox: a change writes its events to `event_outbox`, a table with no index but its
 * key, in the change's own transaction; the sequencer moves them, committed, into `events` with
 * their feed ids, hundreds at a time. Until now a change wrote its event straight into
 * `events` and the sequencer rewrote it there: five index entries written per change, then
 * written again, where one row appended now costs the change (an update of one member on
 * SQLite paid about a fifth more to commit its event; this is a tenth).
 *
 * The events waiting to be numbered move to the outbox, in the order they were written; every
 * event of `events` has its feed id from now on.
 *
 * And, on PostgreSQL, the members' (account, id) index carries the login: an update's events
 * name the member by id and login, and an update of profile fields reads nothing else of the
 * member, so that read is an index-only scan, never a visit to the member's row (a random page
 * of the largest table, where the index's entries are a tenth of the size). SQLite finds a
 * member by id through its row anyway (the rowid): nothing to gain there.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('event_outbox')
    // The order events were written in (SQLite: the rowid, with no counter table to update).
    .addColumn('entry', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
      engine === 'sqlite' ? c.primaryKey() : c.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_email', 'text')
    .addColumn('request_id', 'text')
    .addColumn('member_id', 'bigint')
    .addColumn('member_login', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into event_outbox (account_id, type, at, actor, actor_email, request_id, member_id, member_login, data)
    select account_id, type, at, actor, actor_email, request_id, member_id, member_login, data from events where id is null order by entry`.execute(db);
  await sql`delete from events where id is null`.execute(db);
  await sql`drop index events_unsequenced`.execute(db);
  if (engine === 'postgres') {
    await sql`create index members_account_id_login on members (account_id, id) include (login)`.execute(db);
    await sql`drop index members_account_id`.execute(db);
  }
}
