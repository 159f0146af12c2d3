/** The console's pages before an account: signing in, setting a password by a link, the operator's accounts. */
import type { Operator } from '../../operators/operator.js';
import { html } from '../../http/html.js';
import { membersPath } from '../paths.js';
import { layout, type Chrome } from './layout.js';

export function signInPage(chrome: Chrome, email = ''): string {
  return layout(
    'Sign in',
    chrome,
    html`<div class="narrow card"><h1>Sign in</h1>
<form method="post" action="/admin/sign-in">
<label>E-mail <input type="email" name="email" value="${email}" required autocomplete="username" autofocus></label>
<label>Password <input type="password" name="password" required autocomplete="current-password"></label>
<button type="submit">Sign in</button></form></div>`,
  );
}

export function setupPage(chrome: Chrome, token: string, email: string): string {
  return layout(
    'Set your password',
    chrome,
    html`<div class="narrow card"><h1>Set your password</h1>
<p class="muted">For ${email}. At least 12 characters; this link works once.</p>
<form method="post" action="/admin/setup">
<input type="hidden" name="token" value="${token}">
<input type="text" name="username" value="${email}" autocomplete="username" hidden>
<label>New password <input type="password" name="password" required minlength="12" autocomplete="new-password" autofocus></label>
<label>Once more <input type="password" name="confirm" required minlength="12" autocomplete="new-password"></label>
<button type="submit">Set password</button></form></div>`,
  );
}

export function accountsPage(chrome: Chrome & { operator: Operator }): string {
  return layout(
    'Accounts',
    chrome,
    html`<h1>Your accounts</h1><div class="card"><table><thead><tr><th>Account</th><th>Your role</th></tr></thead><tbody>
${chrome.operator.accounts.map((grant) => html`<tr><td><a href="${membersPath(grant.account)}">${grant.account}</a></td><td>${grant.role}</td></tr>`)}
</tbody></table></div>`,
  );
}
