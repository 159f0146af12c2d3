import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * A webhook receiver's optional name (`webhook add --name crm`), unique within its account, so
 * that an operator can tell an account's receivers apart and name one where an id is taken.
 * Receivers that were there have none (both engines let a unique index hold many NULLs).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('name', 'text').execute();
  await db.schema.createIndex('webhook_endpoints_name').on('webhook_endpoints').columns(['account_id', 'name']).unique().execute();
}
