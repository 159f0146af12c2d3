import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The member pages' settings: registration (`off`, `open`, `approval`) and its fields, the
 * origins a browser may be sent back to, the pages' look and language, and the profile fields
 * the protection check answers as headers; and the sessions a member asked to keep.
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
  ];
  // A session of "keep me signed in": its idle lifetime does not apply, only the absolute one.
  await db.schema
    .alterTable('sessions')
    .addColumn('remember', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const [name, fallback] of columns) {
    await db.schema
      .alterTable('accounts')
      .addColumn(name, 'text', (c) => c.notNull().defaultTo(fallback))
      .execute();
  }
}
