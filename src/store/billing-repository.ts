/**
 * Billing in SQL: the accounts' connections and plans, checkouts, and the one transaction that
 * applies a provider's notice once: its record, the member it finds or makes, the effect
 * (billing/billing.ts: effectOf) through the members' own update, the member's billing state,
 * and the events. On PostgreSQL, notices of one customer are applied one after the other (a
 * transaction-scoped advisory lock on it), so that two that arrive at once end as in order.
 */
import { sql, type ExpressionBuilder, type RawBuilder, type Transaction } from 'kysely';
import type { Applied, BillingRecord, BillingStore, Checkout } from '../billing/billing-store.js';
import {
  effectOf,
  makesMember,
  NO_MEMBER_BILLING,
  paidMember,
  type BilledMember,
  type BillingNotice,
  type BillingSettings,
  type MemberBilling,
  type Plan,
  type ProviderName,
  type RefundRule,
} from '../billing/billing.js';
import type { EventOrigin, NewEvent } from '../events/event.js';
import type { NewMember } from '../members/member.js';
import type { MemberChanges } from '../members/member-store.js';
import { appendEvents, outboxInsertFrom } from './event-repository.js';
import { billingEvent } from '../events/member-events.js';
import { writerProcedure, type SearchSql, type WriterConnection } from './dialects/dialect.js';
import { insertMemberIn } from './member-repository.js';
import { toMember } from './member-rows.js';
import { profileObjectOf, readyToUpdateOne, selectorCondition, updateOneIn, withWrites, type MemberWrite } from './member-updates.js';
import type { BillingPlanTable, Database, MemberBillingTable } from './schema.js';
import { Repository } from './writes.js';

/** The providers' names of a dispute's close (PayPal's IPN of it has no txn_type: its status, lower-cased). */
const DISPUTE_CLOSINGS = ['charge.dispute.closed', 'charge.dispute.funds_reinstated', 'canceled_reversal'];

/** PostgreSQL's advisory lock space of billing (two 32-bit keys; member-updates.ts has its own). */
const BILLING_NOTICES = 7_245_020;

/** A 32-bit key of a text (FNV-1a), for an advisory lock. */
function keyOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}

function planOf(row: BillingPlanTable): Plan {
  return {
    name: row.name,
    title: row.title || row.name,
    stripePrice: row.stripe_price,
    paypalItem: row.paypal_item,
    amount: row.amount,
    currency: row.currency,
    graceSeconds: Number(row.grace_seconds),
    fields: new Map(Object.entries(JSON.parse(row.fields) as Record<string, string>)),
    createdAt: Number(row.created_at),
  };
}

/** The plan a notice's price or item names, for its provider. */
function planForItem(plans: readonly Plan[], provider: ProviderName, item: string | null | undefined): Plan | undefined {
  if (!item) return undefined;
  return plans.find((plan) => (provider === 'stripe' ? plan.stripePrice : plan.paypalItem) === item);
}

type Trx = Transaction<Database>;

/**
 * The member a notice is about, in the order of certainty: our checkout (one the notice proves
 * it paid for: see ownCheckout), the subscription, the customer, the charge, the payer's address.
 * A visitor's checkout is never matched otherwise: its member is the one it makes.
 */
async function findMemberId(
  trx: Trx,
  search: SearchSql,
  accountId: number,
  notice: BillingNotice,
  checkout: { member_id: number | null; login: string } | undefined,
): Promise<number | undefined> {
  if (checkout?.member_id) return Number(checkout.member_id);
  if (checkout && checkout.login !== '') return undefined;
  const byColumn = async (column: 'bill_subscr' | 'bill_cust', value: string | undefined) => {
    if (!value) return undefined;
    const row = await trx.selectFrom('members').select('id').where('account_id', '=', accountId).where(column, '=', value).orderBy('id').limit(1).executeTakeFirst();
    return row?.id;
  };
  const found = (await byColumn('bill_subscr', notice.subscription)) ?? (await byColumn('bill_cust', notice.customer));
  if (found !== undefined) return Number(found);
  if (notice.charge) {
    const row = await trx
      .selectFrom('billing_events')
      .select('member_id')
      .where('account_id', '=', accountId)
      .where('charge', '=', notice.charge)
      .where('member_id', 'is not', null)
      .limit(1)
      .executeTakeFirst();
    if (row?.member_id) return Number(row.member_id);
  }
  if (makesMember(notice)) {
    const rows = await trx
      .selectFrom('members')
      .select('id')
      .where(selectorCondition(accountId, { by: 'email', email: notice.email! }, search))
      .where('status', '!=', 'D')
      .limit(2)
      .execute();
    // An address several members share names none of them.
    if (rows.length === 1) return Number(rows[0]!.id);
  }
  return undefined;
}

/**
 * Our checkout a notice names, if the notice proves it paid for it: a Stripe checkout session
 * whose id is the one we made for it. A `client_reference_id` alone is not enough: anyone can
 * put one on a payment link of the same Stripe account, and the checkout signs its member in.
 */
async function ownCheckout(trx: Trx, accountId: number, notice: BillingNotice) {
  if (!notice.checkout || !notice.session) return undefined;
  const checkout = await trx.selectFrom('billing_checkouts').selectAll().where('id', '=', notice.checkout).where('account_id', '=', accountId).executeTakeFirst();
  return checkout && checkout.session_id === notice.session ? checkout : undefined;
}

/** A login no member holds: the one asked for, else it with -2, -3… (taken between the checkout and its payment). */
async function freeLogin(trx: Trx, search: SearchSql, accountId: number, login: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? login : `${login}-${n}`;
    const taken = await trx.selectFrom('members').select('id').where(selectorCondition(accountId, { by: 'login', login: candidate }, search)).limit(1).executeTakeFirst();
    if (!taken) return candidate;
  }
}

async function memberBillingIn(db: Pick<Trx, 'selectFrom'>, accountId: number, memberId: number): Promise<MemberBilling | undefined> {
  const row = await db.selectFrom('member_billing').selectAll().where('account_id', '=', accountId).where('member_id', '=', memberId).executeTakeFirst();
  return row && billingOf(row);
}

function billingOf(row: Pick<MemberBillingTable, 'plan' | 'paid_until' | 'status' | 'status_at' | 'cancel_at_period_end' | 'disputed' | 'period' | 'period_from'>): MemberBilling {
  return {
    plan: row.plan,
    paidUntil: row.paid_until === null ? null : Number(row.paid_until),
    status: row.status,
    statusAt: Number(row.status_at),
    cancelAtPeriodEnd: Number(row.cancel_at_period_end) === 1,
    disputed: Number(row.disputed) === 1,
    period: row.period,
    periodFrom: row.period_from === null ? null : Number(row.period_from),
  };
}

/**
 * The member as a notice's effect needs it, in one statement: its row, its billing state, and
 * the values it holds of the profile fields the plans set (a renewal writes only those that differ).
 */
async function billedMemberIn(trx: Trx, search: SearchSql, memberId: number, plans: readonly Plan[]) {
  const names = [...new Set(plans.flatMap((plan) => [...plan.fields.keys()]))];
  const row = await trx
    .selectFrom('members')
    .leftJoin('member_billing as b', 'b.member_id', 'members.id')
    .selectAll('members')
    .select([
      'b.member_id as b_member_id',
      'b.plan as b_plan',
      'b.paid_until as b_paid_until',
      'b.status as b_status',
      'b.status_at as b_status_at',
      'b.cancel_at_period_end as b_cancel_at_period_end',
      'b.disputed as b_disputed',
      'b.period as b_period',
      'b.period_from as b_period_from',
    ])
    .select((names.length > 0 ? search.profileObject(names, 'members.id') : sql`null`).as('touched'))
    .where('members.id', '=', memberId)
    .executeTakeFirst();
  if (!row) return undefined;
  const billing =
    row.b_member_id === null
      ? NO_MEMBER_BILLING
      : billingOf({
          plan: row.b_plan!,
          paid_until: row.b_paid_until,
          status: row.b_status!,
          status_at: row.b_status_at!,
          cancel_at_period_end: row.b_cancel_at_period_end!,
          disputed: row.b_disputed!,
          period: row.b_period!,
          period_from: row.b_period_from,
        });
  return { member: toMember(row), billing, fields: profileObjectOf(row.touched) ?? new Map<string, string>() };
}

/** The notice's record: what it was about, and what it came to. */
function recordOf(accountId: number, notice: BillingNotice, state: string, memberId: number | null, outcome: string, now: number) {
  return {
    account_id: accountId,
    provider: notice.provider,
    event_id: notice.id,
    type: notice.type,
    state,
    member_id: memberId,
    customer: notice.customer ?? null,
    subscription: notice.subscription ?? null,
    payment: notice.payment ?? null,
    charge: notice.charge ?? null,
    amount: notice.amount ?? null,
    currency: notice.currency ?? null,
    outcome,
    notice: JSON.stringify(notice),
    received_at: now,
  };
}

/** Thrown where a notice's record finds it recorded before: its transaction is undone, and the notice answered as a duplicate. */
class CameBefore extends Error {}

/** Thrown where the member found by a notice's link no longer holds it once locked: its transaction is undone, and run again the long way. */
class Moved extends Error {}

/**
 * The member column a notice names its member by once linked (its subscription, else its
 * customer), for the one statement that finds and locks it (applyIn).
 */
function linkOf(notice: BillingNotice) {
  const [column, field, value] = notice.subscription
    ? (['bill_subscr', 'billSubscr', notice.subscription] as const)
    : notice.customer
      ? (['bill_cust', 'billCust', notice.customer] as const)
      : [];
  if (!column) return undefined;
  return {
    field,
    value,
    condition: (accountId: number) => (eb: ExpressionBuilder<Database, 'members'>) => eb.and([eb('account_id', '=', accountId), eb(column, '=', value)]),
  };
}

export const applyNoticeProcedure = writerProcedure(
  'billing.apply',
  (connection: WriterConnection, accountId: number, notice: BillingNotice, context: ApplyContext): Promise<Applied> => {
    const run = (quick: boolean) => connection.db.transaction().execute((trx) => applyIn(trx, connection, accountId, notice, context, quick));
    return run(true)
      .catch((error: unknown) => {
        if (error instanceof Moved) return run(false);
        throw error;
      })
      .catch((error: unknown) => {
        if (error instanceof CameBefore) return { kind: 'duplicate' } as const;
        throw error;
      });
  },
);

/** What applying a notice is given besides the notice (BillingStore.apply's context, with the refund rule alone of the settings). */
interface ApplyContext {
  readonly plans: readonly Plan[];
  readonly onRefund: RefundRule;
  readonly now: number;
  readonly origin: EventOrigin;
  readonly create?: NewMember;
}

/**
 * The member a notice is about when it was not found by its link (applyIn): after the
 * customer's lock (PostgreSQL), the member findMemberId finds, or the one the notice makes (our
 * checkout's visitor; a payer a PayPal button made, who is mailed a link to choose its
 * password). No member: the notice is kept, or only recorded.
 */
async function findOrMakeMember(
  trx: Trx,
  connection: WriterConnection,
  accountId: number,
  notice: BillingNotice,
  { now, origin, create }: ApplyContext,
  customerLock: RawBuilder<unknown> | undefined,
): Promise<{ memberId: number | undefined; checkout: Awaited<ReturnType<typeof ownCheckout>>; madeWithoutPassword: boolean }> {
  if (customerLock) await sql`select ${customerLock}`.execute(trx);
  const checkout = await ownCheckout(trx, accountId, notice);
  const found = await findMemberId(trx, connection.search, accountId, notice, checkout);
  if (found !== undefined || notice.kind === 'ignored') return { memberId: found, checkout, madeWithoutPassword: false };
  const made: NewMember | undefined =
    checkout && checkout.login !== ''
      ? paidMember(await freeLogin(trx, connection.search, accountId, checkout.login), checkout.email, checkout.password_hash, now)
      : makesMember(notice) && create
        ? { ...create, login: await freeLogin(trx, connection.search, accountId, create.login) }
        : undefined;
  if (!made) return { memberId: undefined, checkout, madeWithoutPassword: false };
  return { memberId: await insertMemberIn(trx, accountId, made, origin, undefined, undefined), checkout, madeWithoutPassword: !checkout };
}

async function applyIn(trx: Trx, connection: WriterConnection, accountId: number, notice: BillingNotice, context: ApplyContext, quick: boolean): Promise<Applied> {
  const { plans, onRefund, now, origin } = context;
  const lockKey = notice.customer ?? notice.subscription ?? notice.charge ?? notice.checkout ?? notice.email;
  const customerLock = connection.transactionLocks && lockKey ? connection.transactionLocks.lock('exclusive', BILLING_NOTICES, keyOf(lockKey)) : undefined;
  // The notice's record, with what it came to (so written after its effect). A notice recorded
  // before is written again only while it is kept (pending): otherwise the write returns no
  // row, and the whole transaction is undone as a duplicate (CameBefore). Asked by the write,
  // not by a read first: a repeated notice is rare, and every other one saves that statement.
  const recording = (state: string, memberId: number | null, outcome: string) => {
    const record = recordOf(accountId, notice, state, memberId, outcome, now);
    return trx
      .insertInto('billing_events')
      .values(record)
      .onConflict((oc) => oc.columns(['account_id', 'provider', 'event_id']).doUpdateSet(record).where('billing_events.state', '=', sql.lit('pending')))
      .returning('id');
  };
  const write = async (state: string, memberId: number | null, outcome: string) => {
    if (!(await recording(state, memberId, outcome).executeTakeFirst())) throw new CameBefore();
  };
  // A payment must be for a plan: one for any other price or item (another product of the same
  // Stripe account, a PayPal button changed by its payer) grants nothing.
  const unknownItem = (notice.kind === 'checkout' || notice.kind === 'paid') && notice.item !== undefined && !planForItem(plans, notice.provider, notice.item);
  const refusal = notice.refused ?? (unknownItem ? `${notice.provider === 'stripe' ? 'price' : 'item'} ${notice.item} is no plan's` : undefined);
  if (refusal) {
    await write('refused', null, refusal);
    return { kind: 'recorded', outcome: refusal };
  }
  // What the member's update does before it reads the member (its locks on PostgreSQL, the
  // expirations due), then the member as its update is given it: two notices of one member
  // under different keys (a charge, a customer) still read its billing state one after the other.
  const events: NewEvent[] = [];
  // PostgreSQL, most notices (a renewal, a failed payment): the member linked before to the
  // notice's subscription or customer, found and locked in one statement, the customer's lock
  // first as below, where that took three. Read in the statement's snapshot, from before its
  // locks: the member read after them must still hold the link (else Moved).
  const link = quick && customerLock && notice.kind !== 'ignored' && !(notice.checkout && notice.session) ? linkOf(notice) : undefined;
  const linkedId = link && (await readyToUpdateOne(trx, connection, accountId, link.condition(accountId), now, events, customerLock));
  // Otherwise (PostgreSQL: after the customer's lock, so that notices of one customer apply
  // one after the other) the member found, or made.
  const { memberId, checkout, madeWithoutPassword } =
    linkedId !== undefined
      ? { memberId: linkedId, checkout: undefined, madeWithoutPassword: false }
      : await findOrMakeMember(trx, connection, accountId, notice, context, customerLock);
  if (memberId === undefined) {
    if (notice.kind === 'ignored') {
      await write('recorded', null, 'not acted on');
      return { kind: 'recorded', outcome: 'not acted on' };
    }
    await write('pending', null, 'no member matches yet');
    return { kind: 'pending' };
  }
  if (notice.kind === 'ignored') {
    await write('recorded', memberId, 'not acted on');
    return { kind: 'recorded', outcome: 'not acted on' };
  }
  if (linkedId === undefined) await readyToUpdateOne(trx, connection, accountId, memberId, now, events);
  const billedRead = await billedMemberIn(trx, connection.search, memberId, plans);
  // Found by its link before the locks: gone since (purged) or moved, it is looked for again.
  if (link && linkedId !== undefined && billedRead?.member[link.field] !== link.value) throw new Moved();
  if (!billedRead) throw new Error(`member ${memberId} is gone`);
  const { member: before, billing: held, fields: heldFields } = billedRead;
  const billed: BilledMember = { status: before.status, expiresAt: before.timeExpiry?.at ?? null, billing: held };
  // A dispute's opening that arrives after its close (Stripe does not promise the order) opens nothing.
  if (notice.kind === 'disputed' && notice.charge) {
    const closed = await trx
      .selectFrom('billing_events')
      .select('id')
      .where('account_id', '=', accountId)
      .where('charge', '=', notice.charge)
      .where('state', '=', 'applied')
      .where('type', 'in', DISPUTE_CLOSINGS)
      .limit(1)
      .executeTakeFirst();
    if (closed) {
      await write('applied', memberId, 'the dispute was closed before: ignored');
      if (events.length > 0) await appendEvents(trx, accountId, events);
      return { kind: 'applied', memberId, outcome: 'the dispute was closed before: ignored', linked: false, madeWithoutPassword };
    }
  }
  let read = notice;
  // A PayPal refund says its amount, not whether it was the whole payment: the payment's record does.
  if (notice.kind === 'refunded' && notice.fullRefund === undefined) {
    const paid = notice.charge
      ? await trx
          .selectFrom('billing_events')
          .select('amount')
          .where('account_id', '=', accountId)
          .where('charge', '=', notice.charge)
          .where('state', '=', 'applied')
          .where('type', '!=', notice.type)
          .where('amount', 'is not', null)
          .limit(1)
          .executeTakeFirst()
      : undefined;
    read = { ...notice, fullRefund: paid?.amount == null || (notice.amount ?? 0) >= Number(paid.amount) };
  }
  const current = planForItem(plans, notice.provider, notice.item) ?? plans.find((plan) => plan.name === held.plan);
  const previous = plans.find((plan) => plan.name === held.plan);
  const effect = effectOf(billed, read, { current, previous }, { onRefund }, now);
  const { bill } = effect.member;
  // A renewal sets the fields the member has already: only a value that differs is written
  // (a profile write also rewrites the member's search index). The fields an effect sets or
  // removes are its plans' (held: read with the member).
  const setFields = new Map([...effect.member.setFields].filter(([name, value]) => heldFields.get(name) !== value));
  const deleteFields = effect.member.deleteFields.filter((name) => heldFields.has(name));
  // Only what differs is written: a renewal of an Active member sets its access and payment id,
  // never its status again (which would also lift a lockout), nor fields it holds already.
  const differs = <K extends keyof typeof before>(key: K, value: (typeof before)[K] | undefined) => value !== undefined && value !== before[key];
  const wanted = effect.member.expiresAt === undefined ? undefined : effect.member.expiresAt === null ? null : { action: 'S' as const, at: effect.member.expiresAt };
  const expiryChanges = wanted !== undefined && (wanted === null ? before.timeExpiry !== null : before.timeExpiry?.at !== wanted.at || before.timeExpiry.action !== 'S');
  const changes: MemberChanges = {
    ...(differs('status', effect.member.status) ? { status: effect.member.status } : {}),
    ...(expiryChanges ? { timeExpiry: wanted } : {}),
    ...(differs('regType', effect.member.regType) ? { regType: effect.member.regType } : {}),
    ...(differs('billPc', bill?.pc) ? { billPc: bill!.pc } : {}),
    ...(differs('billCust', bill?.cust) ? { billCust: bill!.cust } : {}),
    ...(differs('billSubscr', bill?.subscr) ? { billSubscr: bill!.subscr } : {}),
    ...(differs('billItem', bill?.item) ? { billItem: bill!.item } : {}),
    ...(differs('billQty', bill?.qty) ? { billQty: bill!.qty } : {}),
    ...(differs('billId', bill?.id) ? { billId: bill!.id } : {}),
    setFields,
    deleteFields,
    ...(effect.mail && before.email !== '' ? { mail: effect.mail } : {}),
  };
  const changesAnything = Object.keys(changes).some((key) => key !== 'setFields' && key !== 'deleteFields') || changes.setFields.size > 0 || changes.deleteFields.length > 0;
  // PostgreSQL: the member's writes, where nothing else depends on them (a renewal's access,
  // payment id and plan fields), join the statement below.
  const handedOver: MemberWrite[] | undefined = connection.writesInOneStatement ? [] : undefined;
  if (changesAnything) {
    const updated = await updateOneIn(trx, connection, accountId, memberId, changes, now, origin, events, { member: before, profile: heldFields }, handedOver);
    // A change the member's update refuses (more profile fields than allowed) undoes the whole
    // notice, half-written as it may be: the provider retries, and the log says why.
    if (updated.kind !== 'updated') throw new Error(`the payment's change of member ${memberId} was refused: ${updated.kind}`);
  }
  const billing = effect.billing;
  const values = {
    plan: billing.plan,
    paid_until: billing.paidUntil,
    status: billing.status,
    status_at: billing.statusAt,
    cancel_at_period_end: billing.cancelAtPeriodEnd ? 1 : 0,
    disputed: billing.disputed ? 1 : 0,
    period: billing.period,
    period_from: billing.periodFrom,
    updated_at: now,
  };
  const billingWrite = trx
    .insertInto('member_billing')
    .values({ member_id: memberId, account_id: accountId, ...values })
    .onConflict((oc) => oc.column('member_id').doUpdateSet(values));
  const member = { id: memberId, login: before.login };
  events.push(...effect.events.map((event) => billingEvent(member, event.kind, event.data, now, origin)));
  if (connection.writesInOneStatement) {
    // PostgreSQL: the member's writes (when handed over), its billing state, the notice's
    // record and the events in one statement, one round trip where they were four or more (the
    // events once, for the one row the billing state's write returns). Every part of a WITH
    // sees the tables as they were before it: no part reads a table another part writes (the
    // outbox's reads only the billing part's returned row).
    let statement = withWrites(trx, handedOver ?? [])
      .with('billing', () => billingWrite.returning('status'))
      .with('record', () => recording('applied', memberId, effect.outcome));
    if (events.length > 0) {
      const outbox = outboxInsertFrom('billing', accountId, events.map((event) => ({ event })));
      statement = statement.with('outbox', () => sql<Record<string, unknown>>`(${outbox})`) as unknown as typeof statement;
    }
    if (!(await statement.selectFrom('record').select('id').executeTakeFirst())) throw new CameBefore();
  } else {
    await billingWrite.execute();
    await write('applied', memberId, effect.outcome);
    if (events.length > 0) await appendEvents(trx, accountId, events);
  }
  if (checkout && checkout.completed_at === null)
    await trx.updateTable('billing_checkouts').set({ member_id: memberId, completed_at: now }).where('id', '=', checkout.id).execute();
  const linked = (bill?.cust !== undefined && bill.cust !== before.billCust) || (bill?.subscr !== undefined && bill.subscr !== before.billSubscr);
  return { kind: 'applied', memberId, outcome: effect.outcome, linked, madeWithoutPassword };
}

export class BillingRepository extends Repository implements BillingStore {
  async settings(accountId: number): Promise<BillingSettings> {
    const row = await this.reads.selectFrom('billing_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return {
      stripeSecretKey: row?.stripe_secret_key ?? '',
      stripeWebhookSecret: row?.stripe_webhook_secret ?? '',
      paypalReceiver: row?.paypal_receiver ?? '',
      onRefund: row?.on_refund === 'keep' ? 'keep' : 'suspend',
    };
  }

  async setSettings(accountId: number, settings: BillingSettings, now: number): Promise<void> {
    const values = {
      stripe_secret_key: settings.stripeSecretKey,
      stripe_webhook_secret: settings.stripeWebhookSecret,
      paypal_receiver: settings.paypalReceiver,
      on_refund: settings.onRefund,
      updated_at: now,
    };
    await this.connection.write(
      this.build
        .insertInto('billing_settings')
        .values({ account_id: accountId, ...values })
        .onConflict((oc) => oc.column('account_id').doUpdateSet(values)),
    );
  }

  async plans(accountId: number): Promise<Plan[]> {
    const rows = await this.reads.selectFrom('billing_plans').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('name').execute();
    return rows.map(planOf);
  }

  async addPlan(accountId: number, plan: Plan): Promise<boolean> {
    const result = await this.connection.write(
      this.build
        .insertInto('billing_plans')
        .values({
          account_id: accountId,
          name: plan.name,
          title: plan.title === plan.name ? '' : plan.title,
          stripe_price: plan.stripePrice,
          paypal_item: plan.paypalItem,
          amount: plan.amount,
          currency: plan.currency,
          grace_seconds: plan.graceSeconds,
          fields: JSON.stringify(Object.fromEntries(plan.fields)),
          created_at: plan.createdAt,
        })
        .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing()),
    );
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async removePlan(accountId: number, name: string): Promise<boolean> {
    const result = await this.connection.write(this.build.deleteFrom('billing_plans').where('account_id', '=', accountId).where('name', '=', name));
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  apply(
    accountId: number,
    notice: BillingNotice,
    context: { readonly plans: readonly Plan[]; readonly settings: Pick<BillingSettings, 'onRefund'>; readonly now: number; readonly origin: EventOrigin; readonly create?: NewMember },
  ): Promise<Applied> {
    const { settings, ...rest } = context;
    return this.connection.transact(applyNoticeProcedure, accountId, notice, { ...rest, onRefund: settings.onRefund });
  }

  async pendingFor(accountId: number, keys: { customer?: string | null; subscription?: string | null }, limit: number): Promise<BillingNotice[]> {
    const wanted = [keys.customer, keys.subscription].filter((key): key is string => typeof key === 'string' && key !== '');
    if (wanted.length === 0) return [];
    const rows = await this.reads
      .selectFrom('billing_events')
      .select('notice')
      .where('account_id', '=', accountId)
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('customer', 'in', wanted), eb('subscription', 'in', wanted)]))
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => JSON.parse(row.notice) as BillingNotice);
  }

  async keptMatched(after: number, window: number): Promise<{ matched: Array<{ accountId: number; notice: BillingNotice }>; last: number | undefined }> {
    // The window: the next kept notices in the order they came (the partial index of them).
    // The state a literal, not a parameter: a plan made once for any value could not use the partial index.
    const ids = await this.reads.selectFrom('billing_events').select('id').where('state', '=', sql.lit('pending')).where('id', '>', after).orderBy('id').limit(window).execute();
    if (ids.length === 0) return { matched: [], last: undefined };
    const last = Number(ids[ids.length - 1]!.id);
    // Of those, the ones a member now matches, as applying them would find it: by subscription, customer or charge.
    const rows = await this.reads
      .selectFrom('billing_events as e')
      .select(['e.account_id', 'e.notice'])
      .where('e.state', '=', sql.lit('pending'))
      .where('e.id', '>', after)
      .where('e.id', '<=', last)
      .where((eb) =>
        eb.or([
          eb.exists(eb.selectFrom('members as m').select('m.id').whereRef('m.account_id', '=', 'e.account_id').whereRef('m.bill_subscr', '=', 'e.subscription')),
          eb.exists(eb.selectFrom('members as m').select('m.id').whereRef('m.account_id', '=', 'e.account_id').whereRef('m.bill_cust', '=', 'e.customer')),
          eb.exists(
            eb
              .selectFrom('billing_events as c')
              .select('c.id')
              .whereRef('c.account_id', '=', 'e.account_id')
              .whereRef('c.charge', '=', 'e.charge')
              .where('c.member_id', 'is not', null),
          ),
        ]),
      )
      .orderBy('e.id')
      .execute();
    return { matched: rows.map((row) => ({ accountId: Number(row.account_id), notice: JSON.parse(row.notice) as BillingNotice })), last: ids.length < window ? undefined : last };
  }

  async findsMember(accountId: number, notice: BillingNotice): Promise<boolean> {
    const checkout = await ownCheckout(this.reads as unknown as Trx, accountId, notice);
    if (checkout && (checkout.member_id !== null || checkout.login !== '')) return true;
    return (await findMemberId(this.reads as unknown as Trx, this.connection.search, accountId, notice, undefined)) !== undefined;
  }

  private checkoutRow(accountId: number, id: string) {
    return this.reads.selectFrom('billing_checkouts').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  }

  async createCheckout(checkout: Omit<Checkout, 'completedAt' | 'signedInAt' | 'memberId'> & { memberId: number | null; passwordHash: string }): Promise<void> {
    await this.connection.write(
      this.build.insertInto('billing_checkouts').values({
        id: checkout.id,
        account_id: checkout.accountId,
        plan: checkout.plan,
        member_id: checkout.memberId,
        login: checkout.login,
        email: checkout.email,
        password_hash: checkout.passwordHash,
        language: checkout.language,
        created_at: checkout.createdAt,
      }),
    );
  }

  async setCheckoutSession(id: string, session: string): Promise<void> {
    await this.connection.write(this.build.updateTable('billing_checkouts').set({ session_id: session }).where('id', '=', id));
  }

  async checkout(accountId: number, id: string): Promise<Checkout | undefined> {
    const row = await this.checkoutRow(accountId, id);
    return (
      row && {
        id: row.id,
        accountId: Number(row.account_id),
        plan: row.plan,
        memberId: row.member_id === null ? null : Number(row.member_id),
        login: row.login,
        email: row.email,
        language: row.language,
        createdAt: Number(row.created_at),
        completedAt: row.completed_at === null ? null : Number(row.completed_at),
        signedInAt: row.signed_in_at === null ? null : Number(row.signed_in_at),
      }
    );
  }

  async markSignedIn(id: string, now: number): Promise<boolean> {
    const result = await this.connection.write(this.build.updateTable('billing_checkouts').set({ signed_in_at: now }).where('id', '=', id).where('signed_in_at', 'is', null));
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  memberBilling(accountId: number, memberId: number): Promise<MemberBilling | undefined> {
    return memberBillingIn(this.reads, accountId, memberId);
  }

  async records(accountId: number, memberId: number, limit: number): Promise<BillingRecord[]> {
    const rows = await this.reads
      .selectFrom('billing_events')
      .select(['provider', 'event_id', 'type', 'state', 'payment', 'amount', 'currency', 'outcome', 'received_at'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      provider: row.provider as ProviderName,
      eventId: row.event_id,
      type: row.type,
      state: row.state,
      payment: row.payment,
      amount: row.amount === null ? null : Number(row.amount),
      currency: row.currency,
      outcome: row.outcome,
      receivedAt: Number(row.received_at),
    }));
  }
}
