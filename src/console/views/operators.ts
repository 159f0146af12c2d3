/** The account's operators: their roles, an invitation (and, when the account sends no mail, a new operator's link), taking one off. */
import type { Account } from '../../accounts/account.js';
import { ROLES, type Operator, type Role } from '../../operators/operator.js';
import { html } from '../../http/html.js';
import { membersPath, operatorsPath } from '../paths.js';
import { layout, type Chrome } from './layout.js';

export function operatorsPage(chrome: Chrome, account: Account, operators: readonly Operator[], invited?: { email: string; link?: string }): string {
  const path = operatorsPath(account.name);
  const roleOf = (operator: Operator): Role => operator.accounts.find((grant) => grant.accountId === account.id)!.role;
  const roleSelect = (current: Role) =>
    html`<select name="role">${ROLES.map((role) => html`<option value="${role}"${role === current ? html` selected` : ''}>${role}</option>`)}</select>`;
  return layout(
    `Operators of ${account.name}`,
    chrome,
    html`<p><a href="${membersPath(account.name)}">← Members of ${account.name}</a></p><h1>Operators of ${account.name}</h1>
${
  invited?.link
    ? html`<div class="card issued"><h2>The set-up link for ${invited.email}</h2><p>Send it to them: it works once, for 24 hours, and sets their password (<code>member-api operator reset</code> makes a new one). It is shown only on this page.</p><p><code class="secret">${invited.link}</code></p></div>`
    : ''
}
<div class="card"><table><thead><tr><th>E-mail</th><th>Role</th><th>Two-step</th><th></th></tr></thead><tbody>
${operators.map(
  (
    operator,
  ) => html`<tr><td>${operator.email}</td><td><form method="post" action="${path}" class="inline-form"><input type="hidden" name="email" value="${operator.email}">${roleSelect(roleOf(operator))} <button type="submit" class="secondary">Set</button></form></td>
<td>${operator.twoStep ? 'on' : 'off'}</td>
<td>${
    operator.id === chrome.operator?.id
      ? html`<span class="muted">you</span>`
      : html`<form method="post" action="${path}/remove"><input type="hidden" name="email" value="${operator.email}"><button type="submit" class="danger">Take off the account</button></form>`
  }</td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>Invite an operator</h2><form method="post" action="${path}" class="edit">
<label>E-mail <input type="email" name="email" required></label>
<label>Role ${roleSelect('viewer')}</label>
<div class="actions"><button type="submit">Invite</button></div></form>
<p class="muted">Viewers read; editors also change members and decide registrations; owners also change the member pages, the settings, the keys and the operators.</p></div>`,
  );
}
