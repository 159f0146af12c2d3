/**
 * The console's pages, as functions of what they show. Every value goes through `html`, which
 * escapes it; no page has a script or a style attribute (the Content-Security-Policy allows
 * neither): the pages work with JavaScript off.
 */
import type { Member } from '../members/member.js';
import type { LoginEvent } from '../members/login-records.js';
import type { SessionSummary } from '../members/sessions.js';
import type { EventOrigin, StoredEvent } from '../events/event.js';
import type { Operator, Role } from '../operators/operator.js';
import { html, type Html } from '../http/html.js';

export interface Chrome {
  readonly operator?: Operator;
  /** The account the page is about, for the navigation. */
  readonly account?: string;
  readonly notice?: { readonly kind: 'ok' | 'error'; readonly text: string };
}

const STATUS_NAMES: Record<string, string> = { A: 'Active', S: 'Suspended', D: 'Deleted' };
const REG_TYPES: Record<string, string> = { F: 'free', P: 'paid', A: 'by the API', M: 'manual' };
export const when = (instant: number | null | undefined) => (instant ? new Date(instant).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');
export const statusBadge = (status: string) => html`<span class="badge ${status}">${STATUS_NAMES[status] ?? status}</span>`;
export const membersPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/members`;
export const memberPath = (account: string, id: number) => `${membersPath(account)}/${id}`;

/** An account's pages, by the least role that opens them; the page whose title starts with its heading is the current one. */
const ACCOUNT_PAGES: ReadonlyArray<{ heading: string; path: string; role: Role }> = [
  { heading: 'Overview', path: 'overview', role: 'viewer' },
  { heading: 'Members', path: 'members', role: 'viewer' },
  { heading: 'Registrations', path: 'registrations', role: 'viewer' },
  { heading: 'Member pages', path: 'member-pages', role: 'owner' },
  { heading: 'Settings', path: 'settings', role: 'owner' },
  { heading: 'Mail', path: 'mail', role: 'owner' },
  { heading: 'API keys', path: 'keys', role: 'owner' },
  { heading: 'Operators', path: 'operators', role: 'owner' },
  { heading: 'Webhooks', path: 'webhooks', role: 'owner' },
];
const RANK: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

function accountNav(operator: Operator, account: string, title: string): Html {
  const role = operator.accounts.find((grant) => grant.account === account)?.role;
  if (!role) return html``;
  const pages = ACCOUNT_PAGES.filter((page) => RANK[role] >= RANK[page.role]);
  return html`<nav class="account-nav" aria-label="${account}">${pages.map(
    (page) =>
      html`<a href="/admin/accounts/${encodeURIComponent(account)}/${page.path}" class="${title.startsWith(`${page.heading} of`) ? 'current' : ''}">${page.heading}</a>`,
  )}</nav>`;
}

export function layout(title: string, chrome: Chrome, body: Html): string {
  const { operator, account } = chrome;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · member-api console</title><link rel="stylesheet" href="/admin/console.css"></head>
<body>
<header class="top"><a class="brand" href="/admin/">member-api console</a>
<nav>${operator ? operator.accounts.map((grant) => html`<a href="${membersPath(grant.account)}" class="${grant.account === account ? 'current' : ''}">${grant.account}</a>`) : ''}</nav>
${
  operator
    ? html`<div class="who"><span>${operator.email}</span><a href="/admin/two-step">Two-step sign-in${operator.twoStep ? ': on' : ''}</a>
<form method="post" action="/admin/sign-out"><button type="submit">Sign out</button></form>
<form method="post" action="/admin/sign-out-everywhere"><button type="submit">Sign out everywhere</button></form></div>`
    : ''
}
</header>
<main>${operator && account ? accountNav(operator, account, title) : ''}${chrome.notice ? html`<div class="notice ${chrome.notice.kind}" role="status">${chrome.notice.text}</div>` : ''}${body}</main>
</body></html>
`.value;
}

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

export function messagePage(title: string, text: string, chrome: Chrome, link?: { href: string; text: string }): string {
  return layout(
    title,
    chrome,
    html`<div class="narrow card"><h1>${title}</h1><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ''}</div>`,
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

export interface MembersView {
  readonly account: string;
  readonly role: Role;
  /** The filter form's values, as sent. */
  readonly form: Readonly<Record<string, string>>;
  readonly columns: readonly string[];
  readonly members: ReadonlyArray<{ member: Member; profile: ReadonlyMap<string, string> }>;
  readonly total: number;
  /** The position of the page's first member, when known. */
  readonly at?: number;
  readonly sort?: { readonly order: string; readonly descending: boolean };
  /** The page sorted by a column: ascending, or the other way when it is sorted so already. */
  readonly sortLink?: (column: string) => string;
  /** The bulk action form, for an editor. */
  readonly bulk?: Html;
  readonly first?: string;
  readonly previous?: string;
  readonly next?: string;
  readonly last?: string;
}

const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;

/** Whether a filter under "More filters" is in use: then it opens, so that it shows. */
const moreFilters = (f: Readonly<Record<string, string>>) =>
  ['login', 'email', 'profile', 'field', 'field_value', 'reg_type', 'registered_from', 'registered_before', 'created_within', 'deleted_within', 'columns'].some(
    (name) => (f[name] ?? '') !== '',
  );

/** "51–100 of 3,006"; the count alone when one page shows them all or its position is not known. */
function position(view: MembersView): Html {
  const total = view.total.toLocaleString('en');
  const whole = view.members.length === view.total;
  if (view.members.length === 0 || view.at === undefined || whole) return html`<strong>${total}</strong> ${view.total === 1 ? 'member' : 'members'}`;
  const last = view.at + view.members.length - 1;
  return html`<strong>${view.at.toLocaleString('en')}–${last.toLocaleString('en')}</strong> of <strong>${total}</strong>`;
}

/** A column's heading: a link that sorts by it (the other way when it is sorted so already), with aria-sort. */
function sortable(view: MembersView, column: string, label: string): Html {
  if (!view.sortLink) return html`<th>${label}</th>`;
  const current = view.sort?.order === column;
  const way = current ? (view.sort!.descending ? 'descending' : 'ascending') : undefined;
  return html`<th${way ? html` aria-sort="${way}"` : ''}><a href="${view.sortLink(column)}">${label}${way ? (way === 'ascending' ? ' ▲' : ' ▼') : ''}</a></th>`;
}

export function membersPage(chrome: Chrome, view: MembersView): string {
  const f = view.form;
  const canEdit = view.role !== 'viewer';
  // The export carries the page's filter, order and columns, not its position.
  const exportSearch = new URLSearchParams(
    Object.entries(f).filter(([name, value]) => value !== '' && !['after', 'before', 'last', 'at', 'done', 'changed'].includes(name)),
  ).toString();
  return layout(
    `Members of ${view.account}`,
    chrome,
    html`<div class="actions"><h1>Members of ${view.account}</h1>${canEdit ? html`<a class="button secondary" href="${membersPath(view.account)}/new">New member</a><a class="button secondary" href="${membersPath(view.account)}/export${exportSearch ? `?${exportSearch}` : ''}">Export</a><a class="button secondary" href="${membersPath(view.account)}/import">Import</a>` : ''}</div>
<div class="card"><form class="filters" method="get" action="${membersPath(view.account)}">
<div class="search"><label>Search <input type="search" name="q" value="${f.q ?? ''}" placeholder="login, e-mail, id or any profile value" autofocus></label>
<label>Status <select name="status">${option('', 'Active and suspended', f.status)}${option('A', 'Active', f.status)}${option('S', 'Suspended', f.status)}${option('D', 'Deleted', f.status)}${option('all', 'All, including Deleted', f.status)}</select></label>
<button type="submit">Search</button></div>
<details${moreFilters(f) ? html` open` : ''}><summary>More filters</summary><div class="more">
<label>Login contains <input name="login" value="${f.login ?? ''}"></label>
<label>E-mail contains <input name="email" value="${f.email ?? ''}"></label>
<label>Any profile field contains <input name="profile" value="${f.profile ?? ''}"></label>
<label>Profile field <input name="field" value="${f.field ?? ''}" placeholder="name"></label>
<label>…contains <input name="field_value" value="${f.field_value ?? ''}"></label>
<label>Registration <select name="reg_type">${option('', 'Any', f.reg_type)}${option('F', 'Free', f.reg_type)}${option('P', 'Paid', f.reg_type)}${option('A', 'By the API', f.reg_type)}${option('M', 'Manual', f.reg_type)}</select></label>
<label>Registered from <input type="date" name="registered_from" value="${f.registered_from ?? ''}"></label>
<label>Registered before <input type="date" name="registered_before" value="${f.registered_before ?? ''}"></label>
<label>Registered in the last <select name="created_within">${option('', '—', f.created_within)}${option('1', 'day', f.created_within)}${option('7', '7 days', f.created_within)}${option('30', '30 days', f.created_within)}</select></label>
<label>Deleted in the last <select name="deleted_within">${option('', '—', f.deleted_within)}${option('1', 'day', f.deleted_within)}${option('7', '7 days', f.deleted_within)}${option('30', '30 days', f.deleted_within)}</select></label>
<label>Columns (profile fields) <input name="columns" value="${f.columns ?? ''}" placeholder="city,plan"></label>
${f.sort ? html`<input type="hidden" name="sort" value="${f.sort}">` : ''}${f.dir ? html`<input type="hidden" name="dir" value="${f.dir}">` : ''}
</div></details>
<div class="actions"><a href="${membersPath(view.account)}">Clear</a></div>
</form></div>
${view.bulk ?? ''}<div class="card"><p class="count">${position(view)}</p>
<table><thead><tr>${sortable(view, 'id', 'Id')}${sortable(view, 'login', 'Login')}${sortable(view, 'email', 'E-mail')}${sortable(view, 'status', 'Status')}${sortable(view, 'registered', 'Registered')}<th>Last login</th>${view.columns.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>
${view.members.length === 0 ? html`<tr><td colspan="${6 + view.columns.length}" class="muted">No member matches.</td></tr>` : ''}
${view.members.map(({ member, profile }) => html`<tr><td>${member.id}</td><td><a href="${memberPath(view.account, member.id)}">${member.login}</a></td><td>${member.email}</td><td>${statusBadge(member.status)}</td><td>${when(member.regAt)}</td><td>${when(member.lastLoginAt)}</td>${view.columns.map((c) => html`<td>${profile.get(c) ?? ''}</td>`)}</tr>`)}
</tbody></table>
<nav class="pager">${view.first ? html`<a class="button secondary" href="${view.first}">First</a>` : ''}${view.previous ? html`<a class="button secondary" href="${view.previous}">Previous</a>` : ''}${view.next ? html`<a class="button secondary" href="${view.next}">Next</a>` : ''}${view.last ? html`<a class="button secondary" href="${view.last}">Last</a>` : ''}</nav>
</div>`,
  );
}

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
