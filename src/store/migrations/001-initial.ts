import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The first schema, sized for a million members per account: every lookup the API needs
 * (login, e-mail, id order, registration date, paid ids, due expirations, deletions) has an
 * index that starts with the account, and profile fields are rows that can be indexed.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  // SQLite's rowid alias keeps ids increasing and, with AUTOINCREMENT, never reused;
  // PostgreSQL's identity column gives the same from its sequence.
  const id = (table: string) =>
    db.schema
      .createTable(table)
      .addColumn('id', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
        engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
      );

  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await id('accounts')
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('api_key_digest', 'text', (c) => c.notNull())
    .addColumn('ok_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('fail_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('min_password_length', 'integer', (c) => c.notNull().defaultTo(8))
    .addColumn('time_zone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('lockout_threshold', 'integer', (c) => c.notNull().defaultTo(30))
    .addColumn('lockout_step_seconds', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('lockout_max_seconds', 'integer', (c) => c.notNull().defaultTo(900))
    .addColumn('lockout_reset_seconds', 'integer', (c) => c.notNull().defaultTo(43200))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await id('members')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('login', 'text', (c) => c.notNull())
    .addColumn('login_key', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('email_key', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('A', 'S', 'D')`))
    .addColumn('reg_type', 'text', (c) => c.notNull().check(sql`reg_type in ('F', 'P', 'A', 'M')`))
    .addColumn('reg_at', 'bigint', (c) => c.notNull())
    .addColumn('reg_ip', 'text')
    .addColumn('url_ok', 'text')
    .addColumn('url_fail', 'text')
    .addColumn('exp_time_mode', 'text', (c) => c.check(sql`exp_time_mode in ('S', 'D')`))
    .addColumn('exp_time_at', 'bigint')
    .addColumn('exp_logins_mode', 'text', (c) => c.check(sql`exp_logins_mode in ('S', 'D')`))
    .addColumn('exp_logins_left', 'integer')
    .addColumn('login_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_login_at', 'bigint')
    .addColumn('last_login_ip', 'text')
    .addColumn('deleted_at', 'bigint')
    .addColumn('email_verified_at', 'bigint')
    .addColumn('bill_pc', 'text')
    .addColumn('bill_id', 'text')
    .addColumn('bill_item', 'text')
    .addColumn('bill_cust', 'text')
    .addColumn('bill_subscr', 'text')
    .addColumn('bill_qty', 'text')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  const index = (name: string, columns: string[], unique = false) => {
    let builder = db.schema.createIndex(name).on('members').columns(columns);
    if (unique) builder = builder.unique();
    return builder;
  };
  await index('members_login_key', ['account_id', 'login_key'], true).execute();
  await index('members_email_key', ['account_id', 'email_key']).execute();
  await index('members_account_id', ['account_id', 'id']).execute();
  await index('members_status', ['account_id', 'status', 'id']).execute();
  await index('members_reg_at', ['account_id', 'reg_at']).execute();
  await index('members_deleted_at', ['account_id', 'deleted_at']).where('deleted_at', 'is not', null).execute();
  await index('members_bill_id', ['account_id', 'bill_id']).where('bill_id', 'is not', null).execute();
  await index('members_bill_subscr', ['account_id', 'bill_subscr']).where('bill_subscr', 'is not', null).execute();
  // Active members with a time expiration, by due time: per account for the requests that
  // write down what fell due, across accounts for the sweep. Both hold only those members.
  await index('members_exp_time_due', ['account_id', 'exp_time_at']).where(sql.ref('status'), '=', 'A').where('exp_time_at', 'is not', null).execute();
  await index('members_exp_time_due_all', ['exp_time_at']).where(sql.ref('status'), '=', 'A').where('exp_time_at', 'is not', null).execute();

  await db.schema
    .createTable('member_fields')
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    // The value folded for case-insensitive search; null when folding leaves it unchanged.
    .addColumn('value_key', 'text')
    .addPrimaryKeyConstraint('member_fields_pk', ['member_id', 'name'])
    .execute();
  await db.schema.createIndex('member_fields_name').on('member_fields').columns(['account_id', 'name']).execute();

  await db.schema
    .createTable('sessions')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'text')
    .execute();
  await db.schema.createIndex('sessions_member').on('sessions').column('member_id').execute();
  await db.schema.createIndex('sessions_created_at').on('sessions').column('created_at').execute();

  await id('login_events')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('member_id', 'bigint', (c) => c.references('members.id').onDelete('set null'))
    .addColumn('login', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_events_account_at').on('login_events').columns(['account_id', 'at']).execute();
  await db.schema.createIndex('login_events_member').on('login_events').column('member_id').execute();

  await db.schema
    .createTable('login_throttle')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('login_throttle_pk', ['member_id', 'ip'])
    .execute();
  await db.schema.createIndex('login_throttle_last_failure').on('login_throttle').column('last_failure_at').execute();
}
