/** The members page: one search box and more filters, sortable columns, the position, the pager, the bulk form. */
import type { Member } from '../../members/member.js';
import type { Role } from '../../operators/operator.js';
import { html, type Html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import { layout, option, statusBadge, when, type Chrome } from './layout.js';

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
