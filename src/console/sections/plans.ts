/**
 * The account's plans and payment providers in the console (owners), as `plan` and `billing
 * set` handle them, through the same service and the same reading of what was typed: every
 * problem beside its field. A secret is taken, never shown again (its last four characters are).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { readPlan, readSettings } from '../../billing/billing-input.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { plansPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { plansPage } from '../views/plans.js';

export async function plansSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { billing } = deps;

  async function show(reply: FastifyReply, chrome: Chrome, account: Account, status = 200, refused?: { values: Record<string, string>; errors: Record<string, string> }) {
    const [settings, plans] = await Promise.all([billing.settings(account), billing.plans(account)]);
    return send(reply, status, plansPage(chrome, account, { settings, plans, base: deps.linkBase(), ...refused }));
  }

  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account);
  });

  scope.post('/add', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const form = formOf(request);
    const values = Object.fromEntries(Object.entries(form).map(([name, value]) => [name, String(value ?? '')]));
    const read = readPlan({
      name: (form.name ?? '').trim(),
      title: form.title,
      stripePrice: form['stripe-price'],
      paypalItem: form['paypal-item'],
      amount: form.amount,
      currency: form.currency,
      grace: form.grace,
      fields: (form.fields ?? '')
        .split(',')
        .map((field) => field.trim())
        .filter((field) => field !== ''),
    });
    if ('errors' in read) return show(reply, chrome, seen.account, 400, { values, errors: read.errors });
    if (!(await billing.addPlan(seen.account, read.plan)))
      return show(reply, chrome, seen.account, 409, { values, errors: { name: t('planExists', { name: read.plan.name }) } });
    return seeOther(reply, `${plansPath(seen.account.name)}?done=plan-added`);
  });

  scope.post('/remove', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    await billing.removePlan(seen.account, formOf(request).name ?? '');
    return seeOther(reply, `${plansPath(seen.account.name)}?done=plan-removed`);
  });

  scope.post('/settings', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const form = formOf(request);
    // An empty secret field keeps the secret held (the field never shows it).
    const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value);
    const read = readSettings(await billing.settings(seen.account), {
      stripeSecretKey: given(form['stripe-secret-key']),
      stripeWebhookSecret: given(form['stripe-webhook-secret']),
      paypalReceiver: form['paypal-receiver'],
      onRefund: form['on-refund'],
    });
    if ('errors' in read) return show(reply, chrome, seen.account, 400, { values: { 'paypal-receiver': form['paypal-receiver'] ?? '' }, errors: read.errors });
    await billing.setSettings(seen.account, read.settings);
    return seeOther(reply, `${plansPath(seen.account.name)}?done=saved`);
  });
}
