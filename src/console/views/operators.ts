/** The account's operators: their roles, an invitation (and, when the account sends no mail, a new operator's link), taking one off. */
import type { Account } from '../../accounts/account.js';
import { ROLES, type Operator, type Role } from '../../operators/operator.js';
import { html } from '../../http/html.js';
import { operatorsPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, type Chrome } from './layout.js';

export function operatorsPage(chrome: Chrome, account: Account, operators: readonly Operator[], invited?: { email: string; link?: string }): string {
  const path = operatorsPath(account.name);
  const roleOf = (operator: Operator): Role => operator.accounts.find((grant) => grant.accountId === account.id)!.role;
  const roleSelect = (current: Role, label: string) =>
    html`<select name="role" aria-label="${label}">${ROLES.map((role) => html`<option value="${role}"${role === current ? html` selected` : ''}>${role}</option>`)}</select>`;
  return layout(
    accountTitle('navOperators', account.name),
    chrome,
    html`${backToMembers(account.name)}<h1>${accountTitle('navOperators', account.name)}</h1>
${
  invited?.link
    ? html`<div class="card issued"><h2>${t('opSetupLinkFor', { email: invited.email })}</h2><p>${t('opSetupLinkText')} (<code>member-api operator reset</code> ${t('opSetupLinkNew')}). ${t('shownOnlyHere')}</p><p><code class="secret">${invited.link}</code></p></div>`
    : ''
}
<div class="card"><table><thead><tr><th>${t('email')}</th><th>${t('role')}</th><th>${t('opTwoStep')}</th><th></th></tr></thead><tbody>
${operators.map(
  (
    operator,
  ) => html`<tr><td>${operator.email}</td><td><form method="post" action="${path}" class="inline-form"><input type="hidden" name="email" value="${operator.email}">${roleSelect(roleOf(operator), t('opRoleOf', { email: operator.email }))} <button type="submit" class="secondary">${t('opSetRole')}</button></form></td>
<td>${t(operator.twoStep ? 'on' : 'off')}</td>
<td>${
    operator.id === chrome.operator?.id
      ? html`<span class="muted">${t('opYou')}</span>`
      : html`<div class="actions">${
          operator.accounts.length === 1
            ? html`<form method="post" action="${path}/link"><input type="hidden" name="email" value="${operator.email}"><button type="submit" class="secondary">${t('opSendLink')}</button></form>`
            : ''
        }<form method="post" action="${path}/remove"><input type="hidden" name="email" value="${operator.email}"><button type="submit" class="danger">${t('opTakeOff')}</button></form></div>`
  }</td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>${t('opInviteHeading')}</h2><form method="post" action="${path}" class="edit">
<label>${t('email')} <input type="email" name="email" required></label>
<label>${t('role')} ${roleSelect('viewer', t('role'))}</label>
<div class="actions"><button type="submit">${t('opInvite')}</button></div></form>
<p class="muted">${t('opRolesHelp')}</p></div>`,
  );
}
