/** The members page: one search box and more filters, sortable columns, the position, the pager, the bulk form. */
import type { Member } from '../../members/member.js';
import type { Role } from '../../operators/operator.js';
import { html, type Html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import { accountTitle, layout, option, statusBadge, t, when, type Chrome } from './layout.js';

export interface MembersView {
  readonly account: string;
  readonly role: Role;
  /** The filter form's values, as sent. */
  readonly form: Readonly<Record<string, string>>;
  readonly columns: readonly string[];
  readonly members: ReadonlyArray<{ member: Member; profile: ReadonlyMap<string, string> }>;
  /** The members the search's words name exactly (a login, an address): shown first. */
  readonly exact?: readonly Member[];
  /** Then those whose login or address begins with the words. */
  readonly prefix?: readonly Member[];
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

/** A filter of the last day, week or month. */
const within = (name: string, f: Readonly<Record<string, string>>) =>
  html`<select name="${name}">${option('', '—', f[name])}${option('1', t('withinDay'), f[name])}${option('7', t('within7'), f[name])}${option('30', t('within30'), f[name])}</select>`;

/** "51–100 of 3,006"; the count alone when one page shows them all or its position is not known. */
function position(view: MembersView): Html {
  const total = view.total.toLocaleString('en');
  const whole = view.members.length === view.total;
  if (view.members.length === 0 || view.at === undefined || whole) return html`<strong>${total}</strong> ${t(view.total === 1 ? 'member' : 'members')}`;
  const last = view.at + view.members.length - 1;
  return html`<strong>${view.at.toLocaleString('en')}–${last.toLocaleString('en')}</strong> ${t('positionOf')} <strong>${total}</strong>`;
}

/**
 * The members the search's words name exactly, then those whose login or address begins with
 * them, above the list: the one typed is never on its last page.
 */
function matches(view: MembersView): Html {
  return html`${matchList(view, 'exact', t(view.exact?.length === 1 ? 'exactMatch' : 'exactMatches'), view.exact)}${matchList(view, 'prefix', t('prefixMatches', { words: view.form.q?.trim() ?? '' }), view.prefix)}`;
}

function matchList(view: MembersView, kind: string, title: string, members: readonly Member[] | undefined): Html | string {
  if (!members || members.length === 0) return '';
  return html`<section class="card ${kind}" aria-labelledby="${kind}-title"><h2 id="${kind}-title">${title}</h2>
<ul class="plain">${members.map((member) => html`<li><a href="${memberPath(view.account, member.id)}"><strong>${member.login}</strong></a> ${member.email} ${statusBadge(member.status)}</li>`)}</ul></section>`;
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
    Object.entries(f).filter(([name, value]) => value !== '' && !['after', 'before', 'last', 'at', 'done', 'changed', 'go'].includes(name)),
  ).toString();
  return layout(
    accountTitle('navMembers', view.account),
    chrome,
    html`<div class="actions"><h1>${accountTitle('navMembers', view.account)}</h1>${canEdit ? html`<a class="button secondary" href="${membersPath(view.account)}/new">${t('newMember')}</a><a class="button secondary" href="${membersPath(view.account)}/export${exportSearch ? `?${exportSearch}` : ''}">${t('export')}</a><a class="button secondary" href="${membersPath(view.account)}/import">${t('import')}</a>` : ''}</div>
<div class="card"><form class="filters" method="get" action="${membersPath(view.account)}">
<div class="search"><label>${t('search')} <input type="search" name="q" value="${f.q ?? ''}" placeholder="${t('searchPlaceholder')}" autofocus></label>
<label>${t('status')} <select name="status">${option('', t('statusActiveAndSuspended'), f.status)}${option('A', t('statusA'), f.status)}${option('S', t('statusS'), f.status)}${option('D', t('statusD'), f.status)}${option('all', t('statusAll'), f.status)}</select></label>
<input type="hidden" name="go" value="1"><button type="submit">${t('search')}</button></div>
<details${moreFilters(f) ? html` open` : ''}><summary>${t('moreFilters')}</summary><div class="more">
<label>${t('loginContains')} <input name="login" value="${f.login ?? ''}"></label>
<label>${t('emailContains')} <input name="email" value="${f.email ?? ''}"></label>
<label>${t('profileContains')} <input name="profile" value="${f.profile ?? ''}"></label>
<label>${t('profileField')} <input name="field" value="${f.field ?? ''}" placeholder="${t('profileFieldPlaceholder')}"></label>
<label>${t('fieldContains')} <input name="field_value" value="${f.field_value ?? ''}"></label>
<label>${t('registration')} <select name="reg_type">${option('', t('regTypeAny'), f.reg_type)}${option('F', t('regTypeF'), f.reg_type)}${option('P', t('regTypeP'), f.reg_type)}${option('A', t('regTypeA'), f.reg_type)}${option('M', t('regTypeM'), f.reg_type)}</select></label>
<label>${t('registeredFrom')} <input type="date" name="registered_from" value="${f.registered_from ?? ''}"></label>
<label>${t('registeredBefore')} <input type="date" name="registered_before" value="${f.registered_before ?? ''}"></label>
<label>${t('registeredWithin')} ${within('created_within', f)}</label>
<label>${t('deletedWithin')} ${within('deleted_within', f)}</label>
<label>${t('columns')} <input name="columns" value="${f.columns ?? ''}" placeholder="city,plan"></label>
${f.sort ? html`<input type="hidden" name="sort" value="${f.sort}">` : ''}${f.dir ? html`<input type="hidden" name="dir" value="${f.dir}">` : ''}
</div></details>
<div class="actions"><a href="${membersPath(view.account)}">${t('clear')}</a></div>
</form></div>
${matches(view)}${view.bulk ?? ''}<div class="card"><p class="count">${position(view)}</p>
<table><thead><tr>${sortable(view, 'id', t('id'))}${sortable(view, 'login', t('login'))}${sortable(view, 'email', t('email'))}${sortable(view, 'status', t('status'))}${sortable(view, 'registered', t('columnRegistered'))}<th>${t('columnLastLogin')}</th>${view.columns.map((c) => html`<th>${c}</th>`)}</tr></thead><tbody>
${view.members.length === 0 ? html`<tr><td colspan="${6 + view.columns.length}" class="muted">${t('noMemberMatches')}</td></tr>` : ''}
${view.members.map(({ member, profile }) => html`<tr><td>${member.id}</td><td><a href="${memberPath(view.account, member.id)}">${member.login}</a></td><td>${member.email}</td><td>${statusBadge(member.status)}</td><td>${when(member.regAt)}</td><td>${when(member.lastLoginAt)}</td>${view.columns.map((c) => html`<td>${profile.get(c) ?? ''}</td>`)}</tr>`)}
</tbody></table>
<nav class="pager">${view.first ? html`<a class="button secondary" href="${view.first}">${t('pageFirst')}</a>` : ''}${view.previous ? html`<a class="button secondary" href="${view.previous}">${t('pagePrevious')}</a>` : ''}${view.next ? html`<a class="button secondary" href="${view.next}">${t('pageNext')}</a>` : ''}${view.last ? html`<a class="button secondary" href="${view.last}">${t('pageLast')}</a>` : ''}</nav>
</div>`,
  );
}
