/**
 * The account's webhooks in the console (owners), as the `webhook` commands handle them,
 * through the same service: add a receiver (its signing secret shown once, on the page that
 * answers), send it a test message, see its last deliveries with their attempts, send one
 * again, re-enable a receiver that was turned off, remove one (asked first).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import type { WebhookAttempt, WebhookEndpoint } from '../../webhooks/webhook.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { webhooksPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { confirmRemovePage, deliveriesPage, webhooksPage } from '../views/webhooks.js';

/** Deliveries shown per receiver. */
const DELIVERIES = 20;

export async function webhooksSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { webhooks } = deps;

  async function show(
    reply: FastifyReply,
    chrome: Chrome,
    account: Account,
    status = 200,
    extra?: { secret?: string; tested?: { endpoint: WebhookEndpoint; attempt: WebhookAttempt } },
  ) {
    return send(reply, status, webhooksPage(chrome, account, await webhooks.list(account), extra));
  }

  /** The owner's account and its receiver of the form's (or the address's) `id`; otherwise the page that says why is sent. */
  async function endpointOf(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ account: Account; chrome: Chrome; endpoint: WebhookEndpoint } | undefined> {
    const seen = onAccount(request);
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const id = formOf(request).id ?? (request.params as { id?: string }).id ?? '';
    const endpoint = /^[1-9]\d{0,14}$/.test(id) ? await webhooks.find(seen.account, Number(id)) : undefined;
    if (!endpoint) {
      await show(reply, { ...chrome, notice: { kind: 'error', text: t('hookNoSuch') } }, seen.account, 404);
      return undefined;
    }
    return { account: seen.account, chrome, endpoint };
  }

  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account);
  });

  scope.post('/add', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const form = formOf(request);
    const types = (form.events ?? '')
      .split(/[\s,]+/)
      .map((type) => type.trim())
      .filter((type) => type !== '');
    const name = form.name?.trim() ? form.name.trim() : undefined;
    const added = await webhooks.add(seen.account, (form.url ?? '').trim(), types.length > 0 ? types : undefined, name);
    if (added.kind === 'refused') return show(reply, { ...chrome, notice: { kind: 'error', text: `${added.parameter}: ${added.reason}.` } }, seen.account, 400);
    return show(reply, { ...chrome, notice: { kind: 'ok', text: t('hookAdded', { url: added.endpoint.url }) } }, seen.account, 200, {
      secret: added.endpoint.secret,
    });
  });

  scope.post('/test', { config: { access: 'owner' } }, async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, chrome, endpoint } = found;
    const attempt = (await webhooks.test(account, endpoint.id))!;
    return show(reply, chrome, account, 200, { tested: { endpoint, attempt } });
  });

  scope.post('/enable', { config: { access: 'owner' } }, async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    await webhooks.enable(found.account, found.endpoint.id);
    return seeOther(reply, `${webhooksPath(found.account.name)}?done=webhook-enabled`);
  });

  scope.post('/remove', { config: { access: 'owner' } }, async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, chrome, endpoint } = found;
    if (formOf(request).confirm !== '1') return send(reply, 200, confirmRemovePage(chrome, account, endpoint));
    await webhooks.remove(account, endpoint.id);
    return seeOther(reply, `${webhooksPath(account.name)}?done=webhook-removed`);
  });

  scope.get('/:id', { config: { access: 'owner' } }, async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, chrome, endpoint } = found;
    const deliveries = (await webhooks.deliveries(account, endpoint.id, DELIVERIES)) ?? [];
    return send(reply, 200, deliveriesPage({ ...chrome, notice: doneNotice(request) }, account, endpoint, deliveries));
  });

  scope.post('/:id/redeliver', { config: { access: 'owner' } }, async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, endpoint } = found;
    const delivery = formOf(request).delivery ?? '';
    const sent = /^[1-9]\d{0,14}$/.test(delivery) && (await webhooks.redeliver(account, Number(delivery)));
    return seeOther(reply, `${webhooksPath(account.name)}/${endpoint.id}?done=${sent ? 'redelivered' : 'not-redelivered'}`);
  });
}
