/** A bulk action: its form under the members page's filter, and its confirmation (what it does, to how many, a sample). */
import type { Member } from '../../members/member.js';
import type { BulkAction } from '../commands.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import type { Params } from '../replies.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { layout, statusBadge, t, when, type Chrome } from './layout.js';

/** What a bulk action can do, as the form offers it. */
export const BULK_ACTIONS: Record<BulkAction, ConsoleKey> = {
  suspend: 'suspend',
  activate: 'activate',
  delete: 'delete',
  'set-field': 'bulkSetField',
  'remove-field': 'bulkRemoveField',
  'set-expiry': 'bulkSetExpiry',
  'clear-expiry': 'bulkClearExpiry',
};

const UNITS: Record<string, ConsoleKey> = { D: 'days', M: 'months', Y: 'years' };

/** "1 member", "1,234 members". */
const memberCount = (count: number) => `${count.toLocaleString('en')} ${t(count === 1 ? 'member' : 'members')}`;

/** What the action does, in words, for its confirmation. */
export function describe(form: Params, count: number): string {
  const members = memberCount(count);
  switch (form.action as BulkAction) {
    case 'suspend':
      return t('bulkSuspendText', { members });
    case 'activate':
      return t('bulkActivateText', { members });
    case 'delete':
      return t('bulkDeleteText', { members });
    case 'set-field':
      return t('bulkSetFieldText', { field: form.new_field?.trim() ?? '', value: form.new_value ?? '', members });
    case 'remove-field':
      return t('bulkRemoveFieldText', { field: form.field ?? '', members });
    case 'set-expiry': {
      const unit = UNITS[form.exp_time_type ?? ''];
      return t('bulkSetExpiryText', {
        members,
        time: form.exp_time ?? '',
        unit: unit ? t(unit) : '',
        then: t(form.exp_mode === 'D' ? 'deleted' : 'suspended'),
      });
    }
    case 'clear-expiry':
      return t('bulkClearExpiryText', { members });
  }
}

export interface BulkConfirmation {
  readonly account: string;
  readonly title: string;
  readonly text: string;
  readonly count: number;
  readonly sample: readonly Member[];
  /** Where the confirmation posts: the bulk address with the filter's query. */
  readonly target: string;
  /** The action's fields, posted again with `confirm=1`. */
  readonly action: Params;
  readonly back: string;
}

/** A change of more members than this is shown in the danger colour and asks for their count, typed. */
export const LARGE_BULK = 1000;
const large = (count: number) => count > LARGE_BULK;

/** Whether a large change's count was typed (thousands' commas and spaces aside). */
export function countTyped(form: Readonly<Record<string, string>>, count: number): boolean {
  return !large(count) || (form.typed_count ?? '').replace(/[\s,.\u202f]/g, '') === String(count);
}

export function confirmBulkPage(chrome: Chrome, view: BulkConfirmation): string {
  const more = view.count - view.sample.length;
  return layout(
    t('bulkConfirmTitle', { action: view.title }),
    chrome,
    html`<div class="card"><h1>${t('bulkConfirmTitle', { action: view.title })}</h1>
<p>${view.text}</p>
${
  view.count === 0
    ? html`<p class="muted">${t('bulkNoMatch')}</p>`
    : html`<p class="muted">${more > 0 ? t('bulkAmongTheNewest', { shown: view.sample.length, more: more.toLocaleString('en') }) : t('bulkAmongThem')}</p>
<table><thead><tr><th>${t('id')}</th><th>${t('login')}</th><th>${t('email')}</th><th>${t('status')}</th><th>${t('columnRegistered')}</th></tr></thead><tbody>
${view.sample.map((member) => html`<tr><td>${member.id}</td><td><a href="${memberPath(view.account, member.id)}">${member.login}</a></td><td>${member.email}</td><td>${statusBadge(member.status)}</td><td>${when(member.regAt)}</td></tr>`)}
</tbody></table>`
}
<div class="actions">${
      view.count === 0
        ? ''
        : html`<form method="post" action="${view.target}">${Object.entries(view.action).map(
            ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
          )}<input type="hidden" name="confirm" value="1">${
            large(view.count)
              ? html`<label>${t('bulkTypeCount', { count: view.count.toLocaleString('en') })} <input name="typed_count" inputmode="numeric" autocomplete="off" required></label>`
              : ''
          }<button type="submit"${view.action.action === 'delete' || large(view.count) ? html` class="danger"` : ''}>${t('bulkConfirmButton', { action: view.title, members: memberCount(view.count) })}</button></form>`
    }<a href="${view.back}">${t('cancel')}</a></div></div>`,
  );
}

/** The members page's bulk action form (editors), for the members its filter finds. */
export function bulkForm(account: string, search: string, total: number): ReturnType<typeof html> {
  const option = (value: string, label: string) => html`<option value="${value}">${label}</option>`;
  return html`<details class="card bulk"><summary>${total === 1 ? t('bulkOnThisMember') : t('bulkOnTheseMembers', { count: total.toLocaleString('en') })}</summary>
<form class="more" method="post" action="${membersPath(account)}/bulk${search ? `?${search}` : ''}">
<label>${t('bulkAction')} <select name="action">${Object.entries(BULK_ACTIONS).map(([value, label]) => option(value, t(label)))}</select></label>
<label>${t('bulkFieldToSet')} <input name="new_field" placeholder="plan"></label>
<label>${t('bulkToTheValue')} <input name="new_value"></label>
<label>${t('bulkFieldToRemove')} <input name="field" placeholder="plan"></label>
<label>${t('bulkExpiresIn')} <input type="number" name="exp_time" min="1" placeholder="30"></label>
<label>${t('bulkUnit')} <select name="exp_time_type">${option('D', t('days'))}${option('M', t('months'))}${option('Y', t('years'))}</select></label>
<label>${t('then')} <select name="exp_mode">${option('S', t('suspended'))}${option('D', t('deleted'))}</select></label>
<div class="actions"><button type="submit" class="secondary">${t('bulkPreview')}</button></div>
</form></details>`;
}
