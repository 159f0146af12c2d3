/** The accounts an operator may open, and (for the server's administrators) a new account. */
import type { Account } from '../../accounts/account.js';
import type { Operator } from '../../operators/operator.js';
import { html } from '../../http/html.js';
import { keysPath, memberPagesPath, membersPath, operatorsPath, settingsPath } from '../paths.js';
import { layout, t, type Chrome } from './layout.js';

/** The operator's accounts with its role on each; an administrator's: every account, and "New account". */
export function accountsPage(chrome: Chrome & { operator: Operator }, every?: readonly Account[]): string {
  const rows = every
    ? every.map((account) => ({ account: account.name, role: t('administrator') }))
    : chrome.operator.accounts.map((grant) => ({ account: grant.account, role: grant.role }));
  return layout(
    t('accounts'),
    chrome,
    html`<div class="actions"><h1>${t(every ? 'allAccounts' : 'yourAccounts')}</h1>${
      every ? html`<a class="button" href="/admin/accounts/new">${t('newAccount')}</a>` : ''
    }</div><div class="card"><table><thead><tr><th>${t('account')}</th><th>${t('yourRole')}</th></tr></thead><tbody>
${rows.map((row) => html`<tr><td><a href="${membersPath(row.account)}">${row.account}</a></td><td>${row.role}</td></tr>`)}
</tbody></table></div>`,
  );
}

/** A new account's name (the rest is set afterwards, on its pages). */
export function newAccountPage(chrome: Chrome, name = '', error?: string): string {
  const invalid = error !== undefined;
  return layout(
    t('newAccount'),
    chrome,
    html`<div class="narrow card"><h1>${t('newAccount')}</h1><p class="muted">${t('newAccountText')}</p>
<form method="post" action="/admin/accounts/new">
<label for="name">${t('accountName')}</label>
<input id="name" name="name" value="${name}" required maxlength="64" autocomplete="off" autofocus aria-describedby="name-help${invalid ? ' name-error' : ''}"${invalid ? html` aria-invalid="true"` : ''}>
<p class="muted" id="name-help">${t('accountNameHelp')}</p>
${invalid ? html`<p class="field-error" id="name-error">${error}</p>` : ''}
<button type="submit">${t('createAccount')}</button></form></div>`,
  );
}

/** The account made: its API key, shown only now, and where to go on. */
export function accountCreatedPage(chrome: Chrome, account: Account, apiKey: string): string {
  const name = account.name;
  return layout(
    t('accountCreated', { account: name }),
    { ...chrome, account: name },
    html`<h1>${t('accountCreated', { account: name })}</h1>
<div class="card issued"><h2>${t('keyIssuedHeading')}</h2><p>${t('accountCreatedText')}</p>
<p><code class="secret">${apiKey}</code></p>
<p class="muted">${t('keyUseAs')} <code>api_key</code> ${t('keyUseWith')} <code>user=${name}</code>.</p></div>
<div class="card"><h2>${t('nextSteps')}</h2><ul class="plain">
<li><a href="${memberPagesPath(name)}">${t('navMemberPages')}</a></li>
<li><a href="${settingsPath(name)}">${t('navSettings')}</a></li>
<li><a href="${operatorsPath(name)}">${t('navOperators')}</a></li>
<li><a href="${keysPath(name)}">${t('navKeys')}</a></li>
<li><a href="${membersPath(name)}">${t('navMembers')}</a></li>
</ul></div>`,
  );
}
