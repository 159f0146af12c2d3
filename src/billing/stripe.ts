/**
 * Stripe: webhooks checked with the official `stripe` package on the raw body (5-minute
 * tolerance), read into notices; Checkout sessions, customer portal sessions and the
 * subscriptions' list through its client, pointed at `STRIPE_API_URL`. Payloads of the API
 * versions before and after 2025-03 ("basil": the period's end on the subscription item, the
 * invoice's subscription under `parent`) are both read.
 */
import Stripe from 'stripe';
import {
  NotAuthentic,
  ProviderUnavailable,
  type BillingNotice,
  type BillingProvider,
  type BillingSettings,
  type HostedCheckout,
  type NoticeKind,
  type Plan,
  type ProviderRequest,
} from './billing.js';

/** Stripe's own tolerance for a signature's age. */
const TOLERANCE_SECONDS = 300;

type Obj = Record<string, any>;
const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : typeof value === 'object' && value !== null && typeof (value as Obj).id === 'string' ? (value as Obj).id : undefined);
const ms = (seconds: unknown): number | undefined => (typeof seconds === 'number' ? seconds * 1000 : undefined);

export class StripeProvider implements BillingProvider, HostedCheckout {
  readonly name = 'stripe' as const;
  private readonly clients = new Map<string, Stripe>();
  /** Stripe's checkout and portal pages; and where a fake or a proxy of its API serves its own. */
  readonly origins: readonly string[];

  constructor(private readonly apiUrl: string) {
    this.origins = ['https://checkout.stripe.com', 'https://billing.stripe.com', new URL(apiUrl).origin];
  }

  /** A client for the account's secret key, at the configured address. */
  private client(settings: BillingSettings): Stripe {
    if (settings.stripeSecretKey === '') throw new ProviderUnavailable('Stripe is not connected: member-api billing set ACCOUNT --stripe-secret-key …');
    let client = this.clients.get(settings.stripeSecretKey);
    if (!client) {
      const url = new URL(this.apiUrl);
      client = new Stripe(settings.stripeSecretKey, {
        host: url.hostname,
        port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
        protocol: url.protocol === 'https:' ? 'https' : 'http',
        maxNetworkRetries: 1,
        timeout: 10_000,
        telemetry: false,
      });
      if (this.clients.size > 100) this.clients.clear();
      this.clients.set(settings.stripeSecretKey, client);
    }
    return client;
  }

  async read(request: ProviderRequest, settings: BillingSettings, plans: readonly Plan[]): Promise<BillingNotice[]> {
    if (settings.stripeWebhookSecret === '') throw new NotAuthentic('this account has no Stripe webhook secret');
    let event: Obj;
    try {
      event = Stripe.webhooks.constructEvent(request.body, request.header('stripe-signature') ?? '', settings.stripeWebhookSecret, TOLERANCE_SECONDS) as unknown as Obj;
    } catch (error) {
      throw new NotAuthentic(error instanceof Error ? error.message.split('\n')[0]! : 'bad signature');
    }
    return [noticeOf(event, plans)];
  }

  /** The subscription's period's end and price, or a dispute's customer, asked of the API where the event did not say. */
  async enrich(notice: BillingNotice, settings: BillingSettings): Promise<BillingNotice> {
    if (settings.stripeSecretKey === '') return notice;
    try {
      if ((notice.kind === 'checkout' || notice.kind === 'paid') && notice.subscription && (notice.periodEnd === undefined || notice.item === undefined)) {
        const subscription = (await this.client(settings).subscriptions.retrieve(notice.subscription)) as unknown as Obj;
        const state = subscriptionState(subscription);
        return { ...notice, periodEnd: notice.periodEnd ?? state.periodEnd, item: notice.item ?? state.item, quantity: notice.quantity ?? state.quantity };
      }
      if ((notice.kind === 'disputed' || notice.kind === 'dispute_closed') && !notice.customer && notice.charge?.startsWith('ch_')) {
        const charge = (await this.client(settings).charges.retrieve(notice.charge)) as unknown as Obj;
        return { ...notice, customer: str(charge.customer) };
      }
    } catch {
      // Best effort: the notice as it came (a checkout then grants provisional access until its invoice).
    }
    return notice;
  }

  async start(settings: BillingSettings, order: Parameters<HostedCheckout['start']>[1]): Promise<{ url: string; session: string }> {
    if (!order.plan.stripePrice) throw new ProviderUnavailable(`plan ${order.plan.name} has no Stripe price`);
    try {
      const session = await this.client(settings).checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: order.plan.stripePrice, quantity: 1 }],
        client_reference_id: order.checkout,
        ...(order.customer ? { customer: order.customer } : { customer_email: order.email }),
        success_url: order.successUrl,
        cancel_url: order.cancelUrl,
        metadata: { plan: order.plan.name, checkout: order.checkout },
        subscription_data: { metadata: { plan: order.plan.name } },
      });
      if (!session.url) throw new ProviderUnavailable('Stripe answered a checkout session without a URL');
      return { url: session.url, session: session.id };
    } catch (error) {
      throw unavailable(error);
    }
  }

  async manage(settings: BillingSettings, customer: string, returnUrl: string): Promise<string> {
    try {
      return (await this.client(settings).billingPortal.sessions.create({ customer, return_url: returnUrl })).url;
    } catch (error) {
      throw unavailable(error);
    }
  }

  async *subscriptions(settings: BillingSettings): AsyncIterable<BillingNotice> {
    const client = this.client(settings);
    try {
      for await (const subscription of client.subscriptions.list({ status: 'all', limit: 100, expand: ['data.customer'] })) {
        const sub = subscription as unknown as Obj;
        const state = subscriptionState(sub);
        const customer = sub.customer as Obj | string;
        yield {
          provider: 'stripe',
          id: `import:${sub.id}`,
          type: 'subscription.import',
          // As a checkout: the subscriber is linked to the member with its address, or made.
          kind: 'checkout',
          at: ms(sub.created) ?? 0,
          customer: str(customer),
          subscription: sub.id,
          email: typeof customer === 'object' && customer !== null && typeof customer.email === 'string' ? customer.email : undefined,
          ...state,
        };
      }
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/** A Stripe client's failure to reach the API: ProviderUnavailable with its one-line reason. */
function unavailable(error: unknown): Error {
  if (error instanceof ProviderUnavailable) return error;
  return new ProviderUnavailable(error instanceof Error ? error.message.split('\n')[0]! : String(error));
}

/** A subscription's state as our notices carry it. */
function subscriptionState(sub: Obj): Pick<BillingNotice, 'status' | 'periodEnd' | 'item' | 'quantity' | 'cancelAtPeriodEnd'> {
  const item = (sub.items?.data ?? [])[0] as Obj | undefined;
  return {
    status: typeof sub.status === 'string' ? sub.status : undefined,
    periodEnd: ms(sub.current_period_end) ?? ms(item?.current_period_end),
    item: str(item?.price) ?? str(item?.plan),
    quantity: typeof item?.quantity === 'number' ? item.quantity : undefined,
    cancelAtPeriodEnd: typeof sub.cancel_at_period_end === 'boolean' ? sub.cancel_at_period_end : undefined,
  };
}

/** A verified Stripe event as a notice. */
export function noticeOf(event: Obj, plans: readonly Plan[]): BillingNotice {
  const object = (event.data?.object ?? {}) as Obj;
  const base = { provider: 'stripe' as const, id: String(event.id), type: String(event.type), at: ms(event.created) ?? 0 };
  const as = (kind: NoticeKind, more: Partial<BillingNotice>): BillingNotice => ({ ...base, kind, ...more });
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      if (object.payment_status !== 'paid' && object.payment_status !== 'no_payment_required') return as('ignored', {});
      const planName = typeof object.metadata?.plan === 'string' ? object.metadata.plan : undefined;
      const plan = planName === undefined ? undefined : plans.find((p) => p.name === planName);
      return as('checkout', {
        checkout: str(object.client_reference_id),
        session: str(object.id),
        customer: str(object.customer),
        subscription: str(object.subscription),
        email: str(object.customer_details?.email) ?? str(object.customer_email),
        item: plan?.stripePrice ?? undefined,
        oneTime: object.mode === 'payment',
        payment: str(object.invoice) ?? str(object.payment_intent) ?? str(object.id),
        amount: typeof object.amount_total === 'number' ? object.amount_total : undefined,
        currency: str(object.currency),
      });
    }
    case 'invoice.paid':
    case 'invoice.payment_succeeded': {
      // The subscription's own line, not a proration's ("unused time on Gold" comes first in a switch's invoice).
      const lines = (object.lines?.data ?? []) as Obj[];
      const line = lines.find((l) => l.proration !== true && l.parent?.subscription_item_details?.proration !== true) ?? lines.at(-1);
      return as('paid', {
        customer: str(object.customer),
        subscription: str(object.subscription) ?? str(object.parent?.subscription_details?.subscription) ?? str(line?.subscription),
        email: str(object.customer_email),
        item: str(line?.price) ?? str(line?.pricing?.price_details?.price) ?? str(line?.plan),
        quantity: typeof line?.quantity === 'number' ? line.quantity : undefined,
        periodEnd: ms(line?.period?.end) ?? ms(object.period_end),
        payment: str(object.id),
        charge: str(object.charge) ?? str(object.payment_intent),
        amount: typeof object.amount_paid === 'number' ? object.amount_paid : undefined,
        currency: str(object.currency),
      });
    }
    case 'invoice.payment_failed':
      return as('payment_failed', {
        customer: str(object.customer),
        subscription: str(object.subscription) ?? str(object.parent?.subscription_details?.subscription),
        payment: str(object.id),
        fixUrl: str(object.hosted_invoice_url),
      });
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
      return as('subscription', { customer: str(object.customer), subscription: str(object.id), ...subscriptionState(object) });
    case 'customer.subscription.deleted':
      return as('ended', { customer: str(object.customer), subscription: str(object.id), status: 'canceled' });
    case 'charge.succeeded':
      // Nothing to change: kept so that a later dispute of this charge finds its member.
      return as('ignored', { customer: str(object.customer), charge: str(object.id), amount: object.amount, currency: str(object.currency) });
    case 'charge.refunded':
      return as('refunded', {
        customer: str(object.customer),
        charge: str(object.id),
        payment: str(object.invoice),
        amount: typeof object.amount_refunded === 'number' ? object.amount_refunded : undefined,
        currency: str(object.currency),
        fullRefund: object.refunded === true || (typeof object.amount === 'number' && object.amount_refunded >= object.amount),
      });
    case 'charge.dispute.created':
      return as('disputed', { charge: str(object.charge) ?? str(object.payment_intent), amount: object.amount, currency: str(object.currency) });
    case 'charge.dispute.closed':
    case 'charge.dispute.funds_reinstated':
      return as('dispute_closed', { charge: str(object.charge) ?? str(object.payment_intent), won: object.status === 'won' || event.type === 'charge.dispute.funds_reinstated' });
    default:
      return as('ignored', { customer: str(object.customer) });
  }
}
