/** A member's page (its fields, status and why, actions, edit form, sessions, logins, history), a new member, a deletion asked first. */
import type { Member } from '../../members/member.js';
import type { LoginEvent } from '../../members/login-records.js';
import type { SessionSummary } from '../../members/sessions.js';
import type { EventOrigin, StoredEvent } from '../../events/event.js';
import type { Role } from '../../operators/operator.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import { layout, option, statusBadge, when, type Chrome } from './layout.js';

const REG_TYPES: Record<string, string> = { F: 'free', P: 'paid', A: 'by the API', M: 'manual' };

export interface MemberView {
  readonly account: string;
  readonly role: Role;
  readonly member: Member;
  readonly profile: ReadonlyMap<string, string>;
  readonly lockedUntil: number | null;
  readonly logins: readonly LoginEvent[];
  readonly history: readonly StoredEvent[];
  /** The member's live sessions, newest first. */
  readonly sessions: readonly SessionSummary[];
  /** Whether the account sends mail (the reset mail's button). */
  readonly mailOn: boolean;
  readonly now: number;
}

/** Who made a change, as the history names it: the operator, the API key, the imported file, the member, the system. */
export function actorText(origin: EventOrigin): string {
  switch (origin.actor) {
    case 'operator':
      return origin.email ?? 'an operator';
    case 'api':
      return origin.name === undefined ? 'the API' : `the API, key ${origin.name}`;
    case 'import':
      return origin.name === undefined ? 'an import' : `the import of ${origin.name}`;
    case 'member':
      return 'the member';
    default:
      return 'the system';
  }
}

function statusWhy(view: MemberView): string {
  const { member, history, now } = view;
  if (member.status === 'A') return view.lockedUntil ? 'Active, but locked by failed logins.' : 'Active.';
  const change = history.find((event) => event.type === 'member.status_changed' || event.type === 'member.deleted');
  if (member.timeExpiry && member.timeExpiry.at <= now) return `Expired on ${when(member.timeExpiry.at)}.`;
  if (member.loginExpiry && member.loginExpiry.left <= 0) return 'Its allowance of logins is used up.';
  if (change) {
    const by = actorText(change.origin);
    const cause = typeof change.data.cause === 'string' ? ` (${change.data.cause.replace('_', ' ')})` : '';
    return `Changed by ${by}${cause} on ${when(change.at)}.`;
  }
  return member.status === 'S' ? 'Suspended.' : 'Deleted.';
}

/** A value in the history: "—" for none. */
const shown = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));

/**
 * What an event did, in words; undefined for an update whose only change the next row says
 * (a status change has a row of its own). Values old → new, the password only named.
 */
function describeEvent(event: StoredEvent): string | undefined {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'member.updated': {
      const before = (data.old ?? {}) as Record<string, unknown>;
      const after = (data.new ?? {}) as Record<string, unknown>;
      const fields = ((data.changed as string[] | undefined) ?? [])
        .filter((name) => name !== 'status')
        .map((name) => (name === 'password' ? 'password changed' : `${name}: ${shown(before[name])} → ${shown(after[name])}`));
      const profile = Object.entries((data.profile ?? {}) as Record<string, { old: unknown; new: unknown }>).map(
        ([name, change]) => `${name}: ${shown(change.old)} → ${shown(change.new)}`,
      );
      const all = [...fields, ...profile];
      return all.length > 0 ? all.join('; ') : undefined;
    }
    case 'member.status_changed':
      return `status ${String(data.from ?? '')} → ${String(data.to ?? '')}${data.cause ? ` (${String(data.cause)})` : ''}`;
    case 'member.bulk_updated': {
      // One event for every member the update changed: what it set, not each one's old value.
      const set = Object.entries((data.set ?? {}) as Record<string, unknown>).map(([name, value]) =>
        name === 'password' ? 'password changed' : `${name} → ${shown(value)}`,
      );
      const profile = (data.profile ?? {}) as { set?: Record<string, unknown>; deleted?: unknown[] };
      const fields = [
        ...Object.entries(profile.set ?? {}).map(([name, value]) => `${name} → ${shown(value)}`),
        ...(profile.deleted ?? []).map((name) => `${String(name)} removed`),
      ];
      const count = typeof data.count === 'number' ? data.count.toLocaleString('en') : '?';
      return `bulk update of ${count} ${data.count === 1 ? 'member' : 'members'}${data.selector === 'filter' ? ' (a console filter)' : ''}: ${[...set, ...fields].join('; ') || 'nothing set'}`;
    }
    case 'member.login':
      return `login ${String(data.outcome ?? '')}${data.ip ? ` from ${String(data.ip)}` : ''}`;
    default:
      return event.type.replace('member.', '');
  }
}

export function memberPage(chrome: Chrome, view: MemberView): string {
  const { member, account } = view;
  const canEdit = view.role !== 'viewer';
  const path = memberPath(account, member.id);
  const left = member.timeExpiry ? Math.max(0, member.timeExpiry.at - view.now) : null;
  const builtIn: Array<[string, unknown]> = [
    ['Id', member.id],
    ['Login', member.login],
    ['E-mail', member.email],
    ['E-mail verified', when(member.emailVerifiedAt)],
    ['Registration', `${REG_TYPES[member.regType] ?? member.regType} · ${when(member.regAt)}${member.regIp ? ` from ${member.regIp}` : ''}`],
    ['Logins', `${member.loginCount} · last ${when(member.lastLoginAt)}${member.lastLoginIp ? ` from ${member.lastLoginIp}` : ''}`],
    [
      'Time expiration',
      member.timeExpiry
        ? `${member.timeExpiry.action === 'D' ? 'deleted' : 'suspended'} at ${when(member.timeExpiry.at)}${left ? ` (${Math.ceil(left / 86_400_000)} days left)` : ''}`
        : 'none',
    ],
    [
      'Login expiration',
      member.loginExpiry ? `${member.loginExpiry.action === 'D' ? 'deleted' : 'suspended'} after ${member.loginExpiry.left} more logins` : 'none',
    ],
    ['OK URL', member.urlOk ?? ''],
    ['Fail URL', member.urlFail ?? ''],
    ['Billing', [member.billPc, member.billId, member.billItem, member.billCust, member.billSubscr, member.billQty].filter((v) => v).join(' · ') || '—'],
  ];
  return layout(
    `${member.login} · ${account}`,
    chrome,
    html`<p><a href="${membersPath(account)}">← Members of ${account}</a></p>
<div class="actions"><h1>${member.login}</h1>${statusBadge(member.status)}</div>
<div class="grid">
<div class="card"><h2>Member</h2><table class="kv"><tbody>${builtIn.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table></div>
<div class="card"><h2>Status</h2><p>${statusBadge(member.status)} ${statusWhy(view)}</p>
<p>${view.lockedUntil ? html`Locked until ${when(view.lockedUntil)}.` : 'Not locked.'}</p>
${
  canEdit
    ? html`<div class="actions">
${view.lockedUntil ? html`<form method="post" action="${path}/unlock"><button type="submit">Unlock</button></form>` : ''}
${member.status === 'A' ? html`<form method="post" action="${path}/status"><input type="hidden" name="status" value="S"><button type="submit" class="secondary">Suspend</button></form>` : html`<form method="post" action="${path}/status"><input type="hidden" name="status" value="A"><button type="submit">Restore</button></form>`}
${member.status !== 'D' ? html`<form method="post" action="${path}/status"><input type="hidden" name="status" value="D"><button type="submit" class="danger">Delete</button></form>` : ''}
</div>
${
  member.status !== 'D'
    ? html`<div class="actions">
${view.mailOn ? html`<form method="post" action="${path}/reset-mail"><button type="submit" class="secondary">Send a password reset mail</button></form>` : ''}
${member.emailVerifiedAt ? '' : html`<form method="post" action="${path}/verify"><button type="submit" class="secondary">Mark the e-mail verified</button></form>`}
</div>`
    : ''
}`
    : ''
}
<h2>Profile</h2><table class="kv"><tbody>${view.profile.size === 0 ? html`<tr><td class="muted">No profile fields.</td></tr>` : ''}${[...view.profile].map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table></div>
</div>
${
  canEdit
    ? html`<div class="card"><h2>Edit</h2><form method="post" action="${path}/edit" class="edit">
<label>Login <input name="login" value="${member.login}" required></label>
<label>E-mail <input name="email" value="${member.email}" required></label>
<label>New password <input type="password" name="password" autocomplete="new-password" placeholder="unchanged"></label>
${[...view.profile].map(([k, v]) => html`<label>${k} <input name="profile:${k}" value="${v}"></label>`)}
<label>OK URL <input name="urlok" value="${member.urlOk ?? ''}"></label>
<label>Fail URL <input name="urlfail" value="${member.urlFail ?? ''}"></label>
<label>Time expiration <select name="is_exp_time">${option('', 'unchanged', '')}${option('N', 'none', undefined)}${option('S', 'suspend after…', undefined)}${option('D', 'delete after…', undefined)}</select></label>
<label>…this long, from now <span class="pair"><input name="exp_time" inputmode="numeric" placeholder="30"><select name="exp_time_type">${option('D', 'days', 'D')}${option('M', 'months', undefined)}${option('Y', 'years', undefined)}${option('h', 'hours', undefined)}</select></span></label>
<label>Login expiration <select name="is_exp_logins">${option('', 'unchanged', '')}${option('N', 'none', undefined)}${option('S', 'suspend after…', undefined)}${option('D', 'delete after…', undefined)}</select></label>
<label>…this many logins <input name="exp_logins" inputmode="numeric" placeholder="10"></label>
<label>Add profile field <input name="new_field" placeholder="name"></label>
<label>…with value <input name="new_value"></label>
<div class="actions"><button type="submit">Save</button></div></form>
<p class="muted">An empty profile field is removed.</p></div>`
    : ''
}
<div class="card"><div class="actions"><h2>Sessions</h2>${
      canEdit && view.sessions.length > 0
        ? html`<form method="post" action="${path}/sessions/end-all"><button type="submit" class="secondary">End all</button></form>`
        : ''
    }</div>
<table><thead><tr><th>Signed in</th><th>Last seen</th><th>IP</th><th>Kept signed in</th>${canEdit ? html`<th></th>` : ''}</tr></thead><tbody>
${view.sessions.length === 0 ? html`<tr><td colspan="5" class="muted">No session: signed in nowhere.</td></tr>` : ''}
${view.sessions.map(
  (session) =>
    html`<tr><td>${when(session.createdAt)}</td><td>${when(session.seenAt ?? session.createdAt)}</td><td>${session.ip ?? '—'}</td><td>${session.remember ? 'yes' : 'no'}</td>${
      canEdit
        ? html`<td><form method="post" action="${path}/sessions/end"><input type="hidden" name="session" value="${session.digest}"><button type="submit" class="secondary">End this one</button></form></td>`
        : ''
    }</tr>`,
)}</tbody></table></div>
<div class="grid">
<div class="card"><h2>Last logins</h2><table><thead><tr><th>Time</th><th>Outcome</th><th>IP</th></tr></thead><tbody>
${view.logins.length === 0 ? html`<tr><td colspan="3" class="muted">None recorded (logins are recorded when the site sends the member’s IP).</td></tr>` : ''}
${view.logins.map((login) => html`<tr><td>${when(login.at)}</td><td>${login.outcome}</td><td>${login.ip}</td></tr>`)}</tbody></table></div>
<div class="card"><h2>History</h2><table><thead><tr><th>Time</th><th>What</th><th>By</th></tr></thead><tbody>
${view.history.length === 0 ? html`<tr><td colspan="3" class="muted">No events kept.</td></tr>` : ''}
${view.history.map((event) => {
  const what = describeEvent(event);
  return what === undefined ? '' : html`<tr><td>${when(event.at)}</td><td>${what}</td><td>${actorText(event.origin)}</td></tr>`;
})}</tbody></table></div>
</div>`,
  );
}

export function newMemberPage(chrome: Chrome, account: string, form: Readonly<Record<string, string>> = {}): string {
  return layout(
    `New member · ${account}`,
    chrome,
    html`<p><a href="${membersPath(account)}">← Members of ${account}</a></p><h1>New member</h1>
<div class="card"><form method="post" action="${membersPath(account)}/new" class="edit">
<label>Login <input name="login" value="${form.login ?? ''}" required></label>
<label>E-mail <input type="email" name="email" value="${form.email ?? ''}" required></label>
<label>Password <input type="password" name="password" autocomplete="new-password" placeholder="generated when empty"></label>
<label>Profile field <input name="new_field" value="${form.new_field ?? ''}" placeholder="name"></label>
<label>…with value <input name="new_value" value="${form.new_value ?? ''}"></label>
<div class="actions"><button type="submit">Create</button></div></form></div>`,
  );
}

/** Delete asked once more: what it does, and a button that does it. */
export function confirmDeletePage(chrome: Chrome, account: string, member: Member): string {
  const path = memberPath(account, member.id);
  return layout(
    `Delete ${member.login}?`,
    chrome,
    html`<div class="narrow card"><h1>Delete ${member.login}?</h1>
<p>${member.login} (${member.email}) will no longer sign in, and its sessions end now. Its data stays, among the Deleted members, until the server's retention (DELETED_RETENTION_DAYS, 30 days by default) purges it; until then <strong>Restore</strong> on its page brings it back.</p>
<div class="actions"><form method="post" action="${path}/status"><input type="hidden" name="status" value="D"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">Delete ${member.login}</button></form>
<a class="button secondary" href="${path}">Cancel</a></div></div>`,
  );
}

/** A member made with a generated password: shown here once (this page is no redirect, so the password is in no address). */
export function memberCreatedPage(chrome: Chrome, account: string, created: { id: number; login: string; password: string }): string {
  return layout(
    'Member created',
    chrome,
    html`<div class="notice ok" role="status">Member ${created.login} created. Its generated password: ${created.password} (shown this once).</div><p><a class="button" href="${memberPath(account, created.id)}">Open ${created.login}</a> <a href="${membersPath(account)}">Back to the members</a></p>`,
  );
}
