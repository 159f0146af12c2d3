/** The registrations awaiting approval, each with its fields and the decision's buttons. */
import type { Account } from '../../accounts/account.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath, registrationsPath } from '../paths.js';
import { layout, when, type Chrome } from './layout.js';

export interface QueueView {
  readonly account: Account;
  readonly members: ReadonlyArray<{
    readonly id: number;
    readonly login: string;
    readonly email: string;
    readonly regAt: number;
    readonly profile: ReadonlyMap<string, string>;
  }>;
  readonly total: number;
}

export function registrationsPage(chrome: Chrome, view: QueueView): string {
  const { account } = view;
  const fields = account.settings.registrationFields;
  return layout(
    `Registrations of ${account.name}`,
    chrome,
    html`<div class="actions"><h1>Registrations awaiting approval</h1><a class="button secondary" href="${membersPath(account.name)}">Members</a></div>
${account.settings.registration !== 'approval' ? html`<p class="muted">Registration is <strong>${account.settings.registration}</strong> on this account: new registrations do not wait here.</p>` : ''}
<div class="card"><p class="count"><strong>${view.total.toLocaleString('en')}</strong> waiting${view.total > view.members.length ? html` (the oldest ${view.members.length} shown)` : ''}</p>
<table><thead><tr><th>Login</th><th>E-mail</th><th>Registered</th>${fields.map((field) => html`<th>${field.label}</th>`)}<th>Decision</th></tr></thead><tbody>
${view.members.length === 0 ? html`<tr><td colspan="${4 + fields.length}" class="muted">No registration waits.</td></tr>` : ''}
${view.members.map(
  (
    member,
  ) => html`<tr><td><a href="${memberPath(account.name, member.id)}">${member.login}</a></td><td>${member.email}</td><td>${when(member.regAt)}</td>${fields.map((field) => html`<td>${member.profile.get(field.name) ?? ''}</td>`)}
<td><div class="actions"><form method="post" action="${registrationsPath(account.name)}/${member.id}/approve"><button type="submit">Approve</button></form>
<form method="post" action="${registrationsPath(account.name)}/${member.id}/refuse"><label class="inline"><input type="checkbox" name="tell" value="1" checked> mail them</label> <button type="submit" class="danger">Refuse</button></form></div></td></tr>`,
)}
</tbody></table></div>`,
  );
}
