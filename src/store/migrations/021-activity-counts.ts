import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The console's overview reads counts, not scans: registrations and logins (ok, failed,
 * locked) per account and hour, each counted as it happens by one upsert; and the failed
 * logins recorded with an address, newest first, from an index that holds only them (a
 * busy account's successful logins do not stand between the page and its last failures).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('activity_counts')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    // The start of the hour (UTC), in milliseconds since the epoch.
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('activity_counts_pk', ['account_id', 'hour', 'kind'])
    .execute();
  await db.schema.createIndex('login_events_failed').on('login_events').columns(['account_id', 'at']).where(sql.ref('outcome'), '<>', 'ok').execute();
}
