/** The account at a glance: members by status, registrations and logins per day as charts, the expiring members, the last failed logins. */
import type { Overview } from '../../accounts/overview.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import { barChart } from './charts.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { accountTitle, layout, statusBadge, t, when, type Chrome } from './layout.js';

const number = (n: number) => n.toLocaleString('en');
const OUTCOMES: Record<string, ConsoleKey> = { 'wrong-credentials': 'ovWrongCredentials', suspended: 'suspended', locked: 'locked' };

export function overviewPage(chrome: Chrome, account: string, overview: Overview): string {
  const { byStatus, days, expiring, failedLogins } = overview;
  const labels = days.map((day) => day.day);
  const members = membersPath(account);
  const tile = (status: 'A' | 'S' | 'D') =>
    html`<a class="tile" href="${members}?status=${status}"><span class="figure">${number(byStatus[status])}</span>${statusBadge(status)}</a>`;
  const sum = (pick: (day: (typeof days)[number]) => number) => number(days.reduce((total, day) => total + pick(day), 0));
  return layout(
    accountTitle('navOverview', account),
    chrome,
    html`<h1>${accountTitle('navOverview', account)}</h1>
<div class="tiles">${tile('A')}${tile('S')}${tile('D')}</div>
<div class="grid charts">
<div class="card">${barChart(t('ovRegistrationsChart', { registered: sum((d) => d.registered) }), labels, [
      { name: t('ovRegistered'), className: 'series-new', values: days.map((d) => d.registered) },
    ])}</div>
<div class="card">${barChart(t('ovLoginsChart', { ok: sum((d) => d.loginOk), failed: sum((d) => d.loginFailed), locked: sum((d) => d.loginLocked) }), labels, [
      { name: t('ovOk'), className: 'series-ok', values: days.map((d) => d.loginOk) },
      { name: t('ovFailed'), className: 'series-failed', values: days.map((d) => d.loginFailed) },
      { name: t('locked'), className: 'series-locked', values: days.map((d) => d.loginLocked) },
    ])}</div>
</div>
<details class="card"><summary>${t('ovFigures')}</summary><div class="scroll"><table><thead><tr><th>${t('ovDay')}</th><th>${t('columnRegistered')}</th><th>${t('ovLoginsOk')}</th><th>${t('ovFailedColumn')}</th><th>${t('ovLockedColumn')}</th></tr></thead><tbody>
${[...days].reverse().map((d) => html`<tr><td>${d.day}</td><td>${number(d.registered)}</td><td>${number(d.loginOk)}</td><td>${number(d.loginFailed)}</td><td>${number(d.loginLocked)}</td></tr>`)}
</tbody></table></div></details>
<div class="grid">
<div class="card"><h2>${t('ovExpiring', { count: expiring.count >= expiring.countedUpTo ? t('ovOrMore', { count: number(expiring.countedUpTo) }) : number(expiring.count) })}</h2>
${
  expiring.members.length === 0
    ? html`<p class="muted">${t('ovNoneExpiring')}</p>`
    : html`<table><thead><tr><th>${t('memberHeading')}</th><th>${t('ovFallsDue')}</th><th>${t('then')}</th></tr></thead><tbody>${expiring.members.map(
        (m) =>
          html`<tr><td><a href="${memberPath(account, m.id)}">${m.login}</a><br><span class="muted">${m.email}</span></td><td>${when(m.expiresAt)}</td><td>${statusBadge(m.action)}</td></tr>`,
      )}</tbody></table>${expiring.count > expiring.members.length ? html`<p class="muted">${t('ovSoonestShown', { count: expiring.members.length })}</p>` : ''}`
}</div>
<div class="card"><h2>${t('ovFailedLogins')}</h2>
${
  failedLogins.length === 0
    ? html`<p class="muted">${t('ovNoFailedLogins')}</p>`
    : html`<div class="scroll"><table class="failed"><thead><tr><th>${t('ovWhen')}</th><th>${t('login')}</th><th>${t('ovAddress')}</th><th>${t('ovWhy')}</th></tr></thead><tbody>${failedLogins.map(
        (f) =>
          html`<tr><td>${when(f.at)}</td><td>${f.memberId ? html`<a href="${memberPath(account, f.memberId)}">${f.login}</a>` : f.login}</td><td>${f.ip}</td><td>${OUTCOMES[f.outcome] ? t(OUTCOMES[f.outcome]!) : f.outcome}</td></tr>`,
      )}</tbody></table></div>`
}</div>
</div>`,
  );
}
