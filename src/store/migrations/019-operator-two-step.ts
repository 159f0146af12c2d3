import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Operators' second factor: a TOTP secret (and the one being enrolled), the last time step a
 * code was taken at (a code works once), recovery codes as digests, a session that waits for
 * its second step, and an account's rule that its operators must have one.
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('operators').addColumn('totp_secret', 'text').execute();
  await db.schema.alterTable('operators').addColumn('totp_pending', 'text').execute();
  await db.schema
    .alterTable('operators')
    .addColumn('totp_step', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('operator_recovery_codes')
    .addColumn('operator_id', 'bigint', (c) => c.notNull().references('operators.id').onDelete('cascade'))
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addPrimaryKeyConstraint('operator_recovery_codes_pk', ['operator_id', 'digest'])
    .execute();
  // 1 while the session waits for its second step: it opens no page but that step's.
  await db.schema
    .alterTable('operator_sessions')
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('operators_two_step', 'text', (c) => c.notNull().defaultTo('optional'))
    .execute();
}
