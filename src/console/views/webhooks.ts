/** The account's webhooks: receivers, a test's answer, a receiver's deliveries with their attempts, a removal asked first. */
import type { Account } from '../../accounts/account.js';
import { EVENT_TYPES } from '../../events/event.js';
import { html } from '../../http/html.js';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../../webhooks/webhook.js';
import { webhooksPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, when, type Chrome } from './layout.js';

const attemptText = (attempt: WebhookAttempt) =>
  `${when(attempt.at)}: ${attempt.statusCode ?? t('hookNoAnswer')}${attempt.error ? ` (${attempt.error})` : ''}, ${attempt.durationMs} ms`;

export function webhooksPage(
  chrome: Chrome,
  account: Account,
  endpoints: readonly WebhookEndpoint[],
  extra: { secret?: string; tested?: { endpoint: WebhookEndpoint; attempt: WebhookAttempt } } = {},
): string {
  const path = webhooksPath(account.name);
  const tested = extra.tested;
  return layout(
    accountTitle('navWebhooks', account.name),
    chrome,
    html`${backToMembers(account.name)}<h1>${accountTitle('navWebhooks', account.name)}</h1>
${
  extra.secret
    ? html`<div class="card issued"><h2>${t('hookSecretHeading')}</h2><p>${t('hookSecretText')} ${t('shownOnlyHere')}</p><p><code class="secret">${extra.secret}</code></p></div>`
    : ''
}
${
  tested
    ? html`<div class="notice ${tested.attempt.statusCode !== null && tested.attempt.statusCode < 300 ? 'ok' : 'error'}" role="status">${t('hookTested', { url: tested.endpoint.url, result: attemptText(tested.attempt) })}</div>`
    : ''
}
<div class="card"><table><thead><tr><th>${t('name')}</th><th>${t('url')}</th><th>${t('hookEvents')}</th><th>${t('hookState')}</th><th></th></tr></thead><tbody>
${endpoints.length === 0 ? html`<tr><td colspan="5" class="muted">${t('hooksNone')}</td></tr>` : ''}
${endpoints.map(
  (
    endpoint,
  ) => html`<tr><td><a href="${path}/${endpoint.id}">${endpoint.name ?? `#${endpoint.id}`}</a></td><td>${endpoint.url}</td><td>${endpoint.types?.join(', ') ?? t('all')}</td>
<td>${
    endpoint.disabledAt === null
      ? t('on')
      : endpoint.disabledReason
        ? t('hookOffSinceBecause', { when: when(endpoint.disabledAt), reason: endpoint.disabledReason })
        : t('hookOffSince', { when: when(endpoint.disabledAt) })
  }</td>
<td><div class="actions"><form method="post" action="${path}/test"><input type="hidden" name="id" value="${endpoint.id}"><button type="submit" class="secondary">${t('hookTest')}</button></form>
${endpoint.disabledAt === null ? '' : html`<form method="post" action="${path}/enable"><input type="hidden" name="id" value="${endpoint.id}"><button type="submit" class="secondary">${t('turnOn')}</button></form>`}
<form method="post" action="${path}/remove"><input type="hidden" name="id" value="${endpoint.id}"><button type="submit" class="danger">${t('remove')}</button></form></div></td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>${t('hookAdd')}</h2><form method="post" action="${path}/add" class="edit">
<label>${t('url')} <input name="url" required placeholder="https://example.com/hooks/members"></label>
<label>${t('name')} <input name="name" placeholder="crm" maxlength="64"></label>
<label>${t('hookEvents')} <input name="events" placeholder="${t('hookEventsPlaceholder')}"></label>
<div class="actions"><button type="submit">${t('add')}</button></div></form>
<p class="muted">${t('hookHelp', { types: EVENT_TYPES.join(', ') })}</p></div>`,
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
    t('hookTitle', { name: endpoint.name ?? endpoint.id }),
    chrome,
    html`<p><a href="${webhooksPath(account.name)}">← ${accountTitle('navWebhooks', account.name)}</a></p><h1>${endpoint.name ?? t('hookTitle', { name: `#${endpoint.id}` })}</h1>
<p class="muted">${endpoint.url}</p>
<div class="card"><h2>${t('hookLastDeliveries')}</h2><table><thead><tr><th>${t('hookEvent')}</th><th>${t('hookState')}</th><th>${t('hookMade')}</th><th>${t('hookAttempts')}</th><th></th></tr></thead><tbody>
${deliveries.length === 0 ? html`<tr><td colspan="5" class="muted">${t('hookNoDelivery')}</td></tr>` : ''}
${deliveries.map(
  (
    delivery,
  ) => html`<tr><td>${delivery.eventId}</td><td>${delivery.state}${delivery.deliveredAt ? html` (${when(delivery.deliveredAt)})` : ''}</td><td>${when(delivery.createdAt)}</td>
<td>${delivery.attemptsMade.length === 0 ? html`<span class="muted">${t('hookNoneYet')}</span>` : html`<ul class="attempts">${delivery.attemptsMade.map((attempt) => html`<li>${attemptText(attempt)}</li>`)}</ul>`}</td>
<td><form method="post" action="${path}/redeliver"><input type="hidden" name="delivery" value="${delivery.id}"><button type="submit" class="secondary">${t('hookSendAgain')}</button></form></td></tr>`,
)}</tbody></table></div>`,
  );
}

export function confirmRemovePage(chrome: Chrome, account: Account, endpoint: WebhookEndpoint): string {
  const path = webhooksPath(account.name);
  return layout(
    t('hookRemoveTitle'),
    chrome,
    html`<div class="narrow card"><h1>${t('hookRemoveTitle')}</h1>
<p>${t('hookRemoveText', { url: endpoint.url })}</p>
<div class="actions"><form method="post" action="${path}/remove"><input type="hidden" name="id" value="${endpoint.id}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${t('remove')}</button></form><a href="${path}">${t('cancel')}</a></div></div>`,
  );
}
