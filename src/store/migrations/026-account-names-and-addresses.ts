import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * What code written against the hosted original needs: account names that keep their owner's
 * capitals (`Toonklasse`) and are compared case-insensitively everywhere, unique whatever the
 * case (`name_key`, the name folded, filled from the names so far, which were lower case); and
 * an account's choice whether /create/ needs an e-mail address (`require_email`, off as the
 * original); and the origins of other sites whose pasted forms reached the account's pages
 * (`form_origins`: the console offers to allow them).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('name_key', 'text').execute();
  await sql`update accounts set name_key = lower(name)`.execute(db);
  await db.schema.createIndex('accounts_name_folded').on('accounts').column('name_key').unique().execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('require_email', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('form_origins')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('posts', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('form_origins_pk', ['account_id', 'origin'])
    .execute();
}
