/** The account's webhooks: receivers, a test's answer, a receiver's deliveries with their attempts, a removal asked first. */
import type { Account } from '../../accounts/account.js';
import { EVENT_TYPES } from '../../events/event.js';
import { html } from '../../http/html.js';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../webhooks/webhook.js';
import { membersPath, webhooksPath } from '../paths.js';
import { layout, when, type Chrome } from './layout.js';

const attemptText = (attempt: WebhookAttempt) =>
  `${when(attempt.at)}: ${attempt.statusCode ?? 'no answer'}${attempt.error ? ` (${attempt.error})` : ''}, ${attempt.durationMs} ms`;

export function webhooksPage(
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

export function deliveriesPage(
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

export function confirmRemovePage(chrome: Chrome, account: Account, endpoint: WebhookEndpoint): string {
  const path = webhooksPath(account.name);
  return layout(
    'Remove the webhook?',
    chrome,
    html`<div class="narrow card"><h1>Remove the webhook?</h1>
<p>${endpoint.url} gets no more messages; its deliveries not made yet are dropped. The events stay in the feed.</p>
<div class="actions"><form method="post" action="${path}/remove"><input type="hidden" name="id" value="${endpoint.id}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">Remove</button></form><a href="${path}">Cancel</a></div></div>`,
  );
}
