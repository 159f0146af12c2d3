/**
 * `member-api billing …` and `plan …` as a site owner runs them, on both engines: secrets taken
 * and never printed again, every bad value named, plans listed, a grant without payment, and
 * `billing import-stripe` against a local fake of Stripe's API: a dry run that changes nothing,
 * then the run that links or makes the members.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { DAY, startFakeStripe, subscriptionObject, type FakeStripe } from '../support/fake-stripe.js';
import { apiAccount } from '../support/member-api.js';

describeEachEngineApp('member-api billing and plan', (harness) => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
  });
  afterAll(async () => {
    await stripe.close();
  });

  // A dozen processes of the command line each: on a loaded machine, a second or more each.
  it('connects providers without printing a secret again, declares plans, and refuses bad values by name', { timeout: 180_000 }, async () => {
    const { user, account } = await harness().newAccount();
    const env = { DATABASE_URL: harness().database.url };
    const cli = (...args: string[]) => runCli(args, env);
    const set = await cli('billing', 'set', user, '--stripe-secret-key', 'sk_live_abcdefgh1234', '--stripe-webhook-secret', 'whsec_0123456789wxyz', '--on-refund', 'keep');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).not.toContain('abcdefgh');
    expect(set.stdout).toContain('sk_live_…1234');
    expect(set.stdout).toContain('whsec_…wxyz');
    const shown = await cli('billing', 'show', user, '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({ stripe_secret_key: 'sk_live_…1234', paypal_receiver: '(not set)', on_refund: 'keep', plans: [] });
    expect((await cli('billing', 'set', user, '--stripe-secret-key', 'pk_live_public')).stderr).toBe('member-api: --stripe-secret-key: a Stripe secret key begins with sk_ or rk_\n');
    expect((await cli('billing', 'set', user, '--on-refund', 'maybe')).stderr).toBe('member-api: --on-refund: suspend or keep\n');
    // What is not given stays.
    expect((await cli('billing', 'set', user, '--paypal-receiver', 'shop@example.com')).code).toBe(0);
    expect(await harness().services.billing.settings(account)).toMatchObject({ stripeSecretKey: 'sk_live_abcdefgh1234', paypalReceiver: 'shop@example.com', onRefund: 'keep' });

    const added = await cli('plan', 'add', user, 'gold', '--stripe-price', 'price_gold', '--paypal-item', 'GOLD', '--grace', '3d', '--field', 'plan=gold', '--field', 'level=3');
    expect(added.code, added.stderr).toBe(0);
    expect((await cli('plan', 'add', user, 'gold', '--stripe-price', 'price_x')).stderr).toBe(`member-api: account "${user}" has a plan "gold" already (plan remove it first)\n`);
    expect((await cli('plan', 'add', user, 'tin')).stderr).toBe('member-api: --stripe-price: a plan is paid for by a Stripe price, a PayPal item, or both\n');
    expect((await cli('plan', 'add', user, 'tin', '--stripe-price', 'price_tin', '--grace', 'a week')).stderr).toBe('member-api: --grace: a duration such as 3d, 12h, 30m or 0, got "a week"\n');
    const listed = JSON.parse((await cli('plan', 'list', user, '--json')).stdout);
    expect(listed.plans).toEqual([{ name: 'gold', title: 'gold', stripe_price: 'price_gold', paypal_item: 'GOLD', price: '', grace: '3d', fields: 'plan=gold level=3' }]);
    expect((await cli('plan', 'remove', user, 'gold')).code).toBe(0);
    expect((await cli('plan', 'remove', user, 'gold')).stderr).toBe(`member-api: no plan "gold" in account "${user}"\n`);
  });

  it('grants access without payment until a day, and moves a Stripe account’s subscribers: a dry run first', { timeout: 180_000 }, async () => {
    const api = await apiAccount(harness());
    const env = { DATABASE_URL: harness().database.url, STRIPE_API_URL: stripe.url };
    const cli = (...args: string[]) => runCli(args, env);
    await api.create('known', { _email: 'known@example.com' });
    const day = new Date(Date.now() + 40 * DAY * 1000).toISOString().slice(0, 10);
    const comp = await cli('billing', 'comp', api.user, 'known', '--until', day);
    expect(comp.code, comp.stderr).toBe(0);
    expect((await api.list({ login_full: 'known', record: '{reg_type}{exp_date}' })).members[0]).toEqual({ reg_type: 'Manual', exp_date: day });
    expect((await cli('billing', 'comp', api.user, 'known', '--until', '2001-01-01')).stderr).toBe('member-api: --until: a day after today\n');

    expect((await cli('billing', 'set', api.user, '--stripe-secret-key', 'sk_test_import_1234')).code).toBe(0);
    expect((await cli('plan', 'add', api.user, 'gold', '--stripe-price', 'price_imp_gold', '--field', 'plan=gold')).code).toBe(0);
    const end = Math.floor(Date.now() / 1000) + 20 * DAY;
    stripe.subscriptions.clear();
    stripe.subscriptions.set('sub_imp_known', { ...subscriptionObject('sub_imp_known', 'cus_imp_known', 'price_imp_gold', end), email: 'known@example.com' });
    stripe.subscriptions.set('sub_imp_new', { ...subscriptionObject('sub_imp_new', 'cus_imp_new', 'price_imp_gold', end), email: 'new@example.com' });
    stripe.subscriptions.set('sub_imp_gone', { ...subscriptionObject('sub_imp_gone', 'cus_imp_gone', 'price_imp_gold', end, { status: 'canceled' }), email: 'gone@example.com' });
    const dry = await cli('billing', 'import-stripe', api.user, '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toEqual({
      dry_run: true,
      subscriptions: [
        { subscription: 'sub_imp_known', email: 'known@example.com', status: 'active', outcome: 'would link the member on plan gold' },
        { subscription: 'sub_imp_new', email: 'new@example.com', status: 'active', outcome: 'would make a member on plan gold' },
        { subscription: 'sub_imp_gone', email: 'gone@example.com', status: 'canceled', outcome: 'skipped: not active' },
      ],
    });
    expect(await api.logins({ reg_type: 'P' })).toEqual([]);
    const run = await cli('billing', 'import-stripe', api.user);
    expect(run.code, run.stderr).toBe(0);
    expect(await api.logins({ reg_type: 'P' })).toEqual(['known', 'new@example.com']);
    const record = '{login}{status}{bill_pc}{bill_cust}{bill_subscr}{bill_item}{exp_date}{plan}';
    expect((await api.list({ login_full: 'known', record })).members[0]).toEqual({
      login: 'known',
      status: 'Active',
      bill_pc: 'stripe',
      bill_cust: 'cus_imp_known',
      bill_subscr: 'sub_imp_known',
      bill_item: 'price_imp_gold',
      exp_date: new Date(end * 1000).toISOString().slice(0, 10),
      plan: 'gold',
    });
    // Again: each subscription is applied once.
    const again = JSON.parse((await cli('billing', 'import-stripe', api.user, '--json')).stdout);
    expect(again.subscriptions.map((line: { outcome: string }) => line.outcome)).toEqual(['duplicate', 'duplicate', 'skipped: not active']);
  });
});
