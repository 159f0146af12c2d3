import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The operator's console: operators (people, by e-mail), the accounts each may see with a
 * role, one-time links that set a password (kept as digests), and sign-in sessions (kept as
 * digests, shared by every server on the store). And the index of a member's events (its page
 * shows its history).
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const id = engine === 'sqlite' ? 'integer' : 'bigint';
  const key = (c: any) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());
  await db.schema
    .createTable('operators')
    .addColumn('id', id, key)
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('operator_accounts')
    .addColumn('operator_id', 'bigint', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('operator_accounts_pk', ['operator_id', 'account_id'])
    .execute();
  await db.schema
    .createTable('operator_links')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('operator_id', 'bigint', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('operator_sessions')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('operator_id', 'bigint', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('operator_sessions_operator').on('operator_sessions').column('operator_id').execute();
  // A member's history on its page: its events, newest first, without reading the account's.
  await db.schema.createIndex('events_member').on('events').columns(['account_id', 'member_id', 'entry']).where('member_id', 'is not', null).execute();
}
