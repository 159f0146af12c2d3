/**
 * The members of an account: the members page (one search box, more filters, sorting, the
 * position, paging by keyset) and a new member, made through the members' service as
 * /create/ makes it (the same decoding, rules and errors), actor `operator`.
 */
import type { FastifyInstance } from 'fastify';
import type { MemberFilters, MemberPage, MemberPageQuery } from '../../members/member-store.js';
import type { Role } from '../../operators/operator.js';
import { ApiError } from '../../http/errors.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { createCommand } from '../commands.js';
import { columnsOf, filtersOf, readable, sortOf } from '../forms.js';
import { memberPath, membersPath } from '../paths.js';
import { doneNotice, formOf, queryOf, send, seeOther, type Params } from '../replies.js';
import { bulkForm } from '../views/bulk.js';
import { t, type Chrome } from '../views/layout.js';
import { memberCreatedPage, newMemberPage } from '../views/member.js';
import { membersPage, type MembersView } from '../views/members.js';

const PAGE_SIZE = 50;

export async function membersSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.get('/', { config: { access: 'viewer' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account, role } = seen;
    const query = queryOf(request);
    const chrome: Chrome = { operator, account: account.name, notice: doneNotice(request) };
    const now = deps.clock();
    let filters: MemberFilters;
    try {
      filters = filtersOf(query, now);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return send(
        reply,
        400,
        membersPage(
          { ...chrome, notice: { kind: 'error', text: error.message } },
          { account: account.name, role, form: query, columns: [], members: [], total: 0 },
        ),
      );
    }
    // The words of a search that name members exactly come first, on the first page, then the
    // members whose login or address begins with them; the search box's own submission (`go`)
    // opens the one member they name.
    const words = query.q?.trim() ?? '';
    const firstPage = !query.after && !query.before && query.last !== '1';
    const exact = words !== '' && firstPage ? await deps.members.exactMatches(account, words) : [];
    if (query.go === '1' && exact.length === 1) return seeOther(reply, memberPath(account.name, exact[0]!.id));
    const prefix = words !== '' && firstPage ? await deps.members.prefixMatches(account, words, exact) : [];
    const columns = columnsOf(query);
    const { order, descending } = sortOf(query);
    const page = await deps.members.pageMembers(account, {
      filters,
      order,
      descending,
      after: query.after,
      before: query.before,
      last: query.last === '1',
      limit: PAGE_SIZE,
      profileFields: columns,
    });
    return send(reply, 200, membersPage(chrome, { ...listView({ account: account.name, role, query, columns, order, descending, page }), exact, prefix }));
  });

  scope.get('/new', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    return send(reply, 200, newMemberPage({ operator: seen.operator, account: seen.account.name }, seen.account));
  });
  scope.post('/new', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const form = formOf(request);
    const chrome: Chrome = { operator, account: account.name };
    try {
      const outcome = await deps.members.create(account, createCommand(form, account), {
        actor: 'operator',
        email: operator.email,
        requestId: request.id,
      });
      if (outcome.kind !== 'created')
        return send(
          reply,
          400,
          newMemberPage(
            {
              ...chrome,
              notice: {
                kind: 'error',
                text: t(outcome.kind === 'login-taken' ? 'loginTaken' : outcome.kind === 'over-quota' ? 'storageFull' : 'expirationOutOfRange'),
              },
            },
            account,
            form,
          ),
        );
      // A chosen password: the member's page. Asked, a link to choose one is mailed to the
      // member (its generated password shown to nobody). Otherwise the generated one is shown
      // here, once (so this page is not a redirect: the password is in no address).
      if (form.password) return seeOther(reply, `${memberPath(account.name, outcome.id)}?done=created`);
      if (form.mail_link === '1' && account.settings.smtpUrl !== '' && form.email) {
        await deps.resets.issue(account, { by: 'id', id: outcome.id }, true, { welcome: true });
        return seeOther(reply, `${memberPath(account.name, outcome.id)}?done=created-link-mailed`);
      }
      return send(reply, 201, memberCreatedPage(chrome, account.name, outcome));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return send(reply, 400, newMemberPage({ ...chrome, notice: { kind: 'error', text: readable(error.message) } }, account, form));
    }
  });
}

/** The members page's view of a page of members: its position, and the links that sort it and page through it, carrying its filter. */
function listView(list: {
  account: string;
  role: Role;
  query: Params;
  columns: readonly string[];
  order: MemberPageQuery['order'];
  descending: boolean;
  page: MemberPage;
}): MembersView {
  const { account, role, query, columns, order, descending, page } = list;
  const base = Object.fromEntries(
    Object.entries(query).filter(([name, value]) => !['after', 'before', 'last', 'at', 'done', 'changed', 'go'].includes(name) && value !== ''),
  );
  const link = (extra: Params) => `${membersPath(account)}?${new URLSearchParams({ ...base, ...extra })}`;
  // The position of the page's first member: carried by the links (a keyset page does not
  // know it), 1 on the first page, counted back from the total on the last.
  const sent = /^[1-9]\d{0,8}$/.test(query.at ?? '') ? Number(query.at) : undefined;
  const at = !page.hasBefore ? 1 : !page.hasAfter ? Math.max(1, page.total - page.members.length + 1) : sent;
  return {
    account,
    role,
    form: query,
    columns,
    members: page.members,
    total: page.total,
    bulk: role !== 'viewer' && page.total > 0 ? bulkForm(account, new URLSearchParams(base).toString(), page.total) : undefined,
    at,
    sort: { order, descending },
    sortLink: (column) => link({ sort: column, dir: column === order && !descending ? 'desc' : 'asc' }),
    first: page.hasBefore ? link({}) : undefined,
    previous: page.hasBefore && page.firstCursor ? link({ before: page.firstCursor, ...(at ? { at: String(Math.max(1, at - PAGE_SIZE)) } : {}) }) : undefined,
    next: page.hasAfter && page.lastCursor ? link({ after: page.lastCursor, ...(at ? { at: String(at + page.members.length) } : {}) }) : undefined,
    last: page.hasAfter ? link({ last: '1' }) : undefined,
  };
}
