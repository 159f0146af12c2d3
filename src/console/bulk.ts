/**
 * The console's bulk actions: one change to every member a filter of the members page finds
 * (suspend, activate, delete, set or remove a profile field, set or clear an expiration).
 * Asked first: the page says how many members it will change and shows some of them, and the
 * change is made only when that page is confirmed, through the members' service as /update/
 * makes it (its rules, its errors, one `member.bulk_updated` event naming the filter).
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../common/clock.js';
import type { Member } from '../members/member.js';
import type { MemberFilters, Selection } from '../members/member-store.js';
import type { Account } from '../accounts/account.js';
import type { UpdateMembersCommand } from '../members/members-service.js';
import { ApiError } from '../http/errors.js';
import { html } from '../http/html.js';
import { queryParams } from '../http/params.js';
import { decodeUpdate, UPDATE_REFUSALS } from '../http/routes/update.js';
import { filtersOf, newField, readable, wire, type Params } from './forms.js';
import type { ConsoleKit } from './member-pages.js';
import { layout, memberPath, membersPath, messagePage, statusBadge, when, type Chrome } from './pages.js';

/** What a bulk action can do, as the form offers it. */
export const BULK_ACTIONS = {
  suspend: 'Suspend',
  activate: 'Activate',
  delete: 'Delete',
  'set-field': 'Set a profile field',
  'remove-field': 'Remove a profile field',
  'set-expiry': 'Set an expiration',
  'clear-expiry': 'Clear the expiration',
} as const;
type BulkAction = keyof typeof BULK_ACTIONS;

/** Members shown on the confirmation page, as a sample of those the action changes. */
const SAMPLE_SIZE = 10;
const UNITS: Params = { D: 'days', M: 'months', Y: 'years' };

/** The form's fields that make up the action (carried, unchanged, from the preview to its confirmation). */
const ACTION_FIELDS = ['action', 'new_field', 'new_value', 'field', 'exp_time', 'exp_time_type', 'exp_mode'] as const;

/** How long a preview may be confirmed. */
const PREVIEW_LIFETIME_MS = 3600_000;

/** The instant the confirmed preview was made at: within the last hour, else it is to be made again. */
function previewInstant(form: Params, now: number): number {
  const at = /^\d{13}$/.test(form.now ?? '') ? Number(form.now) : Number.NaN;
  if (!(at <= now && now - at <= PREVIEW_LIFETIME_MS)) throw ApiError.invalid('now', 'this preview is over an hour old, or not one: make the preview again');
  return at;
}

function actionOf(form: Params): BulkAction {
  if (form.action !== undefined && Object.hasOwn(BULK_ACTIONS, form.action)) return form.action as BulkAction;
  throw ApiError.invalid('action', `one of ${Object.keys(BULK_ACTIONS).join(', ')}`);
}

/** The action as /update/'s parameters: the same decoding, so the same rules and messages. */
function updateOf(form: Params): Array<[string, string]> {
  switch (actionOf(form)) {
    case 'suspend':
      return [['status', 'S']];
    case 'activate':
      return [['status', 'A']];
    case 'delete':
      return [['status', 'D']];
    case 'set-field': {
      const field = newField(form);
      if (!field) throw ApiError.invalid('new_field', 'the name of the profile field to set');
      return [field];
    }
    case 'remove-field':
      return [['pfdelete', form.field ?? '']];
    case 'set-expiry':
      return [
        ['is_exp_time', form.exp_mode ?? ''],
        ['exp_time', form.exp_time ?? ''],
        ['exp_time_type', form.exp_time_type ?? ''],
      ];
    case 'clear-expiry':
      return [['is_exp_time', 'N']];
  }
}

/** What the action does, in words, for its confirmation. */
function describe(form: Params, count: number): string {
  const members = `${count.toLocaleString('en')} ${count === 1 ? 'member' : 'members'}`;
  switch (actionOf(form)) {
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

export interface BulkKit extends ConsoleKit {
  readonly clock: Clock;
}

export function registerBulkActions(scope: FastifyInstance, kit: BulkKit): void {
  scope.post('/accounts/:account/members/bulk', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'editor');
    if (!seen) return reply;
    const { operator, account } = seen;
    const query = Object.fromEntries([...queryParams(request)].filter(([name]) => name !== 'done' && name !== 'changed'));
    const search = new URLSearchParams(query).toString();
    const back = `${membersPath(account.name)}${search ? `?${search}` : ''}`;
    const chrome: Chrome = { operator, account: account.name };
    const refused = (message: string) => kit.send(reply, 400, messagePage('Not done', readable(message), chrome, { href: back, text: 'Back to the members' }));
    const form = kit.formOf(request);
    const confirming = form.confirm === '1';
    let change: { filters: MemberFilters; command: UpdateMembersCommand; now: number };
    try {
      // Confirmed, the change is the preview's: the filter at the preview's instant, none of
      // the members added since (ids only grow), and exactly the members it counted (a member
      // that came to match meanwhile, or left, makes the preview to be made again).
      actionOf(form); // an action that is none is said first
      change = confirming
        ? bulkChange(form, query, account, previewInstant(form, kit.clock()), { upto: form.upto, expect: previewSelection(form) })
        : bulkChange(form, query, account, kit.clock());
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return refused(error.message);
    }
    const preview = async (shown: typeof change, notice?: Chrome['notice']) =>
      kit.send(
        reply,
        200,
        confirmBulkPage(
          { ...chrome, notice },
          await bulkPreview(kit, account, form, shown, `${membersPath(account.name)}/bulk${search ? `?${search}` : ''}`, back),
        ),
      );
    if (!confirming) return preview(change);
    const outcome = await kit.members.update(account, change.command, { actor: 'operator', email: operator.email, requestId: request.id });
    // Not the members previewed any more: the preview again, as they are now, saying why.
    if (outcome.kind === 'selection-changed')
      return preview(bulkChange(form, query, account, kit.clock()), {
        kind: 'error',
        text: 'The members this filter finds changed since the preview (one came to match it, or one no longer does), so nothing was changed. Here is the preview again, as they are now.',
      });
    if (outcome.kind === 'not-found') return kit.seeOther(reply, `${back}${search ? '&' : '?'}done=bulk&changed=0`);
    if (outcome.kind !== 'updated') return refused(UPDATE_REFUSALS[outcome.kind]);
    return kit.seeOther(reply, `${back}${search ? '&' : '?'}done=bulk&changed=${outcome.count}`);
  });
}

/**
 * The change a bulk form asks for, at `now`: the filter's members (up to the preview's newest,
 * and only those it counted, when confirming one), and the update as /update/ decodes it.
 */
function bulkChange(
  form: Params,
  query: Params,
  account: Account,
  now: number,
  preview: { upto?: string; expect?: Selection } = {},
): { filters: MemberFilters; command: UpdateMembersCommand; now: number } {
  const upto = /^[1-9]\d{0,14}$/.exec(preview.upto ?? '')?.[0];
  const filters = { ...filtersOf(query, now), ...(upto === undefined ? {} : { idAtMost: Number(upto) }) };
  // The selector is the filter's; `find_member_id=*` only lets the decoding through. An
  // activation alone brings Deleted members back (when the filter finds them).
  const restoring = actionOf(form) === 'activate';
  const selector = { by: 'filter' as const, filters, now, restoring, ...(preview.expect ? { expect: preview.expect } : {}) };
  return { filters, now, command: { ...decodeUpdate(wire([['find_member_id', '*'], ...updateOf(form)]), account), selector } };
}

/** The selection a confirmed preview counted (carried by its form), which the change must find again. */
function previewSelection(form: Params): Selection {
  const count = /^\d{1,9}$/.test(form.count ?? '') ? Number(form.count) : Number.NaN;
  const idSum = /^\d{1,18}$/.test(form.id_sum ?? '') ? Number(form.id_sum) : Number.NaN;
  if (Number.isNaN(count) || Number.isNaN(idSum)) throw ApiError.invalid('count', 'this preview is not one: make the preview again');
  return { count, idSum };
}

/** The confirmation page's view: what the change does, to how many, a sample, and the form that confirms exactly these. */
async function bulkPreview(
  kit: BulkKit,
  account: Account,
  form: Params,
  change: { filters: MemberFilters; command: UpdateMembersCommand; now: number },
  target: string,
  back: string,
): Promise<BulkConfirmation> {
  const { filters, command, now } = change;
  // The sample is of the members the change finds: without the Deleted unless restoring.
  const restoring = command.selector.by === 'filter' && command.selector.restoring === true;
  const onlyDeleted = filters.status === 'D' || filters.deletedFrom !== undefined;
  const [selection, sample] = await Promise.all([
    kit.members.countSelected(account, command.selector),
    !restoring && onlyDeleted
      ? { members: [] }
      : kit.members.pageMembers(account, {
          filters: restoring ? filters : { ...filters, includeDeleted: undefined },
          order: 'id',
          descending: true,
          limit: SAMPLE_SIZE,
          profileFields: [],
        }),
  ]);
  const action: Params = Object.fromEntries(ACTION_FIELDS.filter((name) => form[name] !== undefined).map((name) => [name, form[name]!]));
  // The newest member the filter finds now: the confirmation changes none newer; and the
  // selection counted, which the confirmation must find again.
  const newest = sample.members[0]?.member.id;
  Object.assign(action, {
    now: String(now),
    count: String(selection.count),
    id_sum: String(selection.idSum),
    ...(newest === undefined ? {} : { upto: String(newest) }),
  });
  return {
    account: account.name,
    title: BULK_ACTIONS[actionOf(form)],
    text: describe(form, selection.count),
    count: selection.count,
    sample: sample.members.map(({ member }) => member),
    target,
    action,
    back,
  };
}

interface BulkConfirmation {
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

function confirmBulkPage(chrome: Chrome, view: BulkConfirmation): string {
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
