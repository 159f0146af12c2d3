import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Paid memberships (docs/paid-memberships.md):
 * - `billing_settings`: an account's connection to its payment providers (the secrets, kept
 *   only here, never shown again) and what a refund does;
 * - `billing_plans`: what a payment for a price or item grants: a grace after the paid period,
 *   and profile fields while it lasts;
 * - `billing_events`: every notification a provider sent, once (`(account, provider, event)`
 *   unique, written in the transaction of its effect), with what it was about, so that a
 *   payment is listed, a refund or a dispute finds its member, and one that matched no member
 *   yet is kept (`pending`) and applied when the match appears;
 * - `billing_checkouts`: a visitor's chosen plan and credentials, until the provider says it
 *   was paid (its id is the checkout's `client_reference_id`);
 * - `member_billing`: a paid member's state beyond the seed's `bill_*` columns: the paid-until
 *   instant, the provider's subscription status and the time of the event that set it (an
 *   older event never overrides a newer one), a cancellation at the period's end, a dispute.
 * Members are found by their customer id (an index beside migration 001's of the subscription id).
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  const id = engine === 'sqlite' ? 'integer' : 'bigint';
  const key = (c: any) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());
  await db.schema
    .createTable('billing_settings')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('stripe_secret_key', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('stripe_webhook_secret', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('paypal_receiver', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('on_refund', 'text', (c) => c.notNull().defaultTo('suspend'))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('billing_plans')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('stripe_price', 'text')
    .addColumn('paypal_item', 'text')
    .addColumn('amount', 'text')
    .addColumn('currency', 'text')
    .addColumn('grace_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fields', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_plans_pk', ['account_id', 'name'])
    .execute();
  await db.schema
    .createTable('billing_events')
    .addColumn('id', id, key)
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('member_id', 'bigint')
    .addColumn('customer', 'text')
    .addColumn('subscription', 'text')
    .addColumn('payment', 'text')
    .addColumn('charge', 'text')
    .addColumn('amount', 'bigint')
    .addColumn('currency', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('notice', 'text', (c) => c.notNull())
    .addColumn('received_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('billing_events_once').on('billing_events').columns(['account_id', 'provider', 'event_id']).unique().execute();
  await db.schema.createIndex('billing_events_member').on('billing_events').columns(['account_id', 'member_id', 'id']).execute();
  await db.schema.createIndex('billing_events_charge').on('billing_events').columns(['account_id', 'charge']).execute();
  await db.schema.createIndex('billing_events_pending').on('billing_events').columns(['account_id', 'state', 'customer']).execute();
  await db.schema.createIndex('billing_events_pending_subscription').on('billing_events').columns(['account_id', 'state', 'subscription']).execute();
  await db.schema
    .createTable('billing_checkouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('member_id', 'bigint')
    .addColumn('login', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('language', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('session_id', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('signed_in_at', 'bigint')
    .execute();
  await db.schema
    .createTable('member_billing')
    .addColumn('member_id', 'bigint', (c) => c.primaryKey().references('members.id').onDelete('cascade'))
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('paid_until', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disputed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('period', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('period_from', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('members_bill_cust').on('members').columns(['account_id', 'bill_cust']).where('bill_cust', 'is not', null).execute();
}
