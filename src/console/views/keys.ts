/** The account's API keys: a new one shown once, rotated with a grace, revoked after a question. */
import { KEY_SCOPES, type Account, type ApiKey, type KeyScope } from '../../accounts/account.js';
import { html } from '../../http/html.js';
import { keysPath, membersPath } from '../paths.js';
import { layout, when, type Chrome } from './layout.js';

const SCOPES: Record<KeyScope, string> = {
  all: 'all: every call',
  read: 'read: lists, sessions, events (no change)',
  login: 'login: /login/ and sessions only',
};

export function keysPage(chrome: Chrome, account: Account, keys: readonly ApiKey[], issued?: { key: ApiKey; apiKey: string }): string {
  const path = keysPath(account.name);
  return layout(
    `API keys of ${account.name}`,
    chrome,
    html`<p><a href="${membersPath(account.name)}">← Members of ${account.name}</a></p><h1>API keys of ${account.name}</h1>
${
  issued
    ? html`<div class="card issued"><h2>The new key: copy it now</h2><p>It is shown only on this page; the server keeps a digest of it, never the key.</p>
<p><code class="secret">${issued.apiKey}</code></p>
<p class="muted">Use it as <code>api_key</code> with <code>user=${account.name}</code>, e.g. <code>curl -d user=${account.name} -d api_key=… -d login=… -d password=… https://…/api2/login/</code>.</p></div>`
    : ''
}
<div class="card"><table><thead><tr><th>Name</th><th>Scope</th><th>Created</th><th>Last used</th><th>Stops working</th><th></th></tr></thead><tbody>
${keys.length === 0 ? html`<tr><td colspan="6" class="muted">No key: the API answers this account's calls with "wrong api key".</td></tr>` : ''}
${keys.map(
  (
    key,
  ) => html`<tr><td>${key.name}</td><td>${key.scope}</td><td>${when(key.createdAt)}</td><td>${when(key.lastUsedAt)}</td><td>${key.expiresAt === null ? 'never' : when(key.expiresAt)}</td>
<td><div class="actions"><form method="post" action="${path}/rotate"><input type="hidden" name="name" value="${key.name}"><label class="inline">grace <input name="grace" placeholder="1h" size="4"></label> <button type="submit" class="secondary">Rotate</button></form>
<form method="post" action="${path}/revoke"><input type="hidden" name="name" value="${key.name}"><button type="submit" class="danger">Revoke</button></form></div></td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>Add a key</h2><form method="post" action="${path}/add" class="edit">
<label>Name <input name="name" required placeholder="billing-sync" maxlength="64"></label>
<label>Scope <select name="scope">${KEY_SCOPES.map((scope) => html`<option value="${scope}">${SCOPES[scope]}</option>`)}</select></label>
<label>Stops working in <input name="expires" placeholder="never, or 30D"></label>
<div class="actions"><button type="submit">Add</button></div></form>
<p class="muted">Rotate replaces a key by a new one of the same name and scope; with a grace (<code>1h</code>, <code>7D</code>) the old one keeps working that long, so that the integrations can change over without an outage.</p></div>`,
  );
}

export function confirmRevokePage(chrome: Chrome, account: Account, name: string): string {
  const path = keysPath(account.name);
  return layout(
    `Revoke ${name}?`,
    chrome,
    html`<div class="narrow card"><h1>Revoke ${name}?</h1>
<p>Every call made with it is refused from now on ("wrong api key"): the integrations that use it stop at once. To change a key over without an outage, rotate it with a grace instead.</p>
<div class="actions"><form method="post" action="${path}/revoke"><input type="hidden" name="name" value="${name}"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">Revoke ${name}</button></form><a href="${path}">Cancel</a></div></div>`,
  );
}
