/**
 * The account's webhooks in the console (owners), as the `webhook` commands handle them,
 * through the same service: add a receiver (its signing secret shown once, on the page that
 * answers), send it a test message, see its last deliveries with their attempts, send one
 * again, re-enable a receiver that was turned off, remove one (asked first).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import { EVENT_TYPES } from '../events/event.js';
import { html } from '../http/html.js';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../webhooks/webhook.js';
import type { WebhooksService } from '../webhooks/webhooks-service.js';
import type { ConsoleKit } from './member-pages.js';
import { layout, membersPath, when, type Chrome } from './pages.js';

export const webhooksPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/webhooks`;
/** Deliveries shown per receiver. */
const DELIVERIES = 20;

const attemptText = (attempt: WebhookAttempt) =>
  `${when(attempt.at)}: ${attempt.statusCode ?? 'no answer'}${attempt.error ? ` (${attempt.error})` : ''}, ${attempt.durationMs} ms`;

export function registerWebhooksConsole(scope: FastifyInstance, kit: ConsoleKit & { webhooks: WebhooksService }): void {
  const { webhooks } = kit;

  async function show(
    reply: FastifyReply,
    chrome: Chrome,
    account: Account,
    status = 200,
    extra?: { secret?: string; tested?: { endpoint: WebhookEndpoint; attempt: WebhookAttempt } },
  ) {
    return kit.send(reply, status, webhooksPage(chrome, account, await webhooks.list(account), extra));
  }

  /** The owner's account and its receiver of the form's (or the address's) `id`; otherwise the page that says why is sent. */
  async function endpointOf(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<{ account: Account; chrome: Chrome; endpoint: WebhookEndpoint } | undefined> {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return undefined;
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const id = kit.formOf(request).id ?? (request.params as { id?: string }).id ?? '';
    const endpoint = /^[1-9]\d{0,14}$/.test(id) ? await webhooks.find(seen.account, Number(id)) : undefined;
    if (!endpoint) {
      await show(reply, { ...chrome, notice: { kind: 'error', text: 'There is no such webhook in this account.' } }, seen.account, 404);
      return undefined;
    }
    return { account: seen.account, chrome, endpoint };
  }

  scope.get('/accounts/:account/webhooks', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: kit.doneNotice(request) }, seen.account);
  });

  scope.post('/accounts/:account/webhooks/add', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const form = kit.formOf(request);
    const types = (form.events ?? '')
      .split(/[\s,]+/)
      .map((type) => type.trim())
      .filter((type) => type !== '');
    const name = form.name?.trim() ? form.name.trim() : undefined;
    const added = await webhooks.add(seen.account, (form.url ?? '').trim(), types.length > 0 ? types : undefined, name);
    if (added.kind === 'refused') return show(reply, { ...chrome, notice: { kind: 'error', text: `${added.parameter}: ${added.reason}.` } }, seen.account, 400);
    return show(reply, { ...chrome, notice: { kind: 'ok', text: `The webhook to ${added.endpoint.url} is added.` } }, seen.account, 200, {
      secret: added.endpoint.secret,
    });
  });

  scope.post('/accounts/:account/webhooks/test', async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, chrome, endpoint } = found;
    const attempt = (await webhooks.test(account, endpoint.id))!;
    return show(reply, chrome, account, 200, { tested: { endpoint, attempt } });
  });

  scope.post('/accounts/:account/webhooks/enable', async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    await webhooks.enable(found.account, found.endpoint.id);
    return kit.seeOther(reply, `${webhooksPath(found.account.name)}?done=webhook-enabled`);
  });

  scope.post('/accounts/:account/webhooks/remove', async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, chrome, endpoint } = found;
    if (kit.formOf(request).confirm !== '1') return kit.send(reply, 200, confirmRemovePage(chrome, account, endpoint));
    await webhooks.remove(account, endpoint.id);
    return kit.seeOther(reply, `${webhooksPath(account.name)}?done=webhook-removed`);
  });

  scope.get('/accounts/:account/webhooks/:id', async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, chrome, endpoint } = found;
    const deliveries = (await webhooks.deliveries(account, endpoint.id, DELIVERIES)) ?? [];
    return kit.send(reply, 200, deliveriesPage({ ...chrome, notice: kit.doneNotice(request) }, account, endpoint, deliveries));
  });

  scope.post('/accounts/:account/webhooks/:id/redeliver', async (request, reply) => {
    const found = await endpointOf(request, reply);
    if (!found) return reply;
    const { account, endpoint } = found;
    const delivery = kit.formOf(request).delivery ?? '';
    const sent = /^[1-9]\d{0,14}$/.test(delivery) && (await webhooks.redeliver(account, Number(delivery)));
    return kit.seeOther(reply, `${webhooksPath(account.name)}/${endpoint.id}?done=${sent ? 'redelivered' : 'not-redelivered'}`);
  });
}

function webhooksPage(
  chrome: Chrome,
  account: Account,
  endpoints: readonly WebhookEndpoint[],
  extra: { secret?: string; tested?: { endpoint: WebhookEndpoint; attempt: WebhookAttempt } } = {},
): string {
  const path = webhooksPath(account.name);
  const tested = extra.tested;
  return layout(
    `Webhooks of ${account.name}`,
    chrome,
    html`<p><a href="${membersPath(account.name)}">← Members of ${account.name}</a></p><h1>Webhooks of ${account.name}</h1>
${
  extra.secret
    ? html`<div class="card issued"><h2>The signing secret: copy it now</h2><p>The receiver checks each message's signature with it (Standard Webhooks). It is shown only on this page.</p><p><code class="secret">${extra.secret}</code></p></div>`
    : ''
}
${
  tested
    ? html`<div class="notice ${tested.attempt.statusCode !== null && tested.attempt.statusCode < 300 ? 'ok' : 'error'}" role="status">Test message to ${tested.endpoint.url}: ${attemptText(tested.attempt)}.</div>`
    : ''
}
<div class="card"><table><thead><tr><th>Name</th><th>URL</th><th>Events</th><th>State</th><th></th></tr></thead><tbody>
${endpoints.length === 0 ? html`<tr><td colspan="5" class="muted">No webhook: events are in the feed (/api2/events/) only.</td></tr>` : ''}
${endpoints.map(
  (
    endpoint,
  ) => html`<tr><td><a href="${path}/${endpoint.id}">${endpoint.name ?? `#${endpoint.id}`}</a></td><td>${endpoint.url}</td><td>${endpoint.types?.join(', ') ?? 'all'}</td>
<td>${endpoint.disabledAt === null ? 'on' : html`off since ${when(endpoint.disabledAt)}${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}`}</td>
<td><div class="actions"><form method="post" action="${path}/test"><input type="hidden" name="id" value="${endpoint.id}"><button type="submit" class="secondary">Test</button></form>
${endpoint.disabledAt === null ? '' : html`<form method="post" action="${path}/enable"><input type="hidden" name="id" value="${endpoint.id}"><button type="submit" class="secondary">Turn on</button></form>`}
<form method="post" action="${path}/remove"><input type="hidden" name="id" value="${endpoint.id}"><button type="submit" class="danger">Remove</button></form></div></td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>Add a webhook</h2><form method="post" action="${path}/add" class="edit">
<label>URL <input name="url" required placeholder="https://example.com/hooks/members"></label>
<label>Name <input name="name" placeholder="crm" maxlength="64"></label>
<label>Events <input name="events" placeholder="all, or member.created, member.updated"></label>
<div class="actions"><button type="submit">Add</button></div></form>
<p class="muted">Event types: ${EVENT_TYPES.join(', ')}. Each message is signed (Standard Webhooks), retried with backoff until the receiver answers 2xx, and sent in order per member.</p></div>`,
  );
}

function deliveriesPage(
  chrome: Chrome,
  account: Account,
  endpoint: WebhookEndpoint,
  deliveries: ReadonlyArray<WebhookDelivery & { attemptsMade: WebhookAttempt[] }>,
): string {
  const path = `${webhooksPath(account.name)}/${endpoint.id}`;
  return layout(
    `Webhook ${endpoint.name ?? endpoint.id}`,
    chrome,
    html`<p><a href="${webhooksPath(account.name)}">← Webhooks of ${account.name}</a></p><h1>${endpoint.name ?? `Webhook #${endpoint.id}`}</h1>
<p class="muted">${endpoint.url}</p>
<div class="card"><h2>Last deliveries</h2><table><thead><tr><th>Event</th><th>State</th><th>Made</th><th>Attempts</th><th></th></tr></thead><tbody>
${deliveries.length === 0 ? html`<tr><td colspan="5" class="muted">No delivery yet.</td></tr>` : ''}
${deliveries.map(
  (
    delivery,
  ) => html`<tr><td>${delivery.eventId}</td><td>${delivery.state}${delivery.deliveredAt ? html` (${when(delivery.deliveredAt)})` : ''}</td><td>${when(delivery.createdAt)}</td>
<td>${delivery.attemptsMade.length === 0 ? html`<span class="muted">none yet</span>` : html`<ul class="attempts">${delivery.attemptsMade.map((attempt) => html`<li>${attemptText(attempt)}</li>`)}</ul>`}</td>
<td><form method="post" action="${path}/redeliver"><input type="hidden" name="delivery" value="${delivery.id}"><button type="submit" class="secondary">Send again</button></form></td></tr>`,
)}</tbody></table></div>`,
  );
}

function confirmRemovePage(chrome: Chrome, account: Account, endpoint: WebhookEndpoint): string {
  const path = webhooksPath(account.name);
  return layout(
    'Remove the webhook?',
    chrome,
    html`<div class="narrow card"><h1>Remove the webhook?</h1>
<p>${endpoint.url} gets no more messages; its deliveries not made yet are dropped. The events stay in the feed.</p>
<div class="actions"><form method="post" action="${path}/remove"><input type="hidden" name="id" value="${endpoint.id}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">Remove</button></form><a href="${path}">Cancel</a></div></div>`,
  );
}
