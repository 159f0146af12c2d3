import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The kept notices (a provider's notice no member matched yet) in the order they came, across
 * accounts: the billing job reads them a window at a time to apply those whose member has
 * appeared since (an operator, an import or `/update/` set its customer or subscription).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.createIndex('billing_events_kept').on('billing_events').column('id').where(sql.ref('state'), '=', 'pending').execute();
}
