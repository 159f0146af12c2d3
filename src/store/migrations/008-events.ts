import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Events (the audit trail and the change feed), written in the transaction of the change they
 * tell (a transactional outbox):
 * - `events`: one row per event, keyed by account and an id that only grows within the
 *   account, the event's JSON parts in columns and its `data` as JSON text;
 * - `event_counters`: each account's last event id. A transaction takes its ids by updating
 *   this row as its last statement, so it holds the row's lock only for its commit, and ids
 *   become visible in the order they were taken (no later id is ever seen before an earlier
 *   one, on any engine, with any number of servers), with no gaps (a rollback gives its ids
 *   back).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('event_counters')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('last_id', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('events')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_email', 'text')
    .addColumn('request_id', 'text')
    .addColumn('member_id', 'bigint')
    .addColumn('member_login', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('events_pk', ['account_id', 'id'])
    .execute();
  // The retention sweep deletes by age.
  await db.schema.createIndex('events_at').on('events').column('at').execute();
}
