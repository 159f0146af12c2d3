/** A bulk action: its form under the members page's filter, and its confirmation (what it does, to how many, a sample). */
import type { Member } from '../../members/member.js';
import type { BulkAction } from '../commands.js';
import { html } from '../../http/html.js';
import { memberPath, membersPath } from '../paths.js';
import type { Params } from '../replies.js';
import { layout, statusBadge, when, type Chrome } from './layout.js';

/** What a bulk action can do, as the form offers it. */
export const BULK_ACTIONS: Record<BulkAction, string> = {
  suspend: 'Suspend',
  activate: 'Activate',
  delete: 'Delete',
  'set-field': 'Set a profile field',
  'remove-field': 'Remove a profile field',
  'set-expiry': 'Set an expiration',
  'clear-expiry': 'Clear the expiration',
};

const UNITS: Params = { D: 'days', M: 'months', Y: 'years' };

/** What the action does, in words, for its confirmation. */
export function describe(form: Params, count: number): string {
  const members = `${count.toLocaleString('en')} ${count === 1 ? 'member' : 'members'}`;
  switch (form.action as BulkAction) {
    case 'suspend':
      return `Suspend ${members}: they can no longer sign in, and their sessions end.`;
    case 'activate':
      return `Activate ${members} (a Deleted one among them is restored).`;
    case 'delete':
      return `Delete ${members}: their sessions end; they stay among the Deleted, and can be restored, until DELETED_RETENTION_DAYS.`;
    case 'set-field':
      return `Set the profile field ${form.new_field?.trim() ?? ''} to "${form.new_value ?? ''}" on ${members}.`;
    case 'remove-field':
      return `Remove the profile field ${form.field ?? ''} from ${members}.`;
    case 'set-expiry':
      return `Give ${members} an expiration ${form.exp_time ?? ''} ${UNITS[form.exp_time_type ?? ''] ?? ''} from now, then ${form.exp_mode === 'D' ? 'deleted' : 'suspended'}.`;
    case 'clear-expiry':
      return `Clear the time expiration of ${members}.`;
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

export function confirmBulkPage(chrome: Chrome, view: BulkConfirmation): string {
  const more = view.count - view.sample.length;
  return layout(
    `${view.title}?`,
    chrome,
    html`<div class="card"><h1>${view.title}?</h1>
<p>${view.text}</p>
${
  view.count === 0
    ? html`<p class="muted">No member matches this filter: there is nothing to change.</p>`
    : html`<p class="muted">Among them${more > 0 ? html` (the newest ${view.sample.length}; ${more.toLocaleString('en')} more)` : ''}:</p>
<table><thead><tr><th>Id</th><th>Login</th><th>E-mail</th><th>Status</th><th>Registered</th></tr></thead><tbody>
${view.sample.map((member) => html`<tr><td>${member.id}</td><td><a href="${memberPath(view.account, member.id)}">${member.login}</a></td><td>${member.email}</td><td>${statusBadge(member.status)}</td><td>${when(member.regAt)}</td></tr>`)}
</tbody></table>`
}
<div class="actions">${
      view.count === 0
        ? ''
        : html`<form method="post" action="${view.target}">${Object.entries(view.action).map(
            ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
          )}<input type="hidden" name="confirm" value="1"><button type="submit"${view.action.action === 'delete' ? html` class="danger"` : ''}>${view.title}: ${view.count.toLocaleString('en')} ${view.count === 1 ? 'member' : 'members'}</button></form>`
    }<a href="${view.back}">Cancel</a></div></div>`,
  );
}

/** The members page's bulk action form (editors), for the members its filter finds. */
export function bulkForm(account: string, search: string, total: number): ReturnType<typeof html> {
  const option = (value: string, label: string) => html`<option value="${value}">${label}</option>`;
  return html`<details class="card bulk"><summary>Bulk action on ${total === 1 ? 'this member' : html`these ${total.toLocaleString('en')} members`}</summary>
<form class="more" method="post" action="${membersPath(account)}/bulk${search ? `?${search}` : ''}">
<label>Action <select name="action">${Object.entries(BULK_ACTIONS).map(([value, label]) => option(value, label))}</select></label>
<label>Profile field to set <input name="new_field" placeholder="plan"></label>
<label>…to the value <input name="new_value"></label>
<label>Profile field to remove <input name="field" placeholder="plan"></label>
<label>Expires in <input type="number" name="exp_time" min="1" placeholder="30"></label>
<label>Unit <select name="exp_time_type">${option('D', 'days')}${option('M', 'months')}${option('Y', 'years')}</select></label>
<label>Then <select name="exp_mode">${option('S', 'suspended')}${option('D', 'deleted')}</select></label>
<div class="actions"><button type="submit" class="secondary">Preview</button></div>
</form></details>`;
}
