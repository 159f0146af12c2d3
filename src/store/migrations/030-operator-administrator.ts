import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The server's administrators among the operators (`operator administrator EMAIL`): owners of
 * every account, who may also create accounts and set an account's page layout in the console.
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('operators')
    .addColumn('administrator', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
