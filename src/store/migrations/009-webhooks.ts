import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Webhooks (Standard Webhooks deliveries of the events of migration 008):
 * - `webhook_endpoints`: an account's receivers, with their signing secret, the event types
 *   they take, and `cursor`, the last event id turned into deliveries for them (the fan-out
 *   reads the account's events after it, in id order, as the change feed does);
 * - `webhook_deliveries`: one row per event and endpoint, retried until delivered or given
 *   up, leased by one server at a time (rows, not timers: they survive restarts);
 * - `webhook_attempts`: every attempt, with its outcome.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const id = engine === 'sqlite' ? 'integer' : 'bigint';
  const key = (c: any) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', id, key)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('types', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('cursor', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('disabled_reason', 'text')
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('webhook_endpoints_account').on('webhook_endpoints').column('account_id').execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', id, key)
    .addColumn('endpoint_id', 'bigint', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('event_id', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  // The next deliveries of an endpoint, in event order.
  await db.schema.createIndex('webhook_deliveries_pending').on('webhook_deliveries').columns(['endpoint_id', 'state', 'event_id']).execute();
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', id, key)
    .addColumn('delivery_id', 'bigint', (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_delivery').on('webhook_attempts').column('delivery_id').execute();
}
