/**
 * Selling memberships, end to end, on both engines: `member-api serve` with STRIPE_API_URL at a
 * local fake of Stripe's API (test/support/fake-stripe.ts), behind nginx (`auth_request`) on the
 * site's own origin (PUBLIC_URL), set up with the command line as a site owner does. In a real
 * Chromium a visitor opens a gold page (sent to sign in), joins (the plans, its login and
 * password), pays on the fake hosted checkout, comes back to the page that confirms the payment
 * and is signed in, and opens the gold page. Then Stripe's events, signed as Stripe signs them,
 * arrive at the server: a renewal, a failed payment (its mail received by a real SMTP server),
 * a cancellation at the period's end, a plan switch, a refund, a dispute won and one lost;
 * each seen through /api2/list/, the profile page and the proxy's check.
 *
 * Skipped when Chromium or nginx is not installed, unless CI is set (.ci/run installs them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, freePort, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { axeViolations, operatorThroughLink, post, screenshotPath, text } from '../support/browser.js';
import { DAY, invoiceObject, startFakeStripe, subscriptionObject, type FakeStripe } from '../support/fake-stripe.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';

const CI = Boolean(process.env.CI);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const canRun = (existsSync(CHROMIUM) && existsSync(NGINX)) || CI;
const PASSWORD = 'paid-horse-battery';


/** The site: member pages under /auth/ (their stylesheet under /assets/), the console under /admin/, a gold-only folder checked by auth_request with a level. */
function nginxConfig(dir: string, port: number, memberApi: string, root: string): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 64; }
http {
    types { text/html html; }
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
    server {
        listen 127.0.0.1:${port};
        root ${root};
        location /assets/ {
            proxy_pass http://${memberApi};
        }
        location /admin/ {
            proxy_pass http://${memberApi};
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        }
        location /auth/ {
            proxy_pass http://${memberApi};
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
        }
        location = /auth-gold {
            internal;
            proxy_pass http://${memberApi}/auth/demo/check?require=plan:gold;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header Host $http_host;
        }
        location @signin {
            return 302 /auth/demo/?action=ppreturn&url=$scheme://$http_host$request_uri;
        }
        location /gold/ {
            auth_request /auth-gold;
            error_page 401 = @signin;
            add_header Cache-Control "private, no-store" always;
        }
    }
}
`;
}

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`paid memberships in a browser [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let nginx: ChildProcess | undefined;
    let site: string;
    let env: Record<string, string>;
    let key: string;
    let stripe: FakeStripe;
    let smtp: MailCatcher;
    let browser: Browser;
    let page: Page;
    let dir: string;

    const api = (path: string, params: Record<string, string>) => post(`${server.url}/api2/${path}/`, { user: 'demo', api_key: key, ...params });
    const listed = async (login: string) =>
      (await api('list', { login_full: login, record: '{login}{status}{reg_type}{bill_pc}{bill_cust}{bill_subscr}{bill_item}{bill_id}{exp_date}{plan}' })).members[0];
    const shot = (name: string) => (engine === 'sqlite' ? page.screenshot({ path: screenshotPath(`paid-${name}`, { forDocs: false }), fullPage: true }) : Promise.resolve());
    /** Whether the gold page opens for the browser's member now (the proxy's check answers it). */
    const goldOpens = async () => {
      await page.goto(`${site}/gold/`);
      return (await text(page.locator('h1'))) === 'Gold members only';
    };

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      stripe = await startFakeStripe();
      smtp = await startSmtp();
      const port = await freePort();
      site = `http://127.0.0.1:${port}`;
      env = { DATABASE_URL: database.url };
      server = await startServe({ ...env, TRUST_PROXY: '127.0.0.1', PUBLIC_URL: site, STRIPE_API_URL: stripe.url, SWEEP_INTERVAL_SECONDS: '1' });
      key = server.demoKey();
      stripe.webhookUrl = `${server.url}/billing/demo/stripe`;
      for (const args of [
        ['billing', 'set', 'demo', '--stripe-secret-key', 'sk_test_fake_key_1234', '--stripe-webhook-secret', stripe.webhookSecret],
        ['plan', 'add', 'demo', 'gold', '--stripe-price', 'price_gold', '--title', 'Gold', '--grace', '3d', '--field', 'plan=gold'],
        ['plan', 'add', 'demo', 'silver', '--stripe-price', 'price_silver', '--title', 'Silver', '--field', 'plan=silver'],
        ['account', 'set', 'demo', '--smtp-url', smtp.url, '--mail-from', 'shop@example.com', '--return-origins', site],
      ]) {
        const done = await runCli(args, env);
        expect(done.code, done.stderr).toBe(0);
      }
      dir = mkdtempSync(join(tmpdir(), 'member-api-paid-'));
      chmodSync(dir, 0o755);
      const root = join(dir, 'site');
      mkdirSync(join(root, 'gold'), { recursive: true });
      writeFileSync(join(root, 'gold', 'index.html'), '<!doctype html><title>Site</title><h1>Gold members only</h1>\n');
      writeFileSync(join(dir, 'nginx.conf'), nginxConfig(dir, port, new URL(server.url).host, root));
      nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: 'ignore' });
      for (let waited = 0; ; waited += 100) {
        const answer = await fetch(`${site}/auth/demo/`).catch(() => undefined);
        if (answer?.status === 200) break;
        if (waited > 20_000) throw new Error('nginx did not start');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      browser = await chromium.launch({ executablePath: CHROMIUM });
      page = await (await browser.newContext()).newPage();
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      nginx?.kill('SIGTERM');
      if (nginx) await exitOf(nginx);
      server?.child.kill('SIGTERM');
      if (server) await exitOf(server.child);
      await stripe?.close();
      await smtp?.close();
      await database?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('a visitor joins, pays on the hosted checkout, comes back signed in, and the gold page opens', async () => {
      expect(await goldOpens()).toBe(false);
      expect(new URL(page.url()).pathname).toBe('/auth/demo/');
      await page.goto(`${site}/auth/demo/?action=join`);
      expect(await text(page.locator('h1'))).toBe('Join demo');
      expect(await page.locator('input[name=plan]').count()).toBe(2);
      await page.check('#plan-gold');
      await page.fill('#login', 'paula');
      await page.fill('#email', 'paula@example.com');
      await page.fill('#password', PASSWORD);
      await page.fill('#confirm', PASSWORD);
      await shot('join');
      await Promise.all([page.waitForURL(`${stripe.url}/checkout/**`), page.click('#join-form button[type=submit]')]);
      expect(await text(page.locator('h1'))).toBe('Pay for gold');
      // Paying sends the browser back to the site's confirmation page, which refreshes itself
      // (no script) until Stripe's webhooks have landed, a moment later, then signs in.
      stripe.webhookDelayMs = 2500;
      await Promise.all([page.waitForURL(`${site}/auth/demo/joined?**`), page.click('button')]);
      expect(await text(page.locator('h1'))).toBe('Confirming your payment');
      await shot('confirming');
      await page.waitForURL(`${site}/auth/demo/profile`, { timeout: 20_000 });
      stripe.webhookDelayMs = 0;
      expect(await text(page.locator('.notice'))).toBe('Welcome, paula: your Gold membership is active.');
      expect(await text(page.locator('#billing'))).toContain('Plan: Gold');
      expect(await text(page.locator('#billing'))).toMatch(/Paid until \d{4}-\d{2}-\d{2}/);
      await shot('profile');
      expect(await listed('paula')).toMatchObject({ status: 'Active', reg_type: 'Paid', bill_pc: 'stripe', bill_item: 'price_gold', plan: 'gold' });
      expect(await goldOpens()).toBe(true);
      // Manage billing opens the provider's customer portal for this customer.
      await page.goto(`${site}/auth/demo/profile`);
      await Promise.all([page.waitForURL(`${stripe.url}/portal/**`), page.click('#billing button')]);
      expect(await text(page.locator('h1'))).toBe('Manage your subscription');
      // Joining again while paying: no second subscription, the way to the portal instead.
      await page.goto(`${site}/auth/demo/?action=join`);
      expect(await text(page.locator('main'))).toContain('You pay for the Gold plan already.');
      expect(await page.locator('#join-form').count()).toBe(0);
      await shot('join-paying');
    });

    it('the provider’s events after it: renewal, failed payment mailed, cancellation, plan switch, refund, disputes', async () => {
      const member = await listed('paula');
      const customer = member.bill_cust as string;
      const subscription = member.bill_subscr as string;
      const period = stripe.subscriptions.get(subscription)!.items.data[0].current_period_end as number;
      const now = () => Math.floor(Date.now() / 1000);
      // A renewal: access to its absolute period end plus the grace.
      expect(await stripe.send('invoice.paid', invoiceObject('in_paula_2', customer, subscription, 'price_gold', period + 30 * DAY))).toBe(200);
      const renewed = new Date((period + 33 * DAY) * 1000).toISOString().slice(0, 10);
      expect(await listed('paula')).toMatchObject({ bill_id: 'in_paula_2', exp_date: renewed });
      // A failed payment: access kept, the member mailed a link to fix its card.
      const mailsBefore = smtp.mails.length;
      expect(
        await stripe.send('invoice.payment_failed', { id: 'in_paula_3', object: 'invoice', customer, parent: { subscription_details: { subscription } }, hosted_invoice_url: 'https://pay.stripe.test/in_paula_3' }),
      ).toBe(200);
      const mails = await smtp.waitFor(mailsBefore + 1);
      const failedMail = mails.find((mail) => mail.subject === 'Your payment to demo did not go through');
      expect(failedMail?.to).toEqual(['paula@example.com']);
      expect(failedMail?.text).toContain('https://pay.stripe.test/in_paula_3');
      expect(await goldOpens()).toBe(true);
      await page.goto(`${site}/auth/demo/profile`);
      expect(await text(page.locator('#billing .alert'))).toBe('Your latest payment did not go through: update your payment method to keep access.');
      // Cancelled at the period's end: still a member, and told when it ends.
      await stripe.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_gold', period + 30 * DAY, { cancel_at_period_end: true }), { created: now() + 1 });
      await page.goto(`${site}/auth/demo/profile`);
      expect(await text(page.locator('#billing'))).toContain('it will not renew');
      // A plan switch: the fields follow, and the gold page closes.
      await stripe.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_silver', period + 30 * DAY), { created: now() + 2 });
      expect(await listed('paula')).toMatchObject({ bill_item: 'price_silver', plan: 'silver' });
      expect(await goldOpens()).toBe(false);
      await stripe.send('customer.subscription.updated', subscriptionObject(subscription, customer, 'price_gold', period + 30 * DAY), { created: now() + 3 });
      expect(await goldOpens()).toBe(true);
      // A dispute suspends at once; won, access is back.
      const charge = [...stripe.charges.values()].find((c) => c.customer === customer)!.id as string;
      // Each later event made later, as Stripe's are (an event older than the state held is ignored).
      const later = (n: number) => ({ created: now() + 10 + n });
      await stripe.send('charge.dispute.created', { id: 'dp_1', object: 'dispute', charge, amount: 900 }, later(1));
      expect((await listed('paula')).status).toBe('Suspended');
      expect(await goldOpens()).toBe(false);
      await stripe.send('charge.dispute.closed', { id: 'dp_1', object: 'dispute', charge, status: 'won' }, later(2));
      expect((await listed('paula')).status).toBe('Active');
      // A full refund suspends; the member has to sign in again and cannot.
      await stripe.send('charge.refunded', { id: charge, object: 'charge', customer, amount: 900, amount_refunded: 900, refunded: true }, later(3));
      expect((await listed('paula')).status).toBe('Suspended');
      expect(await goldOpens()).toBe(false);
      // A new payment restores; a lost dispute of it suspends for good.
      await stripe.send('invoice.paid', invoiceObject('in_paula_4', customer, subscription, 'price_gold', period + 60 * DAY, { charge: 'ch_paula_4' }), later(4));
      expect((await listed('paula')).status).toBe('Active');
      await stripe.send('charge.dispute.created', { id: 'dp_2', charge: 'ch_paula_4' }, later(5));
      await stripe.send('charge.dispute.closed', { id: 'dp_2', charge: 'ch_paula_4', status: 'lost' }, later(6));
      expect((await listed('paula')).status).toBe('Suspended');
    });

    it('the owner’s Plans page and a member’s payments in the console; a grant without payment', async () => {
      const context = await browser.newContext();
      const dialogs: string[] = [];
      try {
        const owner = await operatorThroughLink(context, { url: site, env }, { email: 'owner@example.com', account: 'demo', role: 'owner', password: 'owner-horse-battery' }, dialogs);
        await owner.goto(`${site}/admin/accounts/demo/plans`);
        expect(await text(owner.locator('h1'))).toBe('Plans of demo');
        expect(await text(owner.locator('table'))).toContain('price_gold');
        expect(await owner.locator('input[name=stripe-secret-key]').getAttribute('placeholder')).toBe('sk_test_…1234');
        expect(await text(owner.locator('.card', { hasText: 'Payment providers' }))).toContain(`${site}/billing/demo/stripe`);
        // A plan refused, every problem beside its field, then added.
        await owner.fill('form[action$="/plans/add"] input[name=name]', 'bronze');
        await owner.fill('form[action$="/plans/add"] input[name=grace]', 'a while');
        await owner.click('form[action$="/plans/add"] button');
        expect(await text(owner.locator('form[action$="/plans/add"]'))).toContain('a plan is paid for by a Stripe price, a PayPal item, or both');
        expect(await text(owner.locator('form[action$="/plans/add"]'))).toContain('a duration such as 3d');
        await owner.fill('form[action$="/plans/add"] input[name=stripe-price]', 'price_bronze');
        await owner.fill('form[action$="/plans/add"] input[name=grace]', '1d');
        await owner.fill('form[action$="/plans/add"] input[name=fields]', 'plan=bronze');
        await owner.click('form[action$="/plans/add"] button');
        expect(await text(owner.locator('.notice'))).toBe('Plan added.');
        expect(await text(owner.locator('table'))).toContain('price_bronze');
        expect(await axeViolations(owner)).toEqual([]);
        if (engine === 'sqlite') await owner.screenshot({ path: screenshotPath('paid-console-plans', { forDocs: false }), fullPage: true });
        // Paula's payments, with Stripe's ids and what each did.
        const paula = (await api('list', { login_full: 'paula', record: '{id}' })).members[0].id as string;
        await owner.goto(`${site}/admin/accounts/demo/members/${paula}`);
        const payments = owner.locator('.card', { hasText: 'Payments' });
        expect(await text(payments)).toContain('stripe invoice.paid');
        expect(await text(payments)).toContain('dispute lost: stays suspended');
        expect(await text(owner.locator('.card', { hasText: 'History' }))).toMatch(/disputed: stripe charge\.dispute\.closed/);
        // Access without payment until a day: Manual, Active.
        const day = new Date(Date.now() + 60 * DAY * 1000).toISOString().slice(0, 10);
        await owner.fill('form[action$="/comp"] input[name=until]', day);
        await owner.click('form[action$="/comp"] button');
        expect(await text(owner.locator('.notice'))).toBe('Access granted without payment.');
        expect(await listed('paula')).toMatchObject({ status: 'Active', reg_type: 'Manual', exp_date: day });
        if (engine === 'sqlite') await owner.screenshot({ path: screenshotPath('paid-console-member', { forDocs: false }), fullPage: true });
        expect(dialogs).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
