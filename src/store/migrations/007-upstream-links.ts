import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The move from an upstream service (an instance of this API elsewhere, the hosted original):
 * - an account's link to its upstream (where, with which credentials, what it does), with
 *   the figures of its migration (the sync in progress and the last one, passwords captured,
 *   upstream errors);
 * - the writes mirrored to the upstream, queued as rows (retried until the upstream takes
 *   them, in order per account);
 * - an index of the members whose password is still at the upstream, so that counting those
 *   still waiting does not read every member.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const id = engine === 'sqlite' ? 'integer' : 'bigint';
  await db.schema
    .createTable('upstream_links')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('upstream_user', 'text', (c) => c.notNull())
    .addColumn('upstream_key', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('capture_unknown', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('mirror_writes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('linked_at', 'bigint', (c) => c.notNull())
    .addColumn('sync_started_at', 'bigint')
    .addColumn('sync_cursor', 'bigint')
    .addColumn('last_sync_at', 'bigint')
    .addColumn('migrated', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('captured', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('upstream_errors', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .execute();
  await db.schema
    .createTable('upstream_mirror')
    .addColumn('id', id, (c) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('endpoint', 'text', (c) => c.notNull().check(sql`endpoint in ('create', 'update')`))
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute();
  await db.schema.createIndex('upstream_mirror_account').on('upstream_mirror').columns(['account_id', 'id']).execute();
  await sql`create index members_password_at_upstream on members (account_id) where password_hash = '!upstream'`.execute(db);
}
