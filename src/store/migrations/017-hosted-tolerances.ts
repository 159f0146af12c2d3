import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * What an account takes from code written against the hosted original: GET on the calls that
 * change or check a member (`get_writes`, on as the original does), the original's FAIL text
 * (`messages`: `short`, ours, or `original`), and whether common passwords are refused
 * (`password_check`: `common` or `off`).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('get_writes', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('messages', 'text', (c) => c.notNull().defaultTo('short'))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('password_check', 'text', (c) => c.notNull().defaultTo('common'))
    .execute();
}
