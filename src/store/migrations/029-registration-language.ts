import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The language of the page a registration awaiting approval was made on, so that the mail of
 * the decision (welcome, or refused) is in it; '' for those queued before.
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('pending_registrations')
    .addColumn('language', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
