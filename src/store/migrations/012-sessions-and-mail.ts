import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Sessions that can be checked, password resets and e-mail (the sessions issue).
 * - `sessions.seen_at`: when the session was last checked (moved at most once a minute), for
 *   the idle lifetime; null until the first check (the creation time counts then).
 * - Account settings: the sessions' idle and absolute lifetimes, the reset links' lifetime,
 *   and the account's mail server and sender (empty: no mail is sent).
 * - `reset_links`: single-use password reset links, kept as SHA-256 digests.
 * - `mail_templates`: an account's own texts for its mails (the built-in ones otherwise).
 * - `mail_outbox`: mails queued in the change's own transaction, sent after the commit by
 *   whichever server leases them first, retried with backoff. A mail is rendered when it is
 *   sent (the member's address and the template then); `vars` holds what only the change
 *   knew (a reset link), and is cleared once sent.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const id = engine === 'sqlite' ? 'integer' : 'bigint';
  const key = (c: any) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());
  await db.schema.alterTable('sessions').addColumn('seen_at', 'bigint').execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('session_idle_seconds', 'bigint', (c) => c.notNull().defaultTo(2 * 3600))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('session_lifetime_seconds', 'bigint', (c) => c.notNull().defaultTo(30 * 86400))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('reset_lifetime_seconds', 'bigint', (c) => c.notNull().defaultTo(3600))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('smtp_url', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('mail_from', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('reset_links')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('reset_links_member').on('reset_links').column('member_id').execute();
  await db.schema.createIndex('reset_links_expires_at').on('reset_links').column('expires_at').execute();
  await db.schema
    .createTable('mail_templates')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('mail_templates_pk', ['account_id', 'kind'])
    .execute();
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', id, key)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('member_id', 'bigint', (c) => c.notNull().references('members.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('vars', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('due_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sent_at', 'bigint')
    .addColumn('failed_at', 'bigint')
    .addColumn('last_error', 'text')
    .execute();
  // The sender's look-up: mails still to send, by due time.
  await db.schema
    .createIndex('mail_outbox_due')
    .on('mail_outbox')
    .column('due_at')
    .where(sql.ref('sent_at'), 'is', null)
    .where(sql.ref('failed_at'), 'is', null)
    .execute();
}
