/** The registrations awaiting approval, each with its fields and the decision's buttons. */
import type { Account } from '../../accounts/account.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath, registrationsPath } from '../paths.js';
import { accountTitle, layout, t, when, type Chrome } from './layout.js';

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
    accountTitle('navRegistrations', account.name),
    chrome,
    html`<div class="actions"><h1>${t('regAwaiting')}</h1><a class="button secondary" href="${membersPath(account.name)}">${t('navMembers')}</a></div>
${account.settings.registration !== 'approval' ? html`<p class="muted">${t('regIs')} <strong>${account.settings.registration}</strong> ${t('regNotWaitingHere')}</p>` : ''}
<div class="card"><p class="count"><strong>${view.total.toLocaleString('en')}</strong> ${view.total > view.members.length ? t('regWaitingOldest', { count: view.members.length }) : t('regWaiting')}</p>
<table class="queue"><thead><tr><th>${t('login')}</th><th>${t('email')}</th><th>${t('columnRegistered')}</th>${fields.map((field) => html`<th>${field.label}</th>`)}<th>${t('regDecision')}</th></tr></thead><tbody>
${view.members.length === 0 ? html`<tr><td colspan="${4 + fields.length}" class="muted">${t('regNone')}</td></tr>` : ''}
${view.members.map(
  (
    member,
  ) => html`<tr><td><a href="${memberPath(account.name, member.id)}">${member.login}</a></td><td data-label="${t('email')}">${member.email}</td><td data-label="${t('columnRegistered')}">${when(member.regAt)}</td>${fields.map((field) => html`<td data-label="${field.label}">${member.profile.get(field.name) ?? ''}</td>`)}
<td><div class="actions"><form method="post" action="${registrationsPath(account.name)}/${member.id}/approve"><button type="submit">${t('regApprove')}</button></form>
<details class="confirm"><summary class="button secondary">${t('regRefuseAsk')}</summary><form method="post" action="${registrationsPath(account.name)}/${member.id}/refuse"><p>${t('regRefuseConfirm', { login: member.login })}</p><label class="inline"><input type="checkbox" name="tell" value="1" checked> ${t('regMailThem')}</label><button type="submit" class="danger">${t('regRefuse')}</button></form></details></div></td></tr>`,
)}
</tbody></table></div>`,
  );
}
