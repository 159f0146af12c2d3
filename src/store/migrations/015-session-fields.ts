import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The `record` fields a /session/ check may read with the session id alone
 * (`account set NAME --session-fields …`), comma-separated. Accounts that were there get the
 * default: the member's dates and kind of registration, no billing reference and no profile
 * field (a check that sends a key reads any field).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('session_fields', 'text', (c) => c.notNull().defaultTo('reg_type,reg_date,reg_time,exp_date,exp_time,last_login_date,last_login_time'))
    .execute();
}
