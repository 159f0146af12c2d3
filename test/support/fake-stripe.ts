/**
 * A local fake of the Stripe API, for the calls member-api makes through the official client
 * (checkout sessions, billing portal sessions, subscriptions, charges), with the wire format
 * the client reads (form-encoded requests, JSON objects with `object` and `id`, list objects).
 * It also serves a "hosted checkout" page whose Pay button makes the customer, subscription and
 * invoice, sends the signed webhooks Stripe would (checkout.session.completed, invoice.paid) to
 * `webhookUrl`, and redirects to the session's success URL. Events are signed with
 * `Stripe.webhooks.generateTestHeaderString`, as Stripe's own test tooling does.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type Obj = Record<string, any>;

export interface FakeStripe {
  readonly url: string;
  /** Where the Pay button's webhooks go (set by the test). */
  webhookUrl: string;
  webhookSecret: string;
  /** The Pay button's webhooks are sent this long after the browser is sent back (0: before), as Stripe's often arrive. */
  webhookDelayMs: number;
  readonly sessions: Map<string, Obj>;
  readonly subscriptions: Map<string, Obj>;
  readonly charges: Map<string, Obj>;
  /** Every API request: method and path. */
  readonly requests: Array<{ method: string; path: string; body: URLSearchParams }>;
  /** A signed event as Stripe sends it: its body and its Stripe-Signature header. */
  sign(type: string, object: Obj, options?: { id?: string; created?: number; timestamp?: number; secret?: string }): { body: string; signature: string; id: string };
  /** Sends a signed event to `webhookUrl`; answers the status. */
  send(type: string, object: Obj, options?: { id?: string; created?: number }): Promise<number>;
  close(): Promise<void>;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

export const DAY = 86_400;

/** A subscription object of the API (basil shape: the period's end on its item). */
export function subscriptionObject(id: string, customer: string, price: string, periodEnd: number, more: Obj = {}): Obj {
  return {
    id,
    object: 'subscription',
    customer,
    status: 'active',
    cancel_at_period_end: false,
    created: periodEnd - 30 * DAY,
    items: { object: 'list', data: [{ id: `si_${id}`, object: 'subscription_item', price: { id: price, object: 'price' }, quantity: 1, current_period_end: periodEnd }] },
    ...more,
  };
}

/** An invoice.paid object, as the basil API version sends it. */
export function invoiceObject(id: string, customer: string, subscription: string, price: string, periodEnd: number, more: Obj = {}): Obj {
  return {
    id,
    object: 'invoice',
    customer,
    customer_email: null,
    amount_paid: 900,
    currency: 'usd',
    parent: { type: 'subscription_details', subscription_details: { subscription } },
    lines: { object: 'list', data: [{ id: `il_${id}`, object: 'line_item', period: { start: periodEnd - 30 * DAY, end: periodEnd }, pricing: { price_details: { price } }, quantity: 1 }] },
    ...more,
  };
}

export async function startFakeStripe(): Promise<FakeStripe> {
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const charges = new Map<string, Obj>();
  const requests: FakeStripe['requests'] = [];
  let base = '';

  const fake: FakeStripe = {
    get url() {
      return base;
    },
    webhookUrl: '',
    webhookSecret: 'whsec_fake_secret_for_tests',
    webhookDelayMs: 0,
    sessions,
    subscriptions,
    charges,
    requests,
    sign(type, object, options = {}) {
      const id = options.id ?? nextId('evt');
      const body = JSON.stringify({
        id,
        object: 'event',
        api_version: '2025-08-27.basil',
        created: options.created ?? Math.floor(Date.now() / 1000),
        livemode: false,
        type,
        data: { object },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? fake.webhookSecret, timestamp: options.timestamp });
      return { body, signature, id };
    },
    async send(type, object, options = {}) {
      const { body, signature } = fake.sign(type, object, options);
      const response = await fetch(fake.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body });
      return response.status;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', base);
    const text = await bodyOf(request);
    const form = new URLSearchParams(text);
    requests.push({ method: request.method ?? 'GET', path: url.pathname, body: form });
    const json = (status: number, value: Obj) => {
      response.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req') });
      response.end(JSON.stringify(value));
    };
    const missing = () => json(404, { error: { type: 'invalid_request_error', message: `No such object: ${url.pathname}` } });
    const [, first, second, third, fourth] = url.pathname.split('/');
    if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const id = nextId('cs');
      const session = {
        id,
        object: 'checkout.session',
        url: `${base}/checkout/${id}`,
        mode: form.get('mode'),
        client_reference_id: form.get('client_reference_id'),
        customer: form.get('customer'),
        customer_email: form.get('customer_email'),
        success_url: form.get('success_url'),
        cancel_url: form.get('cancel_url'),
        metadata: { plan: form.get('metadata[plan]'), checkout: form.get('metadata[checkout]') },
        price: form.get('line_items[0][price]'),
        payment_status: 'unpaid',
        status: 'open',
      };
      sessions.set(id, session);
      return json(200, session);
    }
    if (request.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
      const id = nextId('bps');
      return json(200, { id, object: 'billing_portal.session', customer: form.get('customer'), return_url: form.get('return_url'), url: `${base}/portal/${id}` });
    }
    if (request.method === 'GET' && first === 'v1' && second === 'subscriptions' && third) {
      const subscription = subscriptions.get(third);
      return subscription ? json(200, subscription) : missing();
    }
    if (request.method === 'GET' && first === 'v1' && second === 'subscriptions') {
      const data = [...subscriptions.values()].map((s) => ({ ...s, customer: { id: s.customer, object: 'customer', email: s.email ?? null } }));
      return json(200, { object: 'list', data, has_more: false, url: '/v1/subscriptions' });
    }
    if (request.method === 'GET' && first === 'v1' && second === 'charges' && third) {
      const charge = charges.get(third);
      return charge ? json(200, charge) : missing();
    }
    if (request.method === 'GET' && first === 'checkout' && second && sessions.has(second)) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end(
        `<!doctype html><title>Fake Stripe Checkout</title><h1>Pay for ${sessions.get(second)!.metadata.plan}</h1><form method="post" action="/checkout/${second}/pay"><button>Pay</button></form>`,
      );
    }
    if (request.method === 'POST' && first === 'checkout' && second && third === 'pay' && sessions.has(second)) {
      const session = sessions.get(second)!;
      const customer = session.customer ?? nextId('cus');
      const subscription = nextId('sub');
      const periodEnd = Math.floor(Date.now() / 1000) + 30 * DAY;
      const charge = nextId('ch');
      subscriptions.set(subscription, { ...subscriptionObject(subscription, customer, session.price, periodEnd), email: session.customer_email });
      charges.set(charge, { id: charge, object: 'charge', customer, amount: 900, currency: 'usd' });
      Object.assign(session, { customer, subscription, payment_status: 'paid', status: 'complete', customer_details: { email: session.customer_email } });
      const deliver = async () => {
        await fake.send('checkout.session.completed', session);
        await fake.send('invoice.paid', invoiceObject(nextId('in'), customer, subscription, session.price, periodEnd, { charge }));
      };
      if (fake.webhookDelayMs === 0) await deliver();
      else setTimeout(() => void deliver().catch(() => {}), fake.webhookDelayMs);
      response.writeHead(303, { location: session.success_url });
      return response.end();
    }
    if (request.method === 'GET' && first === 'portal' && second) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return response.end('<!doctype html><title>Fake Stripe portal</title><h1>Manage your subscription</h1>');
    }
    void fourth;
    return missing();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** PayPal's IPN postback: VERIFIED only for a body it sent (those `sent` holds), else INVALID. */
export async function startFakePayPal(): Promise<{ url: string; sent: Set<string>; asked: string[]; close(): Promise<void> }> {
  const sent = new Set<string>();
  const asked: string[] = [];
  const server = createServer(async (request, response) => {
    const text = await bodyOf(request);
    asked.push(text);
    const prefix = 'cmd=_notify-validate&';
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(text.startsWith(prefix) && sent.has(text.slice(prefix.length)) ? 'VERIFIED' : 'INVALID');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cgi-bin/webscr`,
    sent,
    asked,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
