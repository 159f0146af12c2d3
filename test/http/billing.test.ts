/**
 * Paid memberships through the providers' addresses, on both engines: Stripe webhooks signed as
 * Stripe signs them (the official package's test header), PayPal IPNs confirmed by a local
 * postback; each effect seen through /api2/list/, the feed and the member's billing state.
 */
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { describeEachEngineApp, PUBLIC_URL, type Harness, type Reply } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { form, signedIn } from '../support/console.js';
import { backgroundJobs } from '../../src/server.js';
import type { Config } from '../../src/config.js';
import { runRound } from '../../src/upkeep/background-jobs.js';
import { MEMBER_UPDATES } from '../../src/store/member-updates.js';
import { DAY, invoiceObject, startFakePayPal, startFakeStripe, subscriptionObject } from '../support/fake-stripe.js';

const stripe = await startFakeStripe();
const paypal = await startFakePayPal();
afterAll(async () => {
  await stripe.close();
  await paypal.close();
});

const now = () => Math.floor(Date.now() / 1000);

/** A paid checkout of the gold plan as Stripe sends it, for a payer `name` (cs_, cus_, sub_NAME; NAME@example.com). */
const paidCheckout = (name: string) => ({
  id: `cs_${name}`,
  mode: 'subscription',
  payment_status: 'paid',
  customer: `cus_${name}`,
  subscription: `sub_${name}`,
  customer_details: { email: `${name}@example.com` },
  metadata: { plan: 'gold' },
});
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describeEachEngineApp(
  'paid memberships',
  (h) => {
    async function seller(options: { onRefund?: 'suspend' | 'keep' } = {}) {
      const api = await apiAccount(h());
      const { account } = api;
      await h().services.billing.setSettings(account, {
        stripeSecretKey: 'sk_test_fake',
        stripeWebhookSecret: stripe.webhookSecret,
        paypalReceiver: 'shop@example.com',
        onRefund: options.onRefund ?? 'suspend',
      });
      await h().services.billing.addPlan(account, {
        name: 'gold',
        title: 'Gold',
        stripePrice: 'price_gold',
        paypalItem: 'GOLD',
        amount: '9.00',
        currency: 'USD',
        graceSeconds: 3 * DAY,
        fields: new Map([['plan', 'gold'], ['level', '3']]),
      });
      await h().services.billing.addPlan(account, {
        name: 'silver',
        title: 'Silver',
        stripePrice: 'price_silver',
        paypalItem: null,
        amount: null,
        currency: null,
        graceSeconds: 0,
        fields: new Map([['plan', 'silver']]),
      });
      const send = async (type: string, object: Record<string, unknown>, options: { id?: string; created?: number; timestamp?: number; secret?: string } = {}) => {
        const signed = stripe.sign(type, object, options);
        const reply = await h().request({
          url: `/billing/${api.user}/stripe`,
          payload: signed.body,
          headers: { 'content-type': 'application/json', 'stripe-signature': signed.signature },
        });
        return { ...reply, eventId: signed.id };
      };
      const record = async (login: string) =>
        (await api.list({ login_full: login, record: '{login}{status}{reg_type}{bill_pc}{bill_id}{bill_cust}{bill_subscr}{bill_item}{bill_qty}{exp_date}{plan}{level}' })).members?.[0];
      const billing = async (login: string) => {
        const member = await api.member(login);
        return h().services.billing.memberBilling(account, member!.id);
      };
      return { api, account, send, record, billing };
    }

    /** A customer's checkout and first invoice, as Stripe sends them. */
    async function subscribe(s: Awaited<ReturnType<typeof seller>>, email: string, periodEnd = now() + 30 * DAY) {
      const customer = `cus_${email.split('@')[0]}`;
      const subscription = `sub_${email.split('@')[0]}`;
      const checkout = await s.send('checkout.session.completed', {
        id: `cs_${customer}`,
        object: 'checkout.session',
        mode: 'subscription',
        payment_status: 'paid',
        customer,
        subscription,
        customer_details: { email },
        metadata: { plan: 'gold' },
      });
      expect(checkout.status, checkout.body).toBe(200);
      const invoice = await s.send('invoice.paid', invoiceObject(`in_${customer}_1`, customer, subscription, 'price_gold', periodEnd, { charge: `ch_${customer}_1` }));
      expect(invoice.status, invoice.body).toBe(200);
      return { customer, subscription, periodEnd };
    }

    it('a paid checkout makes a Paid, Active member with the seed’s bill_* fields, the plan’s fields and access until the period’s end plus the grace', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'ann@example.com');
      const listed = await s.record('ann@example.com');
      expect(listed).toMatchObject({
        status: 'Active',
        reg_type: 'Paid',
        bill_pc: 'stripe',
        bill_cust: customer,
        bill_subscr: subscription,
        bill_item: 'price_gold',
        bill_qty: '1',
        bill_id: `in_${customer}_1`,
        plan: 'gold',
        level: '3',
      });
      const member = await s.api.member('ann@example.com');
      expect(member!.timeExpiry).toEqual({ action: 'S', at: (periodEnd + 3 * DAY) * 1000 });
      expect((await s.billing('ann@example.com'))!.paidUntil).toBe(periodEnd * 1000);
      // The seed's filter and selector.
      expect(await s.api.logins({ reg_type: 'P' })).toEqual(['ann@example.com']);
      const updated = await s.api.update({ find_member_ptrans: subscription, status: 'A' });
      expect(updated.result, JSON.stringify(updated)).toBe('OK');
      // The feed tells the payment with the provider's ids.
      const types = (await s.api.events()).events.map((e: { type: string }) => e.type);
      expect(types).toContain('member.paid');
      const paid = (await s.api.events()).events.find((e: { type: string }) => e.type === 'member.paid');
      expect(paid.data).toMatchObject({ provider: 'stripe', type: 'invoice.paid', plan: 'gold', paid_until: iso(periodEnd) });
    });

    it('a repeated event changes nothing; a renewal sets access to its absolute period end, an older one never moves it back', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'bob@example.com');
      const renewal = invoiceObject(`in_${customer}_2`, customer, subscription, 'price_gold', periodEnd + 30 * DAY);
      const first = await s.send('invoice.paid', renewal, { id: 'evt_renewal_bob' });
      expect(first.json.outcomes[0].kind).toBe('applied');
      const again = await s.send('invoice.paid', renewal, { id: 'evt_renewal_bob' });
      expect(again.json.outcomes[0].kind).toBe('duplicate');
      // Sent four times at once (two servers, a retry that crossed the answer): each answered 200, applied once.
      const third = invoiceObject(`in_${customer}_3`, customer, subscription, 'price_gold', periodEnd + 60 * DAY);
      const together = await Promise.all([1, 2, 3, 4].map(() => s.send('invoice.paid', third, { id: 'evt_renewal_bob_3' })));
      expect(together.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
      expect(together.map((reply) => reply.json.outcomes[0].kind).sort()).toEqual(['applied', 'duplicate', 'duplicate', 'duplicate']);
      const feedAfter = (await s.api.events()).events.filter((e: { type: string }) => e.type === 'member.paid').length;
      expect(feedAfter).toBe(3);
      // The first invoice again, under a new event id (Stripe resends): access stays at the later end.
      await s.send('invoice.paid', invoiceObject(`in_${customer}_1`, customer, subscription, 'price_gold', periodEnd));
      expect((await s.billing('bob@example.com'))!.paidUntil).toBe((periodEnd + 60 * DAY) * 1000);
      expect((await s.api.member('bob@example.com'))!.timeExpiry!.at).toBe((periodEnd + 63 * DAY) * 1000);
      expect((await s.record('bob@example.com'))!.bill_id).toBe(`in_${customer}_1`);
    });

    it('refuses a forged or stale signature, and an account with no webhook secret', async () => {
      const s = await seller();
      const object = invoiceObject('in_x', 'cus_x', 'sub_x', 'price_gold', now() + 30 * DAY);
      const forged = await s.send('invoice.paid', object, { secret: 'whsec_someone_else' });
      expect(forged.status).toBe(400);
      const stale = await s.send('invoice.paid', object, { timestamp: now() - 301 });
      expect(stale.status).toBe(400);
      expect(stale.json.error).toMatch(/tolerance/i);
      const other = await apiAccount(h());
      const signed = stripe.sign('invoice.paid', object);
      const unconnected = await h().request({
        url: `/billing/${other.user}/stripe`,
        payload: signed.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': signed.signature },
      });
      expect(unconnected.status).toBe(400);
      expect((await h().request({ url: '/billing/no-such-account/stripe', payload: signed.body, headers: { 'content-type': 'application/json' } })).status).toBe(404);
      expect(await s.api.logins({ reg_type: 'P' })).toEqual([]);
    });

    it('an event for a customer not known yet is kept (2xx) and applied when the checkout links it', async () => {
      const s = await seller();
      const periodEnd = now() + 60 * DAY;
      // The renewal arrives before the checkout (Stripe does not promise an order).
      const early = await s.send('customer.subscription.updated', subscriptionObject('sub_cat', 'cus_cat', 'price_silver', periodEnd), { created: now() + 10 });
      expect(early.status).toBe(200);
      expect(early.json.outcomes[0].kind).toBe('pending');
      await s.send('checkout.session.completed', paidCheckout('cat'));
      const listed = await s.record('cat@example.com');
      // The kept event switched the plan to silver, as it would have in order.
      expect(listed).toMatchObject({ status: 'Active', bill_item: 'price_silver', plan: 'silver', level: '' });
      expect((await s.billing('cat@example.com'))!.plan).toBe('silver');
    });

    it('a kept notice applies once an import gives a member its customer: the billing job looks at the kept notices a window at a time', async () => {
      const s = await seller();
      const periodEnd = now() + 30 * DAY;
      // A subscriber of the site's old system pays before the import has brought it: nobody matches the payment yet.
      const early = await s.send('invoice.paid', invoiceObject('in_imp_1', 'cus_imp', 'sub_imp', 'price_gold', periodEnd));
      expect(early.json.outcomes[0].kind).toBe('pending');
      const job = backgroundJobs(h().services, { sweepIntervalSeconds: 60 } as Config).find((candidate) => candidate.name === 'billing')!;
      const loop = { log: { info: () => {}, warn: () => {} }, exclusively: <T>(_name: string, work: () => Promise<T>) => work() };
      expect(await runRound(job, loop)).toBe('ok');
      expect(await s.api.member('ivy')).toBeUndefined();
      const rows = (async function* () {
        yield { line: 2, values: new Map([['login', 'ivy'], ['email', 'ivy@example.com'], ['password', 'imported-password-1'], ['bill_cust', 'cus_imp']]) };
      })();
      expect((await h().services.importer.run(s.account, rows, { dryRun: false, keepIds: false, source: 'subscribers.csv' })).imported).toBe(1);
      expect(await runRound(job, loop)).toBe('ok');
      expect(await s.record('ivy')).toMatchObject({ status: 'Active', reg_type: 'Paid', bill_cust: 'cus_imp', bill_subscr: 'sub_imp', bill_id: 'in_imp_1', plan: 'gold' });
      expect((await s.billing('ivy'))!.paidUntil).toBe(periodEnd * 1000);
      const paid = (await s.api.events()).events.find((e: { type: string }) => e.type === 'member.paid');
      expect(paid.actor).toEqual({ kind: 'system', name: 'billing stripe' });
      // Applied once: the next rounds find nothing more to do for it.
      expect(await h().services.billing.applyKept()).toEqual({ applied: 0, failed: 0 });
      // A window of one notice at a time still reaches a kept notice behind another that nothing matches.
      await s.send('invoice.paid', invoiceObject('in_none_1', 'cus_none', 'sub_none', 'price_gold', periodEnd));
      await s.send('invoice.paid', invoiceObject('in_jay_1', 'cus_jay', 'sub_jay', 'price_gold', periodEnd));
      const more = (async function* () {
        yield { line: 2, values: new Map([['login', 'jay'], ['email', 'jay@example.com'], ['password', 'imported-password-1'], ['bill_cust', 'cus_jay']]) };
      })();
      await h().services.importer.run(s.account, more, { dryRun: false, keepIds: false, source: 'subscribers.csv' });
      let rounds = 0;
      while ((await s.record('jay'))!.bill_id !== 'in_jay_1' && rounds < 200) {
        await h().services.billing.applyKept(1);
        rounds++;
      }
      expect((await s.record('jay'))!.bill_id).toBe('in_jay_1');
      expect(rounds).toBeGreaterThan(1);
    });

    it('an older subscription state never overrides a newer one; unpaid suspends; cancel at the period’s end is noted', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'dan@example.com');
      await s.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_gold', periodEnd, { cancel_at_period_end: true }), { created: now() + 20 });
      await s.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_gold', periodEnd, { status: 'unpaid' }), { created: now() + 10 });
      expect((await s.record('dan@example.com'))!.status).toBe('Active');
      expect((await s.billing('dan@example.com'))!.cancelAtPeriodEnd).toBe(true);
      await s.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_gold', periodEnd, { status: 'unpaid' }), { created: now() + 30 });
      expect((await s.record('dan@example.com'))!.status).toBe('Suspended');
    });

    it('a failed payment keeps access and mails the member a link to fix the card', async () => {
      const s = await seller();
      const { customer, subscription } = await subscribe(s, 'eve@example.com');
      const before = (await s.api.member('eve@example.com'))!.timeExpiry;
      const failed = await s.send('invoice.payment_failed', {
        id: 'in_eve_2',
        object: 'invoice',
        customer,
        parent: { subscription_details: { subscription } },
        hosted_invoice_url: 'https://invoice.stripe.test/eve',
      });
      expect(failed.json.outcomes[0].kind).toBe('applied');
      expect((await s.record('eve@example.com'))!.status).toBe('Active');
      expect((await s.api.member('eve@example.com'))!.timeExpiry).toEqual(before);
      const event = (await s.api.events()).events.find((e: { type: string }) => e.type === 'member.payment_failed');
      expect(event.data).toMatchObject({ fix_url: 'https://invoice.stripe.test/eve' });
      expect((await s.billing('eve@example.com'))!.status).toBe('past_due');
    });

    it('a full refund suspends (or keeps, by the account’s rule); a partial one is recorded only', async () => {
      const s = await seller();
      const { customer } = await subscribe(s, 'fay@example.com');
      const partial = await s.send('charge.refunded', { id: `ch_${customer}_1`, object: 'charge', customer, amount: 900, amount_refunded: 300, refunded: false, currency: 'usd' });
      expect(partial.json.outcomes[0]).toMatchObject({ kind: 'applied', outcome: 'partial refund: recorded' });
      expect((await s.record('fay@example.com'))!.status).toBe('Active');
      await s.send('charge.refunded', { id: `ch_${customer}_1`, object: 'charge', customer, amount: 900, amount_refunded: 900, refunded: true, currency: 'usd' });
      expect((await s.record('fay@example.com'))!.status).toBe('Suspended');
      const types = (await s.api.events()).events.map((e: { type: string }) => e.type);
      expect(types.filter((t: string) => t === 'member.refunded')).toHaveLength(2);

      const keeps = await seller({ onRefund: 'keep' });
      const kept = await subscribe(keeps, 'gus@example.com');
      await keeps.send('charge.refunded', { id: `ch_${kept.customer}_1`, customer: kept.customer, amount: 900, amount_refunded: 900, refunded: true });
      expect((await keeps.record('gus@example.com'))!.status).toBe('Active');
    });

    it('a dispute suspends at once and flags the member; won restores, lost does not', async () => {
      const s = await seller();
      const { customer } = await subscribe(s, 'hal@example.com');
      // The dispute names only the charge: the member is found by the invoice that paid with it.
      await s.send('charge.dispute.created', { id: 'dp_hal', object: 'dispute', charge: `ch_${customer}_1`, amount: 900, status: 'needs_response' });
      expect((await s.record('hal@example.com'))!.status).toBe('Suspended');
      expect((await s.billing('hal@example.com'))!.disputed).toBe(true);
      await s.send('charge.dispute.closed', { id: 'dp_hal', object: 'dispute', charge: `ch_${customer}_1`, status: 'won' });
      expect((await s.record('hal@example.com'))!.status).toBe('Active');
      expect((await s.billing('hal@example.com'))!.disputed).toBe(false);

      // The opening again, arriving late (a new delivery of it, after its close): nothing changes.
      const late = await s.send('charge.dispute.created', { id: 'dp_hal', object: 'dispute', charge: `ch_${customer}_1`, amount: 900, status: 'needs_response' }, { id: 'evt_late_open' });
      expect(late.json.outcomes[0].outcome).toBe('the dispute was closed before: ignored');
      expect((await s.record('hal@example.com'))!.status).toBe('Active');

      const lost = await subscribe(s, 'ida@example.com');
      await s.send('charge.dispute.created', { id: 'dp_ida', charge: `ch_${lost.customer}_1` });
      await s.send('charge.dispute.closed', { id: 'dp_ida', charge: `ch_${lost.customer}_1`, status: 'lost' });
      expect((await s.record('ida@example.com'))!.status).toBe('Suspended');
    });

    it('a plan switch follows: bill_item and the fields (the old plan’s removed), member.plan_changed', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'jon@example.com');
      await s.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_silver', periodEnd), { created: now() + 5 });
      expect(await s.record('jon@example.com')).toMatchObject({ bill_item: 'price_silver', plan: 'silver', level: '' });
      const changed = (await s.api.events()).events.find((e: { type: string }) => e.type === 'member.plan_changed');
      expect(changed.data).toMatchObject({ from: 'gold', to: 'silver', provider: 'stripe' });
    });

    it('a deleted subscription suspends once the paid period is over, not before, and never deletes', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'kim@example.com');
      await s.send('customer.subscription.deleted', subscriptionObject(subscription, customer, 'price_gold', periodEnd, { status: 'canceled' }), { created: now() + 5 });
      expect((await s.record('kim@example.com'))!.status).toBe('Active');
      expect((await s.api.member('kim@example.com'))!.timeExpiry).toEqual({ action: 'S', at: periodEnd * 1000 });
      h().clock.set((periodEnd + 1) * 1000);
      expect((await s.record('kim@example.com'))!.status).toBe('Suspended');
    });

    it('a renewal that comes once access has run out writes the expiry down first, then gives access back', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'noa@example.com');
      // The grace (three days) is over, and no sweep has run: the renewal's own transaction expires the member first.
      h().clock.set((periodEnd + 4 * DAY) * 1000);
      const next = periodEnd + 30 * DAY;
      const renewal = await s.send('invoice.paid', invoiceObject(`in_${customer}_2`, customer, subscription, 'price_gold', next));
      expect(renewal.status, renewal.body).toBe(200);
      expect((await s.record('noa@example.com'))!.status).toBe('Active');
      expect((await s.api.member('noa@example.com'))!.timeExpiry).toEqual({ action: 'S', at: (next + 3 * DAY) * 1000 });
      const events = (await s.api.events()).events as Array<{ type: string; data: Record<string, unknown> }>;
      const expired = events.findIndex((e) => e.type === 'member.bulk_updated' && e.data.cause === 'time_expiry');
      const restored = events.findIndex((e) => e.type === 'member.status_changed' && e.data.from === 'S' && e.data.to === 'A');
      expect(expired).toBeGreaterThanOrEqual(0);
      expect(restored).toBeGreaterThan(expired);
    });

    it('concurrent events of one customer end as in order', async () => {
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'lea@example.com');
      const ends = [1, 2, 3, 4, 5].map((n) => periodEnd + n * 30 * DAY);
      const replies = await Promise.all(ends.map((end, n) => s.send('invoice.paid', invoiceObject(`in_lea_${n + 2}`, customer, subscription, 'price_gold', end))));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect((await s.billing('lea@example.com'))!.paidUntil).toBe(ends[4]! * 1000);
      expect((await s.api.member('lea@example.com'))!.timeExpiry!.at).toBe((ends[4]! + 3 * DAY) * 1000);
    });

    it('a notice whose member loses its subscription while the notice waits for it applies to the member that holds it now (PostgreSQL)', async (test) => {
      // SQLite's one writer runs notices and updates one after the other: nothing moves meanwhile.
      if (h().database.engine !== 'postgres') test.skip();
      const s = await seller();
      const { customer, subscription, periodEnd } = await subscribe(s, 'uma@example.com');
      const uma = (await s.api.member('uma@example.com'))!;
      await s.api.create('vic');
      // Another writer moves the subscription from uma to vic while holding uma's update lock:
      // the notice finds uma in its first statement, waits for her, and must not pay her.
      const other = new pg.Client({ connectionString: h().database.url });
      await other.connect();
      try {
        await other.query('begin');
        await other.query('select pg_advisory_xact_lock($1, $2)', [MEMBER_UPDATES, uma.id]);
        await other.query("update members set bill_pc = 'stripe', bill_cust = $1, bill_subscr = $2, reg_type = 'P' where account_id = $3 and login = 'vic'", [
          customer,
          subscription,
          s.account.id,
        ]);
        await other.query("update members set bill_cust = '', bill_subscr = '' where id = $1", [uma.id]);
        const next = periodEnd + 30 * DAY;
        const sent = s.send('invoice.paid', invoiceObject(`in_${customer}_2`, customer, subscription, 'price_gold', next));
        // The notice waiting for uma's lock (two 32-bit keys: classid, objid), not any other test's wait.
        const waiting = async () =>
          Number(
            (await other.query("select count(*) as n from pg_locks where locktype = 'advisory' and not granted and classid = $1 and objid = $2 and objsubid = 2", [MEMBER_UPDATES, uma.id]))
              .rows[0].n,
          );
        for (let tries = 0; (await waiting()) === 0; tries++) {
          expect(tries, 'the notice never waited for the lock').toBeLessThan(200);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        await other.query('commit');
        const reply = await sent;
        expect(reply.status, reply.body).toBe(200);
        expect(reply.json.outcomes[0]).toMatchObject({ kind: 'applied' });
        expect(await s.record('vic')).toMatchObject({ status: 'Active', bill_id: `in_${customer}_2`, plan: 'gold' });
        expect((await s.api.member('vic'))!.timeExpiry).toEqual({ action: 'S', at: (next + 3 * DAY) * 1000 });
        expect((await s.record('uma@example.com'))!.bill_id).toBe(`in_${customer}_1`);
        expect((await s.api.member('uma@example.com'))!.timeExpiry).toEqual({ action: 'S', at: (periodEnd + 3 * DAY) * 1000 });
      } finally {
        await other.end();
      }
    });

    it('a payment whose plan fields a member has no room for changes nothing, and is answered 500 so that the provider retries', async () => {
      const s = await seller();
      const fields = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`f${n}`, 'x']));
      await s.api.create('full', fields);
      const paid = await s.send('checkout.session.completed', paidCheckout('full'));
      expect(paid.status).toBe(500);
      expect(await s.record('full')).toMatchObject({ status: 'Active', reg_type: 'API', plan: '', level: '' });
      expect(await s.api.member('full')).toMatchObject({ billCust: null, billSubscr: null });
      expect(await s.billing('full')).toBeUndefined();
    });

    it('PayPal: a confirmed IPN sign-up and payment make the member; an unconfirmed one, another receiver or another price changes nothing', async () => {
      const s = await seller();
      const ipn = async (fields: Record<string, string>, confirm = true) => {
        const body = new URLSearchParams({ receiver_email: 'shop@example.com', payer_email: 'max@example.com', payer_id: 'PAYER1', item_number: 'GOLD', ...fields }).toString();
        if (confirm) paypal.sent.add(body);
        return h().request({ url: `/billing/${s.api.user}/paypal`, payload: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      };
      const forged = await ipn({ txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'T0', subscr_id: 'I-1', mc_gross: '9.00', mc_currency: 'USD' }, false);
      expect(forged.status).toBe(400);
      expect(await s.api.logins({ reg_type: 'P' })).toEqual([]);
      const signup = await ipn({ txn_type: 'subscr_signup', subscr_id: 'I-1', period3: '1 M', mc_amount3: '9.00', mc_currency: 'USD' });
      expect(signup.status, signup.body).toBe(200);
      const payment = await ipn({ txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'T1', subscr_id: 'I-1', mc_gross: '9.00', mc_currency: 'USD' });
      expect(payment.json.outcomes[0].kind).toBe('applied');
      expect(await s.record('max@example.com')).toMatchObject({ status: 'Active', reg_type: 'Paid', bill_pc: 'paypal', bill_subscr: 'I-1', bill_id: 'T1', plan: 'gold' });
      const paidUntil = (await s.billing('max@example.com'))!.paidUntil!;
      expect(paidUntil - Date.now()).toBeGreaterThan(27 * DAY * 1000);
      // A yearly subscriber whose first payment comes before its sign-up: a month, then the year once the sign-up says so.
      await ipn({ payer_email: 'yan@example.com', payer_id: 'PAYER2', txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'Y1', subscr_id: 'I-2', mc_gross: '9.00', mc_currency: 'USD' });
      const month = (await s.billing('yan@example.com'))!.paidUntil!;
      expect(month - Date.now()).toBeLessThan(32 * DAY * 1000);
      await ipn({ payer_email: 'yan@example.com', payer_id: 'PAYER2', txn_type: 'subscr_signup', subscr_id: 'I-2', period3: '1 Y', mc_amount3: '9.00', mc_currency: 'USD' });
      expect((await s.billing('yan@example.com'))!.paidUntil! - Date.now()).toBeGreaterThan(360 * DAY * 1000);
      // Repeated: nothing more.
      expect((await ipn({ txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'T1', subscr_id: 'I-1', mc_gross: '9.00', mc_currency: 'USD' })).json.outcomes[0].kind).toBe('duplicate');
      const wrongPrice = await ipn({ txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'T2', subscr_id: 'I-1', mc_gross: '1.00', mc_currency: 'USD' });
      expect(wrongPrice.json.outcomes[0]).toMatchObject({ kind: 'recorded' });
      const otherReceiver = await ipn({ receiver_email: 'thief@example.com', txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'T3', subscr_id: 'I-1', mc_gross: '9.00' });
      expect(otherReceiver.json.outcomes[0]).toMatchObject({ kind: 'recorded' });
      // A refund of the whole payment suspends; a reversal flags; its cancellation restores.
      await ipn({ payment_status: 'Refunded', txn_id: 'T1R', parent_txn_id: 'T1', subscr_id: 'I-1', mc_gross: '-9.00', mc_currency: 'USD' });
      expect((await s.record('max@example.com'))!.status).toBe('Suspended');
      await ipn({ txn_type: 'subscr_payment', payment_status: 'Completed', txn_id: 'T4', subscr_id: 'I-1', mc_gross: '9.00', mc_currency: 'USD' });
      expect((await s.record('max@example.com'))!.status).toBe('Active');
      await ipn({ payment_status: 'Reversed', txn_id: 'T4V', parent_txn_id: 'T4', subscr_id: 'I-1', mc_gross: '-9.00' });
      expect((await s.record('max@example.com'))!.status).toBe('Suspended');
      await ipn({ payment_status: 'Canceled_Reversal', txn_id: 'T4C', parent_txn_id: 'T4', subscr_id: 'I-1', mc_gross: '9.00' });
      expect((await s.record('max@example.com'))!.status).toBe('Active');
    });

    it('joins through the member pages: the plans, a Stripe Checkout session made by the official client, a page that confirms then signs in once, the profile’s plan and Manage billing', async () => {
      const s = await seller();
      const jar = new Map<string, string>();
      const keep = (reply: Reply) => {
        for (const line of [reply.headers['set-cookie'] ?? []].flat().map(String)) {
          const [pair] = line.split(';');
          const at = pair!.indexOf('=');
          const value = pair!.slice(at + 1);
          if (value === '') jar.delete(pair!.slice(0, at));
          else jar.set(pair!.slice(0, at), value);
        }
        return reply;
      };
      const headers = (extra: Record<string, string> = {}) => ({ cookie: [...jar].map(([n, v]) => `${n}=${v}`).join('; '), ...extra });
      const get = async (path: string) => keep(await h().request({ method: 'GET', url: path, headers: headers() }));
      const post = async (path: string, params: Record<string, string>) =>
        keep(
          await h().request({
            url: path,
            payload: new URLSearchParams(params).toString(),
            headers: headers({ 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: PUBLIC_URL }),
          }),
        );
      const base = `/auth/${s.api.user}/`;
      // Free registration is off here: registering is joining.
      expect((await get(`${base}?action=reg`)).body).toContain('<form id="join-form"');
      const page = await get(`${base}?action=join`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('value="gold"');
      expect(page.body).toContain('Gold — 9.00 USD');
      // Every problem at once, nothing started.
      const sessionsBefore = stripe.sessions.size;
      const refused = await post(`${base}join`, { plan: 'gold', login: '', email: 'nope', password: 'x', confirm: 'x' });
      expect(refused.status).toBe(400);
      expect(refused.body).toContain('This field is required');
      expect(stripe.sessions.size).toBe(sessionsBefore);
      const started = await post(`${base}join`, { plan: 'gold', login: 'olga', email: 'olga@example.com', password: 'correct-horse-9', confirm: 'correct-horse-9' });
      expect(started.status, started.body).toBe(303);
      const session = [...stripe.sessions.values()].at(-1)!;
      expect(String(started.headers.location)).toBe(session.url);
      expect(session).toMatchObject({ mode: 'subscription', price: 'price_gold', customer_email: 'olga@example.com', metadata: { plan: 'gold' } });
      const checkout = session.client_reference_id as string;
      expect(session.success_url).toBe(`${PUBLIC_URL}${base}joined?checkout=${checkout}`);
      // Back before the webhook: a page that refreshes itself, nobody signed in yet.
      const waiting = await get(`${base}joined?checkout=${checkout}`);
      expect(waiting.status).toBe(200);
      expect(waiting.headers.refresh).toBe('2');
      expect(await s.api.member('olga')).toBeUndefined();
      // Stripe's webhooks land.
      await s.send('checkout.session.completed', { ...session, customer: 'cus_olga', subscription: 'sub_olga', payment_status: 'paid', customer_details: { email: 'olga@example.com' } });
      await s.send('invoice.paid', invoiceObject('in_olga_1', 'cus_olga', 'sub_olga', 'price_gold', now() + 30 * DAY));
      expect(await s.record('olga')).toMatchObject({ status: 'Active', reg_type: 'Paid', bill_cust: 'cus_olga', plan: 'gold' });
      // Another browser (no checkout cookie) is not signed in by the address.
      const stranger = await h().request({ method: 'GET', url: `${base}joined?checkout=${checkout}` });
      expect(stranger.status).toBe(410);
      const signedIn = await get(`${base}joined?checkout=${checkout}`);
      expect(signedIn.status).toBe(303);
      expect(String(signedIn.headers.location)).toBe(`${base}profile`);
      expect(jar.has(`member_${s.api.user}`)).toBe(true);
      const profile = await get(`${base}profile`);
      expect(profile.body).toContain('Welcome, olga: your Gold membership is active.');
      expect(profile.body).toContain('Plan: Gold');
      expect(profile.body).toMatch(/Paid until \d{4}-\d{2}-\d{2}/);
      expect(profile.body).toContain('Manage billing');
      // Once: the confirmation page does not sign in again.
      expect((await get(`${base}joined?checkout=${checkout}`)).status).toBe(410);
      // Its password is the one chosen at the checkout.
      expect((await s.api.login('olga', 'correct-horse-9')).result).toBe('OK');
      const portal = await post(`${base}billing`, {});
      expect(portal.status).toBe(303);
      expect(String(portal.headers.location)).toMatch(new RegExp(`^${stripe.url}/portal/`));
      expect(stripe.requests.at(-1)!.body.get('customer')).toBe('cus_olga');
      // A member that pays already is not sold a second subscription: the join page sends it to the portal.
      const again = await get(`${base}?action=join`);
      expect(again.body).toContain('You pay for the Gold plan already.');
      expect(again.body).not.toContain('<form id="join-form"');
      expect(again.body).toContain(`action="${base}billing"`);
      const sessionsNow = stripe.sessions.size;
      const second = await post(`${base}join`, { plan: 'silver' });
      expect(second.status).toBe(409);
      expect(second.body).toContain('You pay for the Gold plan already.');
      expect(stripe.sessions.size).toBe(sessionsNow);
      // Canceled at its period's end: it is renewed in the portal, not bought again beside it.
      await s.send('customer.subscription.updated', subscriptionObject('sub_olga', 'cus_olga', 'price_gold', now() + 30 * DAY, { cancel_at_period_end: true }), { created: now() + 2 });
      const ending = await get(`${base}?action=join`);
      expect(ending.body).toContain('Your Gold plan ends at the close of its period.');
      expect(ending.body).not.toContain('<form id="join-form"');
      // Once the subscription has ended (deleted, its period over), the member may buy again.
      await s.send('customer.subscription.deleted', { ...subscriptionObject('sub_olga', 'cus_olga', 'price_gold', now() - 60), status: 'canceled' }, { created: now() + 5 });
      expect((await get(`${base}?action=join`)).body).toContain('<form id="join-form"');
    });

    it('the console’s Plans page: owners add and remove plans and connect providers (secrets masked, every problem named); a member’s payments and a grant without payment', async () => {
      const s = await seller();
      const owner = await signedIn(h(), `owner-${s.api.user}@example.com`, s.api.user, 'owner');
      const editor = await signedIn(h(), `editor-${s.api.user}@example.com`, s.api.user, 'editor');
      const path = `/admin/accounts/${s.api.user}/plans`;
      const page = await h().request({ method: 'GET', url: path, headers: { cookie: owner } });
      expect(page.status).toBe(200);
      expect(page.body).toContain('<code>price_gold</code>');
      expect(page.body).toContain(`${PUBLIC_URL}/billing/${s.api.user}/stripe`);
      // The secrets are never shown: their kind and last four characters.
      expect(page.body).not.toContain('sk_test_fake');
      expect(page.body).toContain('placeholder="sk_test_…fake"');
      expect(page.body).not.toContain(stripe.webhookSecret);
      expect((await h().request({ method: 'GET', url: path, headers: { cookie: editor } })).status).toBe(403);
      // Every problem at once, by its field, what was typed kept.
      const refused = await form(h(), `${path}/add`, { name: 'bad name', 'stripe-price': 'gold', grace: 'soon', fields: 'level' }, owner);
      expect(refused.status).toBe(400);
      expect(refused.body).toContain('1 to 64 of letters');
      expect(refused.body).toContain('a Stripe price id begins with price_');
      expect(refused.body).toContain('a duration such as 3d');
      expect(refused.body).toContain('NAME=VALUE');
      expect(refused.body).toContain('value="soon"');
      const added = await form(h(), `${path}/add`, { name: 'bronze', title: 'Bronze', 'stripe-price': 'price_bronze', grace: '12h', fields: 'plan=bronze, level=1' }, owner);
      expect(added.status).toBe(303);
      const bronze = (await h().services.billing.plans(s.account)).find((plan) => plan.name === 'bronze');
      expect(bronze).toMatchObject({ title: 'Bronze', stripePrice: 'price_bronze', graceSeconds: 43_200 });
      expect(Object.fromEntries(bronze!.fields)).toEqual({ plan: 'bronze', level: '1' });
      expect((await form(h(), `${path}/add`, { name: 'bronze', 'stripe-price': 'price_x' }, owner)).status).toBe(409);
      expect((await form(h(), `${path}/remove`, { name: 'bronze' }, owner)).status).toBe(303);
      expect((await h().services.billing.plans(s.account)).map((plan) => plan.name)).toEqual(['gold', 'silver']);
      // An empty secret field keeps the secret; a bad one is refused by name.
      const bad = await form(h(), `${path}/settings`, { 'stripe-secret-key': 'pk_live_public', 'on-refund': 'keep' }, owner);
      expect(bad.status).toBe(400);
      expect(bad.body).toContain('a Stripe secret key begins with sk_ or rk_');
      expect((await form(h(), `${path}/settings`, { 'stripe-secret-key': '', 'paypal-receiver': 'shop@example.com', 'on-refund': 'keep' }, owner)).status).toBe(303);
      expect(await h().services.billing.settings(s.account)).toMatchObject({ stripeSecretKey: 'sk_test_fake', onRefund: 'keep' });
      // A member's payments, with the provider's ids; an editor grants access without payment.
      await subscribe(s, 'pia@example.com');
      const member = await s.api.member('pia@example.com');
      const memberPage = await h().request({ method: 'GET', url: `/admin/accounts/${s.api.user}/members/${member!.id}`, headers: { cookie: editor } });
      expect(memberPage.body).toContain('stripe invoice.paid');
      expect(memberPage.body).toContain('in_cus_pia_1');
      expect(memberPage.body).toContain('9.00 USD');
      expect(memberPage.body).toMatch(/paid: stripe invoice\.paid evt_/);
      const day = new Date(Date.now() + 100 * DAY * 1000).toISOString().slice(0, 10);
      const comped = await form(h(), `/admin/accounts/${s.api.user}/members/${member!.id}/comp`, { until: day }, editor);
      expect(comped.status).toBe(303);
      expect(await s.record('pia@example.com')).toMatchObject({ reg_type: 'Manual', status: 'Active', exp_date: day });
      expect((await form(h(), `/admin/accounts/${s.api.user}/members/${member!.id}/comp`, { until: '2001-01-01' }, editor)).status).toBe(400);
    });

    it('trusts a checkout id only with the session made for it; an invoice before its checkout waits for it; a price that is no plan’s grants nothing; a renewal never lifts an operator’s suspension', async () => {
      const s = await seller();
      // A visitor's checkout, then a payment elsewhere that names it (a payment link with client_reference_id): it does not link the checkout.
      await s.api.create('victim', { _email: 'victim@example.com' });
      await h().services.store.billing.createCheckout({ id: 'chk_x', accountId: s.account.id, plan: 'gold', memberId: null, login: 'mallory', email: 'mallory@example.com', passwordHash: '!x', language: '', createdAt: Date.now() });
      await h().services.store.billing.setCheckoutSession('chk_x', 'cs_ours');
      await s.send('checkout.session.completed', { id: 'cs_theirs', mode: 'subscription', payment_status: 'paid', client_reference_id: 'chk_x', customer: 'cus_m', subscription: 'sub_m', customer_details: { email: 'victim@example.com' }, metadata: { plan: 'gold' } });
      expect((await h().services.billing.checkout(s.account, 'chk_x'))!.memberId).toBeNull();
      expect(await s.api.member('mallory')).toBeUndefined();
      // The invoice before its checkout: kept; the checkout then makes the member with its own login.
      await h().services.store.billing.createCheckout({ id: 'chk_q', accountId: s.account.id, plan: 'gold', memberId: null, login: 'quinn', email: 'quinn@example.com', passwordHash: '!x', language: '', createdAt: Date.now() });
      await h().services.store.billing.setCheckoutSession('chk_q', 'cs_q');
      const early = await s.send('invoice.paid', invoiceObject('in_q_1', 'cus_q', 'sub_q', 'price_gold', now() + 30 * DAY, { customer_email: 'quinn@example.com' }));
      expect(early.json.outcomes[0].kind).toBe('pending');
      await s.send('checkout.session.completed', { id: 'cs_q', mode: 'subscription', payment_status: 'paid', client_reference_id: 'chk_q', customer: 'cus_q', subscription: 'sub_q', customer_details: { email: 'quinn@example.com' }, metadata: { plan: 'gold' } });
      expect(await s.api.logins({ email_full: 'quinn@example.com' })).toEqual(['quinn']);
      expect((await s.record('quinn'))!.bill_id).toBe('in_q_1');
      // Another product's price: refused, nobody made.
      const other = await s.send('invoice.paid', invoiceObject('in_z_1', 'cus_z', 'sub_z', 'price_ebook', now() + 30 * DAY));
      expect(other.json.outcomes[0]).toEqual({ kind: 'recorded', outcome: "price price_ebook is no plan's" });
      // An operator suspends a paid member: the next renewal leaves it suspended.
      const { customer, subscription, periodEnd } = await subscribe(s, 'rex@example.com');
      await s.api.update({ find_member_email: 'rex@example.com', status: 'S' });
      await s.send('invoice.paid', invoiceObject('in_rex_2', customer, subscription, 'price_gold', periodEnd + 30 * DAY));
      expect(await s.record('rex@example.com')).toMatchObject({ status: 'Suspended', bill_id: 'in_rex_2' });
    });

    it('a signed-in member’s checkout completes: its confirmation page goes on to the profile', async () => {
      const s = await seller();
      await s.api.create('sam', { _email: 'sam@example.com' });
      const member = await s.api.member('sam');
      await h().services.store.billing.createCheckout({ id: 'chk_sam', accountId: s.account.id, plan: 'gold', memberId: member!.id, login: '', email: 'sam@example.com', passwordHash: '', language: '', createdAt: Date.now() });
      await h().services.store.billing.setCheckoutSession('chk_sam', 'cs_sam');
      await s.send('checkout.session.completed', { id: 'cs_sam', mode: 'subscription', payment_status: 'paid', client_reference_id: 'chk_sam', customer: 'cus_sam', subscription: 'sub_sam', customer_details: { email: 'sam@example.com' }, metadata: { plan: 'gold' } });
      expect((await h().services.billing.checkout(s.account, 'chk_sam'))!.completedAt).not.toBeNull();
      expect(await s.record('sam')).toMatchObject({ reg_type: 'Paid', bill_cust: 'cus_sam', plan: 'gold' });
    });

    it('an operator’s grant without payment: Manual, Active until the date', async () => {
      const s = await seller();
      await s.api.create('nia');
      await s.api.update({ find_member_login: 'nia', status: 'S' });
      const member = await s.api.member('nia');
      const until = Date.now() + 10 * DAY * 1000;
      expect(await h().services.billing.comp(s.account, member!.id, until, { actor: 'operator', email: 'op@example.com' })).toBe(true);
      expect(await s.record('nia')).toMatchObject({ reg_type: 'Manual', status: 'Active' });
      expect((await s.api.member('nia'))!.timeExpiry).toEqual({ action: 'S', at: until });
    });
  },
  { env: { STRIPE_API_URL: stripe.url, PAYPAL_IPN_URL: paypal.url } },
);

/** The harness type, for helpers above. */
export type { Harness };
