/** The account at a glance: members by status, registrations and logins per day as charts, the expiring members, the last failed logins. */
import type { Overview } from '../../accounts/overview.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import { barChart } from './charts.js';
import { layout, statusBadge, when, type Chrome } from './layout.js';

const number = (n: number) => n.toLocaleString('en');
const OUTCOMES: Record<string, string> = { 'wrong-credentials': 'wrong login or password', suspended: 'suspended', locked: 'locked' };

export function overviewPage(chrome: Chrome, account: string, overview: Overview): string {
  const { byStatus, days, expiring, failedLogins } = overview;
  const labels = days.map((day) => day.day);
  const members = membersPath(account);
  const tile = (status: 'A' | 'S' | 'D') =>
    html`<a class="tile" href="${members}?status=${status}"><span class="figure">${number(byStatus[status])}</span>${statusBadge(status)}</a>`;
  const sum = (pick: (day: (typeof days)[number]) => number) => number(days.reduce((total, day) => total + pick(day), 0));
  return layout(
    `Overview of ${account}`,
    chrome,
    html`<h1>Overview of ${account}</h1>
<div class="tiles">${tile('A')}${tile('S')}${tile('D')}</div>
<div class="grid charts">
<div class="card">${barChart(`Registrations per day, last 30 days (${sum((d) => d.registered)})`, labels, [
      { name: 'registered', className: 'series-new', values: days.map((d) => d.registered) },
    ])}</div>
<div class="card">${barChart(
      `Logins per day, last 30 days (${sum((d) => d.loginOk)} OK, ${sum((d) => d.loginFailed)} failed, ${sum((d) => d.loginLocked)} locked)`,
      labels,
      [
        { name: 'OK', className: 'series-ok', values: days.map((d) => d.loginOk) },
        { name: 'failed', className: 'series-failed', values: days.map((d) => d.loginFailed) },
        { name: 'locked', className: 'series-locked', values: days.map((d) => d.loginLocked) },
      ],
    )}</div>
</div>
<details class="card"><summary>The charts’ figures, day by day</summary><div class="scroll"><table><thead><tr><th>Day</th><th>Registered</th><th>Logins OK</th><th>Failed</th><th>Locked</th></tr></thead><tbody>
${[...days].reverse().map((d) => html`<tr><td>${d.day}</td><td>${number(d.registered)}</td><td>${number(d.loginOk)}</td><td>${number(d.loginFailed)}</td><td>${number(d.loginLocked)}</td></tr>`)}
</tbody></table></div></details>
<div class="grid">
<div class="card"><h2>Expiring in the next 7 days: ${expiring.count >= expiring.countedUpTo ? `${number(expiring.countedUpTo)} or more` : number(expiring.count)}</h2>
${
  expiring.members.length === 0
    ? html`<p class="muted">No Active member’s time expiration falls due in the next 7 days.</p>`
    : html`<table><thead><tr><th>Member</th><th>Falls due</th><th>Then</th></tr></thead><tbody>${expiring.members.map(
        (m) =>
          html`<tr><td><a href="${memberPath(account, m.id)}">${m.login}</a><br><span class="muted">${m.email}</span></td><td>${when(m.expiresAt)}</td><td>${statusBadge(m.action)}</td></tr>`,
      )}</tbody></table>${expiring.count > expiring.members.length ? html`<p class="muted">The ${expiring.members.length} soonest are shown.</p>` : ''}`
}</div>
<div class="card"><h2>Last failed logins</h2>
${
  failedLogins.length === 0
    ? html`<p class="muted">None recorded. Failed logins are listed when they were made with the member’s address (the sign-in page, or /login/ with IP).</p>`
    : html`<div class="scroll"><table class="failed"><thead><tr><th>When</th><th>Login</th><th>Address</th><th>Why</th></tr></thead><tbody>${failedLogins.map(
        (f) =>
          html`<tr><td>${when(f.at)}</td><td>${f.memberId ? html`<a href="${memberPath(account, f.memberId)}">${f.login}</a>` : f.login}</td><td>${f.ip}</td><td>${OUTCOMES[f.outcome] ?? f.outcome}</td></tr>`,
      )}</tbody></table></div>`
}</div>
</div>`,
  );
}
