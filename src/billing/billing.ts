/**
 * Paid memberships: what a payment provider tells us, read into one shape (a notice), and what
 * each notice does to a member (`effectOf`, a pure function of the member's billing state, the
 * notice, the plan and the account's settings). A provider is one file behind `BillingProvider`
 * (stripe.ts, paypal.ts); the billing service (billing-service.ts) reads a provider's request
 * into notices and hands each to the store, which applies it once, in one transaction with its
 * effect (store/billing-repository.ts). docs/paid-memberships.md says it for site owners.
 */
import type { MailRequest } from '../mail/mail.js';
import type { NewMember } from '../members/member.js';

export type ProviderName = 'stripe' | 'paypal';
export const PROVIDERS: readonly ProviderName[] = ['stripe', 'paypal'];

/** What a notice is about, whatever the provider called it. */
export type NoticeKind =
  /** A checkout was paid (Stripe `checkout.session.completed`, PayPal `subscr_signup`): link or create the member. */
  | 'checkout'
  /** A payment went through: access until the period's end plus the grace. */
  | 'paid'
  /** A renewal failed: access is kept until the paid-until date; the member is mailed. */
  | 'payment_failed'
  /** The subscription changed: its status, its price, a cancellation at the period's end. */
  | 'subscription'
  /** The subscription ended: Suspended once the paid period is over. */
  | 'ended'
  | 'refunded'
  | 'disputed'
  /** A dispute was closed: `won` restores. */
  | 'dispute_closed'
  /** Nothing for us (an event type we do not act on): recorded, answered 2xx. */
  | 'ignored';

/** A provider's notification, read. Instants in ms; amounts in the currency's minor unit. */
export interface BillingNotice {
  readonly provider: ProviderName;
  /** The provider's id of the notification: applied once per account. */
  readonly id: string;
  /** The provider's own name of it (`invoice.paid`, `subscr_payment`). */
  readonly type: string;
  readonly kind: NoticeKind;
  /** When the provider made it: an older subscription state never overrides a newer one. */
  readonly at: number;
  /** Our own checkout id (Stripe's `client_reference_id`), trusted only with the session we made for it. */
  readonly checkout?: string;
  /** The provider's checkout session (Stripe's `cs_…`): proves which checkout was paid. */
  readonly session?: string;
  readonly customer?: string;
  readonly subscription?: string;
  /** The address the provider has for the payer: a member found, or made, by it. */
  readonly email?: string;
  /** The price (Stripe) or item (PayPal) paid for: the plan. */
  readonly item?: string;
  readonly quantity?: number;
  /** The paid period's end; absent for a payment with no period (a one-time purchase). */
  readonly periodEnd?: number;
  /** A one-time purchase: access without an end. */
  readonly oneTime?: boolean;
  /** The payment's id (an invoice, a transaction): the seed's `bill_id`. */
  readonly payment?: string;
  /** The charge (or payment intent) a refund or a dispute names. */
  readonly charge?: string;
  readonly amount?: number;
  readonly currency?: string;
  /** A refund of the whole payment (else partial: recorded only). */
  readonly fullRefund?: boolean;
  /** The provider's subscription status (`active`, `past_due`, `unpaid`, …). */
  readonly status?: string;
  readonly cancelAtPeriodEnd?: boolean;
  /** A dispute's outcome. */
  readonly won?: boolean;
  /** Where the member fixes a failed payment (Stripe's hosted invoice). */
  readonly fixUrl?: string;
  /** A PayPal subscription's period (`1 M`), from its sign-up. */
  readonly period?: string;
  /** A PayPal payment's instant: its period's end is this plus the subscription's period. */
  readonly periodFrom?: number;
  /** Why a notice that is the provider's is not applied (another receiver, a price that is not the plan's). */
  readonly refused?: string;
}

/** A notice that is not the provider's (a bad signature, an IPN PayPal does not confirm): 400. */
export class NotAuthentic extends Error {}

/** The provider could not be asked now (its API, PayPal's postback): 503, so that it retries. */
export class ProviderUnavailable extends Error {}

/** What a payment for a plan grants. */
export interface Plan {
  readonly name: string;
  /** The name members see (the plan's name when not given). */
  readonly title: string;
  readonly stripePrice: string | null;
  readonly paypalItem: string | null;
  /** The price, checked against a PayPal payment ("9.99"), and its currency ("USD"). */
  readonly amount: string | null;
  readonly currency: string | null;
  /** Access after the paid period's end, for a retried renewal to land. */
  readonly graceSeconds: number;
  /** Profile fields set while the plan lasts. */
  readonly fields: ReadonlyMap<string, string>;
  readonly createdAt: number;
}

export type RefundRule = 'suspend' | 'keep';

/** An account's connection to its providers: secrets are read by the server only. */
export interface BillingSettings {
  readonly stripeSecretKey: string;
  readonly stripeWebhookSecret: string;
  readonly paypalReceiver: string;
  readonly onRefund: RefundRule;
}

export const NO_BILLING: BillingSettings = { stripeSecretKey: '', stripeWebhookSecret: '', paypalReceiver: '', onRefund: 'suspend' };

/** A paid member's billing state (member_billing). */
export interface MemberBilling {
  readonly plan: string;
  readonly paidUntil: number | null;
  readonly status: string;
  /** The `at` of the notice that set `status`. */
  readonly statusAt: number;
  readonly cancelAtPeriodEnd: boolean;
  readonly disputed: boolean;
  readonly period: string;
  /** A PayPal payment's instant whose period was not known yet (its sign-up came after it): recounted when it is. */
  readonly periodFrom: number | null;
}

export const NO_MEMBER_BILLING: MemberBilling = { plan: '', paidUntil: null, status: '', statusAt: 0, cancelAtPeriodEnd: false, disputed: false, period: '', periodFrom: null };

/** The member as a notice's effect sees it. */
export interface BilledMember {
  readonly status: 'A' | 'S' | 'D';
  /** When a time expiration suspends it (null: none). */
  readonly expiresAt: number | null;
  readonly billing: MemberBilling;
}

/** What billing tells the feed and the webhooks (`member.paid`…: events/member-events.ts builds them). */
export type BillingEventKind = 'paid' | 'payment_failed' | 'refunded' | 'disputed' | 'plan_changed';

/** What a notice does: the member's changes, its new billing state, the events told, a mail. */
export interface Effect {
  /** The seed's fields and the member's status and access; absent: unchanged. */
  readonly member: {
    readonly status?: 'A' | 'S';
    /** Null clears it. */
    readonly expiresAt?: number | null;
    readonly regType?: 'P';
    readonly bill?: { readonly pc?: string; readonly cust?: string; readonly subscr?: string; readonly item?: string; readonly qty?: string; readonly id?: string };
    readonly setFields: ReadonlyMap<string, string>;
    readonly deleteFields: readonly string[];
  };
  readonly billing: MemberBilling;
  readonly events: ReadonlyArray<{ readonly kind: BillingEventKind; readonly data: Record<string, unknown> }>;
  readonly mail?: MailRequest;
  /** What happened, in a few words, for the event's record ("access until …", "stale"). */
  readonly outcome: string;
}

/** The billing states in which billing itself suspended the member: a payment restores it from them. */
const SUSPENDING_STATES = new Set(['refunded', 'canceled', 'unpaid', 'incomplete_expired', 'past_due']);

/** The billing states in which a subscription has ended: nothing more will be charged. */
const ENDED_STATES = new Set(['refunded', 'canceled', 'unpaid', 'incomplete_expired', 'dispute_lost']);

/**
 * Whether the member has a subscription that goes on: not ended, and paid beyond now, or not
 * known until when yet (a checkout before its invoice), or past due (the provider still tries
 * the card). A second checkout would charge it twice, so the member changes plan in the
 * provider's portal instead (one subscription per member, as the seed's one `bill_subscr`);
 * one that ends at its period's end is renewed there too.
 */
export function paysSubscription(member: { readonly billSubscr: string | null }, billing: MemberBilling | undefined, now: number): boolean {
  if (member.billSubscr === null || billing === undefined || ENDED_STATES.has(billing.status)) return false;
  return billing.paidUntil === null || billing.paidUntil > now || billing.status === 'past_due';
}

/** Access is granted until this instant when the paid period's end is not known yet (a checkout before its invoice). */
export const PROVISIONAL_ACCESS_MS = 24 * 60 * 60 * 1000;

const iso = (instant: number | null | undefined) => (instant === null || instant === undefined ? null : new Date(instant).toISOString());

/**
 * What a notice does to a member. Pure: the same member, notice and plan give the same effect,
 * so that a repeated notice (applied once anyway) or one out of order ends in the same state:
 * a period's end is absolute and never moves access back; a subscription status older than the
 * one held is ignored.
 */
export function effectOf(
  member: BilledMember,
  notice: BillingNotice,
  plans: { readonly current: Plan | undefined; readonly previous: Plan | undefined },
  settings: Pick<BillingSettings, 'onRefund'>,
  now: number,
): Effect {
  const held = member.billing;
  // A payment older than the subscription state held does not switch the plan back (an old
  // invoice delivered late); a checkout always sets the plan it bought.
  const plan = notice.kind === 'paid' && notice.at < held.statusAt ? (plans.previous ?? plans.current) : plans.current;
  const grace = (plan ?? plans.previous)?.graceSeconds ?? 0;
  const base = { setFields: new Map<string, string>(), deleteFields: [] as string[] };
  const noop = (outcome: string): Effect => ({ member: base, billing: held, events: [], outcome });
  const ids = (data: Record<string, unknown>) => ({ provider: notice.provider, event: notice.id, type: notice.type, ...data });
  switch (notice.kind) {
    case 'checkout':
    case 'paid': {
      // A PayPal payment before its sign-up is counted a month; the sign-up's period recounts it.
      const from = notice.periodFrom ?? (notice.period !== undefined && held.period === '' ? (held.periodFrom ?? undefined) : undefined);
      const periodEnd = notice.periodEnd ?? (from === undefined ? undefined : afterPeriod(from, notice.period ?? held.period));
      const paidUntil = periodEnd === undefined ? held.paidUntil : Math.max(held.paidUntil ?? 0, periodEnd);
      const access = notice.oneTime
        ? null
        : paidUntil !== null
          ? paidUntil + grace * 1000
          : Math.max(member.expiresAt ?? 0, now + PROVISIONAL_ACCESS_MS + grace * 1000);
      const switched = plan !== undefined && held.plan !== '' && held.plan !== plan.name;
      const fields = planFields(plan, switched ? plans.previous : undefined);
      const billing: { -readonly [K in keyof MemberBilling]: MemberBilling[K] } = {
        ...held,
        plan: plan?.name ?? held.plan,
        paidUntil,
        period: notice.period ?? held.period,
        periodFrom: notice.periodFrom !== undefined && (notice.period ?? held.period) === '' ? notice.periodFrom : null,
        ...(notice.status !== undefined && notice.at >= held.statusAt ? { status: notice.status, statusAt: notice.at } : {}),
        ...(notice.kind === 'paid' && held.status === 'past_due' ? { status: 'active' } : {}),
      };
      // A checkout makes (or restores) the member, unless a dispute is open. A renewal restores
      // only what billing suspended (a refund, a lapse, an unpaid subscription), never an
      // operator's suspension or a deletion, nor a refund newer than the payment (a retried old one).
      const suspendedByBilling =
        member.status === 'S' && ((member.expiresAt !== null && member.expiresAt <= now) || SUSPENDING_STATES.has(held.status));
      const olderThanRefund = held.status === 'refunded' && notice.at < held.statusAt;
      const restores = !held.disputed && !olderThanRefund && (notice.kind === 'checkout' || suspendedByBilling);
      const status = restores && member.status !== 'A' ? 'A' : undefined;
      if (restores && SUSPENDING_STATES.has(billing.status)) Object.assign(billing, { status: 'active', statusAt: Math.max(held.statusAt, notice.at) });
      const payment = notice.kind === 'paid' ? notice.payment : undefined;
      return {
        member: {
          ...fields,
          status,
          expiresAt: access,
          regType: 'P',
          bill: {
            pc: notice.provider,
            ...(notice.customer ? { cust: notice.customer } : {}),
            ...(notice.subscription ? { subscr: notice.subscription } : {}),
            ...(notice.item ? { item: notice.item } : {}),
            ...(notice.quantity !== undefined ? { qty: String(notice.quantity) } : {}),
            ...(payment ? { id: payment } : {}),
          },
        },
        billing,
        events: [
          ...(notice.kind === 'paid' || notice.oneTime || periodEnd !== undefined
            ? [
                {
                  kind: 'paid' as const,
                  data: ids({ plan: billing.plan, paid_until: iso(paidUntil), access_until: iso(access), payment: notice.payment ?? null, amount: notice.amount ?? null, currency: notice.currency ?? null }),
                },
              ]
            : []),
          ...(switched ? [{ kind: 'plan_changed' as const, data: ids({ from: held.plan, to: plan.name }) }] : []),
        ],
        outcome: access === null ? 'access without end' : `access until ${iso(access)}`,
      };
    }
    case 'payment_failed':
      // A failure older than the state held (a renewal paid since) tells nothing.
      if (notice.at < held.statusAt) return noop('older than the state held: ignored');
      return {
        member: base,
        billing: { ...held, status: 'past_due', statusAt: Math.max(held.statusAt, notice.at) },
        events: [{ kind: 'payment_failed', data: ids({ paid_until: iso(held.paidUntil), fix_url: notice.fixUrl ?? null }) }],
        mail: { kind: 'payment-failed', vars: { paid_until_at: String(held.paidUntil ?? ''), ...(notice.fixUrl ? { fix_url: notice.fixUrl } : {}) } },
        outcome: `access kept until ${iso(member.expiresAt)}`,
      };
    case 'subscription': {
      if (notice.at < held.statusAt) return noop('older than the state held: ignored');
      const switched = plan !== undefined && held.plan !== '' && held.plan !== plan.name;
      // A subscription's period moves forward when its renewal starts, before it is paid: only a
      // payment moves the paid-until date.
      const paidUntil = held.paidUntil;
      const billing: MemberBilling = {
        ...held,
        plan: plan?.name ?? held.plan,
        paidUntil,
        status: notice.status ?? held.status,
        statusAt: notice.at,
        cancelAtPeriodEnd: notice.cancelAtPeriodEnd ?? held.cancelAtPeriodEnd,
      };
      const over = notice.status === 'unpaid' || notice.status === 'incomplete_expired' || notice.status === 'canceled';
      const fields = switched ? planFields(plan, plans.previous) : base;
      return {
        member: {
          ...fields,
          ...(over ? { status: 'S' as const } : paidUntil !== held.paidUntil && paidUntil !== null ? { expiresAt: paidUntil + grace * 1000 } : {}),
          bill: { ...(notice.item ? { item: notice.item } : {}), ...(notice.quantity !== undefined ? { qty: String(notice.quantity) } : {}) },
        },
        billing,
        events: switched ? [{ kind: 'plan_changed', data: ids({ from: held.plan, to: plan.name }) }] : [],
        outcome: over ? `suspended: subscription ${notice.status}` : billing.cancelAtPeriodEnd ? 'cancels at the period’s end' : `subscription ${billing.status}`,
      };
    }
    case 'ended': {
      const end = held.paidUntil;
      const billing: MemberBilling = { ...held, status: 'canceled', statusAt: Math.max(held.statusAt, notice.at), cancelAtPeriodEnd: false };
      if (end === null || end <= now) return { member: { ...base, status: 'S' }, billing, events: [], outcome: 'suspended: the paid period is over' };
      return { member: { ...base, expiresAt: end }, billing, events: [], outcome: `suspended at ${iso(end)}, the paid period’s end` };
    }
    case 'refunded': {
      const event = { kind: 'refunded' as const, data: ids({ full: notice.fullRefund === true, amount: notice.amount ?? null, currency: notice.currency ?? null, charge: notice.charge ?? null }) };
      if (notice.fullRefund !== true) return { member: base, billing: held, events: [event], outcome: 'partial refund: recorded' };
      const refunded = { ...held, status: 'refunded', statusAt: Math.max(held.statusAt, notice.at) };
      if (settings.onRefund === 'keep') return { member: base, billing: refunded, events: [event], outcome: 'refunded: access kept (--on-refund keep)' };
      return { member: { ...base, status: 'S' }, billing: refunded, events: [event], outcome: 'refunded: suspended' };
    }
    case 'disputed':
      return {
        member: { ...base, status: 'S' },
        billing: { ...held, disputed: true },
        events: [{ kind: 'disputed', data: ids({ status: 'open', charge: notice.charge ?? null, amount: notice.amount ?? null }) }],
        outcome: 'disputed: suspended',
      };
    case 'dispute_closed': {
      const data = ids({ status: notice.won ? 'won' : 'lost', charge: notice.charge ?? null });
      if (!notice.won) return { member: base, billing: { ...held, disputed: false, status: 'dispute_lost' }, events: [{ kind: 'disputed', data }], outcome: 'dispute lost: stays suspended' };
      // Won: access as paid, if the paid period (and its grace) is not over.
      const restore = member.expiresAt === null || member.expiresAt > now;
      return {
        member: { ...base, ...(restore ? { status: 'A' as const } : {}) },
        billing: { ...held, disputed: false },
        events: [{ kind: 'disputed', data }],
        outcome: restore ? 'dispute won: restored' : 'dispute won: the paid period is over',
      };
    }
    case 'ignored':
      return noop('not acted on');
  }
}

/** The plan's profile fields to set, and those of the plan it replaces to remove. */
function planFields(plan: Plan | undefined, replaced: Plan | undefined): { setFields: ReadonlyMap<string, string>; deleteFields: readonly string[] } {
  const setFields = new Map(plan?.fields ?? []);
  const deleteFields = replaced ? [...replaced.fields.keys()].filter((name) => !setFields.has(name)) : [];
  return { setFields, deleteFields };
}

/** A member a payment makes: Paid, Active, no expiration yet (the payment's effect sets it). */
export function paidMember(login: string, email: string, passwordHash: string, at: number): NewMember {
  return {
    login,
    email,
    passwordHash,
    status: 'A',
    regType: 'P',
    regAt: at,
    regIp: null,
    urlOk: null,
    urlFail: null,
    timeExpiry: null,
    loginExpiry: null,
    profile: new Map(),
  };
}

/** Whether a notice may make a member when none is found (it carries a payer's address, and is a checkout or a PayPal payment). */
export function makesMember(notice: BillingNotice): boolean {
  // A Stripe invoice before its checkout waits for it (the checkout has the visitor's own login
  // and password); PayPal's buttons have no checkout of ours, and their first payment may come first.
  const making = notice.kind === 'checkout' || (notice.kind === 'paid' && notice.provider === 'paypal');
  return making && notice.email !== undefined && notice.email !== '';
}

/** A duration as plans and settings take it: `3d`, `12h`, `30m`, `0`. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** A duration as typed back (`3d`, `12h`, `0`). */
export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0';
  if (seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** A provider's request, as it came: the exact bytes (signatures and postbacks need them). */
export interface ProviderRequest {
  readonly body: Buffer;
  header(name: string): string | undefined;
}

/**
 * A payment provider: reads its notifications, checked as its own. Adding one (PayPal's REST
 * subscriptions, Paddle, Lemon Squeezy) is one more file that implements this, and a route.
 */
export interface BillingProvider {
  readonly name: ProviderName;
  /** The request's notices; NotAuthentic when it is not the provider's, ProviderUnavailable when it cannot be checked now. */
  read(request: ProviderRequest, settings: BillingSettings, plans: readonly Plan[]): Promise<BillingNotice[]>;
  /** More of what a notice is about, asked of the provider's API where the notice is not enough (best effort: undefined when it cannot say). */
  enrich?(notice: BillingNotice, settings: BillingSettings): Promise<BillingNotice>;
}

/** A provider's hosted checkout and customer portal (Stripe's). */
export interface HostedCheckout {
  /** A checkout session for a plan; the browser goes to `url`. */
  start(
    settings: BillingSettings,
    order: { plan: Plan; checkout: string; email: string; customer: string | undefined; successUrl: string; cancelUrl: string },
  ): Promise<{ url: string; session: string }>;
  /** A session of the provider's customer portal (change card, switch plan, cancel). */
  manage(settings: BillingSettings, customer: string, returnUrl: string): Promise<string>;
  /** The account's subscriptions, as notices of their state (for `billing import-stripe`). */
  subscriptions(settings: BillingSettings): AsyncIterable<BillingNotice>;
  /** The origins of its hosted pages: a form that leads there must name them (the member pages' `form-action`). */
  readonly origins: readonly string[];
}

/** A PayPal subscription's period (`period3`: `1 M`, `12 M`, `1 Y`, `7 D`) after an instant; a month when not known. */
export function afterPeriod(from: number, period: string): number {
  const match = /^(\d{1,3})\s*([DWMY])$/.exec(period.trim());
  const count = match ? Number(match[1]) : 1;
  const unit = match ? match[2] : 'M';
  const date = new Date(from);
  if (unit === 'D') return from + count * 86_400_000;
  if (unit === 'W') return from + count * 7 * 86_400_000;
  if (unit === 'M') date.setUTCMonth(date.getUTCMonth() + count);
  else date.setUTCFullYear(date.getUTCFullYear() + count);
  return date.getTime();
}
