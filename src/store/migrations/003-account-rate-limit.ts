import type { Kysely } from 'kysely';

/** An optional request rate per account (requests per minute; 0 = no limit). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('rate_limit_per_minute', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
