/**
 * The console's bulk actions: one change to every member a filter of the members page finds
 * (suspend, activate, delete, set or remove a profile field, set or clear an expiration).
 * Asked first: the page says how many members it will change and shows some of them, and the
 * change is made only when that page is confirmed, through the members' service as /update/
 * makes it (its rules, its errors, one `member.bulk_updated` event naming the filter).
 */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/account.js';
import type { MemberFilters, Selection } from '../../members/member-store.js';
import type { UpdateMembersCommand } from '../../members/members-service.js';
import { ApiError } from '../../http/errors.js';
import { queryParams } from '../../http/params.js';
import { UPDATE_REFUSALS } from '../../http/routes/update.js';
import { actionOf, bulkCommand } from '../commands.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { filtersOf, readable } from '../forms.js';
import { membersPath } from '../paths.js';
import { formOf, send, seeOther, type Params } from '../replies.js';
import { BULK_ACTIONS, confirmBulkPage, countTyped, describe, type BulkConfirmation } from '../views/bulk.js';
import { messagePage, t, type Chrome } from '../views/layout.js';

/** Members shown on the confirmation page, as a sample of those the action changes. */
const SAMPLE_SIZE = 10;

/** The form's fields that make up the action (carried, unchanged, from the preview to its confirmation). */
const ACTION_FIELDS = ['action', 'new_field', 'new_value', 'field', 'exp_time', 'exp_time_type', 'exp_mode'] as const;

/** How long a preview may be confirmed. */
const PREVIEW_LIFETIME_MS = 3600_000;

/** The instant the confirmed preview was made at: within the last hour, else it is to be made again. */
function previewInstant(form: Params, now: number): number {
  const at = /^\d{13}$/.test(form.now ?? '') ? Number(form.now) : Number.NaN;
  if (!(at <= now && now - at <= PREVIEW_LIFETIME_MS)) throw ApiError.invalid('now', t('bulkPreviewTooOld'));
  return at;
}

export async function bulkSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.post('/bulk', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const query = Object.fromEntries([...queryParams(request)].filter(([name]) => name !== 'done' && name !== 'changed'));
    const search = new URLSearchParams(query).toString();
    const back = `${membersPath(account.name)}${search ? `?${search}` : ''}`;
    const chrome: Chrome = { operator, account: account.name };
    const refused = (message: string) => send(reply, 400, messagePage(t('notDone'), readable(message), chrome, { href: back, text: t('backToTheMembers') }));
    const form = formOf(request);
    const confirming = form.confirm === '1';
    let change: { filters: MemberFilters; command: UpdateMembersCommand; now: number };
    try {
      // Confirmed, the change is the preview's: the filter at the preview's instant, none of
      // the members added since (ids only grow), and exactly the members it counted (a member
      // that came to match meanwhile, or left, makes the preview to be made again).
      actionOf(form); // an action that is none is said first
      change = confirming
        ? bulkChange(form, query, previewInstant(form, deps.clock()), { upto: form.upto, expect: previewSelection(form) })
        : bulkChange(form, query, deps.clock());
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return refused(error.message);
    }
    const preview = async (shown: typeof change, notice?: Chrome['notice']) =>
      send(
        reply,
        200,
        confirmBulkPage(
          { ...chrome, notice },
          await bulkPreview(deps, account, form, shown, `${membersPath(account.name)}/bulk${search ? `?${search}` : ''}`, back),
        ),
      );
    if (!confirming) return preview(change);
    // A large change goes on only once its count is typed.
    if (!countTyped(form, previewSelection(form).count))
      return preview(bulkChange(form, query, deps.clock()), {
        kind: 'error',
        text: t('bulkCountNotTyped', { count: Number(form.count).toLocaleString('en') }),
      });
    const outcome = await deps.members.update(account, change.command, { actor: 'operator', email: operator.email, requestId: request.id });
    // Not the members previewed any more: the preview again, as they are now, saying why.
    if (outcome.kind === 'selection-changed') return preview(bulkChange(form, query, deps.clock()), { kind: 'error', text: t('bulkSelectionChanged') });
    if (outcome.kind === 'not-found') return seeOther(reply, `${back}${search ? '&' : '?'}done=bulk&changed=0`);
    if (outcome.kind !== 'updated') return refused(UPDATE_REFUSALS[outcome.kind]);
    return seeOther(reply, `${back}${search ? '&' : '?'}done=bulk&changed=${outcome.count}`);
  });
}

/**
 * The change a bulk form asks for, at `now`: the filter's members (up to the preview's newest,
 * and only those it counted, when confirming one), and the update as /update/ decodes it.
 */
function bulkChange(
  form: Params,
  query: Params,
  now: number,
  preview: { upto?: string; expect?: Selection } = {},
): { filters: MemberFilters; command: UpdateMembersCommand; now: number } {
  const upto = /^[1-9]\d{0,14}$/.exec(preview.upto ?? '')?.[0];
  const filters = { ...filtersOf(query, now), ...(upto === undefined ? {} : { idAtMost: Number(upto) }) };
  // An activation alone brings Deleted members back (when the filter finds them).
  const restoring = actionOf(form) === 'activate';
  const selector = { by: 'filter' as const, filters, now, restoring, ...(preview.expect ? { expect: preview.expect } : {}) };
  return { filters, now, command: { ...bulkCommand(form), selector } };
}

/** The selection a confirmed preview counted (carried by its form), which the change must find again. */
function previewSelection(form: Params): Selection {
  const count = /^\d{1,9}$/.test(form.count ?? '') ? Number(form.count) : Number.NaN;
  const idSum = /^\d{1,18}$/.test(form.id_sum ?? '') ? Number(form.id_sum) : Number.NaN;
  if (Number.isNaN(count) || Number.isNaN(idSum)) throw ApiError.invalid('count', t('bulkPreviewNotOne'));
  return { count, idSum };
}

/** The confirmation page's view: what the change does, to how many, a sample, and the form that confirms exactly these. */
async function bulkPreview(
  deps: ConsoleDeps,
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
    deps.members.countSelected(account, command.selector),
    !restoring && onlyDeleted
      ? { members: [] }
      : deps.members.pageMembers(account, {
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
    title: t(BULK_ACTIONS[actionOf(form)]),
    text: describe(form, selection.count),
    count: selection.count,
    sample: sample.members.map(({ member }) => member),
    target,
    action,
    back,
  };
}
