import type { Kysely } from 'kysely';

/**
 * Request-limit counters kept in the store, so that several servers on one database count
 * together (rate-limiter-flexible's RateLimiterPostgres reads and writes this table; its
 * shape is the library's). SQLite has one server per file and counts in memory; the table is
 * created there too, so that both engines have the same schema.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
  await db.schema.createIndex('rate_limits_expire').on('rate_limits').column('expire').execute();
}
