import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The member pages' settings: registration (`off`, `open`, `approval`) and its fields, the
 * origins a browser may be sent back to, the pages' look and language, and the profile fields
 * the protection check answers as headers; the sessions a member asked to keep; an account's
 * own layout of the pages; the registrations awaiting approval.
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  const columns: Array<[string, string]> = [
    ['registration', 'off'],
    ['registration_fields', ''],
    ['return_origins', ''],
    ['page_name', ''],
    ['page_logo_url', ''],
    ['page_accent', '#1d4ed8'],
    ['page_language', 'auto'],
    ['check_fields', ''],
    ['cookie_domain', ''],
  ];
  // A session of "keep me signed in": its idle lifetime does not apply, only the absolute one.
  await db.schema
    .alterTable('sessions')
    .addColumn('remember', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Registrations awaiting an operator's decision: the queue, a row taken once by the decision.
  await db.schema
    .createTable('pending_registrations')
    .addColumn('member_id', 'bigint', (c) => c.primaryKey().references('members.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_registrations_account').on('pending_registrations').columns(['account_id', 'created_at']).execute();
  // An account's own layout of its member pages (`account page-template`).
  await db.schema
    .createTable('page_templates')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('page_templates_pk', ['account_id', 'name'])
    .execute();
  for (const [name, fallback] of columns) {
    await db.schema
      .alterTable('accounts')
      .addColumn(name, 'text', (c) => c.notNull().defaultTo(fallback))
      .execute();
  }
}
