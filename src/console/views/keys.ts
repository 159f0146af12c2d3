/** The account's API keys: a new one shown once, rotated with a grace, revoked after a question. */
import { KEY_SCOPES, type Account, type ApiKey, type KeyScope } from '../../accounts/account.js';
import { html } from '../../http/html.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { keysPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, when, type Chrome } from './layout.js';

const SCOPES: Record<KeyScope, ConsoleKey> = {
  all: 'keyScopeAll',
  read: 'keyScopeRead',
  login: 'keyScopeLogin',
};

export function keysPage(chrome: Chrome, account: Account, keys: readonly ApiKey[], issued?: { key: ApiKey; apiKey: string }): string {
  const path = keysPath(account.name);
  return layout(
    accountTitle('navKeys', account.name),
    chrome,
    html`${backToMembers(account.name)}<h1>${accountTitle('navKeys', account.name)}</h1>
${
  issued
    ? html`<div class="card issued"><h2>${t('keyIssuedHeading')}</h2><p>${t('keyIssuedText')}</p>
<p><code class="secret">${issued.apiKey}</code></p>
<p class="muted">${t('keyUseAs')} <code>api_key</code> ${t('keyUseWith')} <code>user=${account.name}</code>, ${t('forExample')} <code>curl -d user=${account.name} -d api_key=… -d login=… -d password=… https://…/api2/login/</code>.</p></div>`
    : ''
}
<div class="card"><table><thead><tr><th>${t('name')}</th><th>${t('scope')}</th><th>${t('created')}</th><th>${t('keyLastUsed')}</th><th>${t('keyStopsWorking')}</th><th></th></tr></thead><tbody>
${keys.length === 0 ? html`<tr><td colspan="6" class="muted">${t('keysNone')}</td></tr>` : ''}
${keys.map(
  (
    key,
  ) => html`<tr><td>${key.name}</td><td>${key.scope}</td><td>${when(key.createdAt)}</td><td>${when(key.lastUsedAt)}</td><td>${key.expiresAt === null ? t('never') : when(key.expiresAt)}</td>
<td><div class="actions"><form method="post" action="${path}/rotate"><input type="hidden" name="name" value="${key.name}"><label class="inline">${t('keyGrace')} <input name="grace" placeholder="1h" size="4"></label> <button type="submit" class="secondary">${t('keyRotate')}</button></form>
<form method="post" action="${path}/revoke"><input type="hidden" name="name" value="${key.name}"><button type="submit" class="danger">${t('keyRevoke')}</button></form></div></td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>${t('keyAdd')}</h2><form method="post" action="${path}/add" class="edit">
<label>${t('name')} <input name="name" required placeholder="billing-sync" maxlength="64"></label>
<label>${t('scope')} <select name="scope">${KEY_SCOPES.map((scope) => html`<option value="${scope}">${t(SCOPES[scope])}</option>`)}</select></label>
<label>${t('keyStopsWorkingIn')} <input name="expires" placeholder="${t('keyStopsWorkingPlaceholder')}"></label>
<div class="actions"><button type="submit">${t('add')}</button></div></form>
<p class="muted">${t('keyRotateHelp')} (<code>1h</code>, <code>7D</code>) ${t('keyRotateHelpEnd')}</p></div>`,
  );
}

export function confirmRevokePage(chrome: Chrome, account: Account, name: string): string {
  const path = keysPath(account.name);
  return layout(
    t('keyRevokeTitle', { name }),
    chrome,
    html`<div class="narrow card"><h1>${t('keyRevokeTitle', { name })}</h1>
<p>${t('keyRevokeText')}</p>
<div class="actions"><form method="post" action="${path}/revoke"><input type="hidden" name="name" value="${name}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${t('keyRevokeButton', { name })}</button></form><a href="${path}">${t('cancel')}</a></div></div>`,
  );
}
