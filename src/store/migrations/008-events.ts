import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Events (the audit trail and the change feed), written in the transaction of the change they
 * tell (a transactional outbox):
 * - `events`: one row per event. `entry` is its place in the table (taken when it is written,
 *   in no particular order across transactions); `id` is its id in the account's feed, given
 *   after its transaction committed by the sequencer (store/event-repository.ts), in the order
 *   the sequencer finds committed events: null until then. The event's JSON parts are columns,
 *   its `data` JSON text.
 * - `event_counters`: each account's last feed id, moved only by the sequencer.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('event_counters')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('last_id', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('events')
    .addColumn('entry', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
      engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('id', 'bigint')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_email', 'text')
    .addColumn('request_id', 'text')
    .addColumn('member_id', 'bigint')
    .addColumn('member_login', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  // The feed: an account's events by id.
  await db.schema.createIndex('events_feed').on('events').columns(['account_id', 'id']).unique().execute();
  // The sequencer's work: events not given a feed id yet.
  await sql`create index events_unsequenced on events (entry) where id is null`.execute(db);
  // The retention sweep deletes by age.
  await db.schema.createIndex('events_at').on('events').column('at').execute();
}
