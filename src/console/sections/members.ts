/**
 * The members of an account: the members page (one search box, more filters, sorting, the
 * position, paging by keyset), a member's page and its changes (edit, status, unlock, reset
 * mail, verification, sessions), and a new member. Every change goes through the members'
 * service as the API's does (the same decoding, rules and errors), actor `operator`; made, the
 * browser goes to the member's page saying what was done; refused, the page says why.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import type { MemberFilters } from '../../members/member-store.js';
import type { Operator, Role } from '../../operators/operator.js';
import { ApiError } from '../../http/errors.js';
import { decodeCreate } from '../../http/routes/create.js';
import { decodeUpdate, UPDATE_REFUSALS } from '../../http/routes/update.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { columnsOf, filtersOf, newField, readable, sortOf, wire } from '../forms.js';
import { memberPath, membersPath } from '../paths.js';
import { doneNotice, formOf, queryOf, send, seeOther, type Done, type Params } from '../replies.js';
import { bulkForm } from '../views/bulk.js';
import { messagePage, type Chrome } from '../views/layout.js';
import { confirmDeletePage, memberCreatedPage, memberPage, newMemberPage } from '../views/member.js';
import { membersPage } from '../views/members.js';

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
    const base = Object.fromEntries(
      Object.entries(query).filter(([name, value]) => !['after', 'before', 'last', 'at', 'done', 'changed'].includes(name) && value !== ''),
    );
    const link = (extra: Params) => `${membersPath(account.name)}?${new URLSearchParams({ ...base, ...extra })}`;
    // The position of the page's first member: carried by the links (a keyset page does
    // not know it), 1 on the first page, counted back from the total on the last.
    const sent = /^[1-9]\d{0,8}$/.test(query.at ?? '') ? Number(query.at) : undefined;
    const at = !page.hasBefore ? 1 : !page.hasAfter ? Math.max(1, page.total - page.members.length + 1) : sent;
    return send(
      reply,
      200,
      membersPage(chrome, {
        account: account.name,
        role,
        form: query,
        columns,
        members: page.members,
        total: page.total,
        bulk: role !== 'viewer' && page.total > 0 ? bulkForm(account.name, new URLSearchParams(base).toString(), page.total) : undefined,
        at,
        sort: { order, descending },
        sortLink: (column) => link({ sort: column, dir: column === order && !descending ? 'desc' : 'asc' }),
        first: page.hasBefore ? link({}) : undefined,
        previous:
          page.hasBefore && page.firstCursor ? link({ before: page.firstCursor, ...(at ? { at: String(Math.max(1, at - PAGE_SIZE)) } : {}) }) : undefined,
        next: page.hasAfter && page.lastCursor ? link({ after: page.lastCursor, ...(at ? { at: String(at + page.members.length) } : {}) }) : undefined,
        last: page.hasAfter ? link({ last: '1' }) : undefined,
      }),
    );
  });

  scope.get('/new', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    return send(reply, 200, newMemberPage({ operator: seen.operator, account: seen.account.name }, seen.account.name));
  });
  scope.post('/new', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const form = formOf(request);
    const chrome: Chrome = { operator, account: account.name };
    const pairs: Array<[string, string]> = [
      ['_login', form.login ?? ''],
      ['_email', form.email ?? ''],
    ];
    if (form.password) pairs.push(['_password', form.password]);
    try {
      const added = newField(form);
      if (added) pairs.push(added);
      const outcome = await deps.members.create(account, decodeCreate(wire(pairs), account), {
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
                text:
                  outcome.kind === 'login-taken'
                    ? 'That login is taken.'
                    : outcome.kind === 'over-quota'
                      ? 'The account’s storage is full.'
                      : 'The expiration is out of range.',
              },
            },
            account.name,
            form,
          ),
        );
      // A chosen password: the member's page. A generated one is shown here, once (so this
      // page is not a redirect: the password is in no address).
      if (form.password) return seeOther(reply, `${memberPath(account.name, outcome.id)}?done=created`);
      return send(reply, 201, memberCreatedPage(chrome, account.name, outcome));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return send(reply, 400, newMemberPage({ ...chrome, notice: { kind: 'error', text: readable(error.message) } }, account.name, form));
    }
  });

  async function showMember(
    request: FastifyRequest,
    reply: FastifyReply,
    seen: { operator: Operator; account: Account; role: Role },
    status = 200,
    notice?: Chrome['notice'],
  ) {
    const id = Number((request.params as { id: string }).id);
    const { operator, account, role } = seen;
    const chrome: Chrome = { operator, account: account.name, notice };
    const member = /^[1-9]\d{0,14}$/.test((request.params as { id: string }).id) ? await deps.members.byId(account, id) : undefined;
    if (!member)
      return send(
        reply,
        404,
        messagePage('Not found', 'There is no such member in this account.', chrome, { href: membersPath(account.name), text: 'Back to the members' }),
      );
    const [profile, lockout, logins, history, sessions] = await Promise.all([
      deps.members.profileOf(account, id),
      deps.logins.lockoutOf(account, id),
      deps.logins.recentLogins(account, id, 10),
      deps.events.ofMember(account.id, id, 20),
      deps.sessions.listOf(account, id),
    ]);
    return send(
      reply,
      status,
      memberPage(chrome, {
        account: account.name,
        role,
        member,
        profile,
        lockedUntil: lockout.lockedUntil,
        logins,
        history,
        sessions,
        mailOn: account.settings.smtpUrl !== '',
        now: deps.clock(),
      }),
    );
  }

  scope.get('/:id', { config: { access: 'viewer' } }, async (request, reply) => {
    const seen = onAccount(request);
    return showMember(request, reply, seen, 200, doneNotice(request));
  });

  /**
   * A change to one member through the API's own decoding and service: the API's rules and
   * errors. Refused, the form's page says why; made, the browser goes to the member's page
   * (a reload does not send the form again), which says it was `done`.
   */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    pairs: (form: Params, member: { profile: ReadonlyMap<string, string>; urlOk: string | null; urlFail: string | null }) => Array<[string, string]>,
    done: Done,
  ) {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const id = (request.params as { id: string }).id;
    if (!/^[1-9]\d{0,14}$/.test(id)) return showMember(request, reply, seen);
    const form = formOf(request);
    const [profile, member] = await Promise.all([deps.members.profileOf(account, Number(id)), deps.members.byId(account, Number(id))]);
    if (!member) return showMember(request, reply, seen);
    try {
      const command = decodeUpdate(
        wire([['find_member_id', id], ...pairs(form, { profile, urlOk: member.urlOk ?? null, urlFail: member.urlFail ?? null })]),
        account,
      );
      const outcome = await deps.members.update(account, command, { actor: 'operator', email: operator.email, requestId: request.id });
      if (outcome.kind !== 'updated')
        return showMember(request, reply, seen, outcome.kind === 'not-found' ? 404 : 400, { kind: 'error', text: readable(UPDATE_REFUSALS[outcome.kind]) });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return showMember(request, reply, seen, 400, { kind: 'error', text: readable(error.message) });
    }
    return seeOther(reply, `${memberPath(account.name, member.id)}?done=${done}`);
  }

  scope.post('/:id/edit', { config: { access: 'editor' } }, async (request, reply) =>
    change(
      request,
      reply,
      (form, member) => {
        const pairs: Array<[string, string]> = [];
        // Sent when filled in; the URLs also when emptied (which clears them); an expiration
        // when its mode is chosen (with its period), as /update/ takes them.
        for (const name of ['login', 'email', 'password'] as const) if (form[name]) pairs.push([name, form[name]]);
        for (const name of ['urlok', 'urlfail'] as const)
          if (form[name] !== undefined && form[name] !== ((name === 'urlok' ? member.urlOk : member.urlFail) ?? '')) pairs.push([name, form[name]]);
        if (form.is_exp_time) pairs.push(['is_exp_time', form.is_exp_time], ['exp_time', form.exp_time ?? ''], ['exp_time_type', form.exp_time_type ?? '']);
        if (form.is_exp_logins) pairs.push(['is_exp_logins', form.is_exp_logins], ['exp_logins', form.exp_logins ?? '']);
        const removed: string[] = [];
        for (const [name, value] of member.profile) {
          const sent = form[`profile:${name}`];
          if (sent === undefined || sent === value) continue;
          if (sent === '') removed.push(name);
          else pairs.push([name, sent]);
        }
        if (removed.length > 0) pairs.push(['pfdelete', removed.join(',')]);
        const added = newField(form);
        if (added && member.profile.has(added[0]))
          throw ApiError.invalid('new_field', `${added[0]} is a field this member has already: change it in its own box`);
        if (added) pairs.push(added);
        return pairs;
      },
      'saved',
    ),
  );

  scope.post('/:id/status', { config: { access: 'editor' } }, async (request, reply) => {
    const form = formOf(request);
    // A deletion is asked once more, saying what it does, before it is made.
    if (form.status === 'D' && form.confirm !== '1') {
      const seen = onAccount(request);
      const id = (request.params as { id: string }).id;
      const member = /^[1-9]\d{0,14}$/.test(id) ? await deps.members.byId(seen.account, Number(id)) : undefined;
      if (!member) return showMember(request, reply, seen);
      return send(reply, 200, confirmDeletePage({ operator: seen.operator, account: seen.account.name }, seen.account.name, member));
    }
    return change(request, reply, () => [['status', form.status ?? '']], form.status === 'D' ? 'deleted' : 'status');
  });

  scope.post('/:id/unlock', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    const id = (request.params as { id: string }).id;
    if (/^[1-9]\d{0,14}$/.test(id))
      await deps.logins.unlock(seen.account, Number(id), { actor: 'operator', email: seen.operator.email, requestId: request.id });
    return seeOther(reply, `${memberPath(seen.account.name, Number(id))}?done=unlocked`);
  });

  /** A member action (editors): runs `act` on the member of the URL, then opens its page saying `done`, or why not. */
  async function memberAction(
    request: FastifyRequest,
    reply: FastifyReply,
    act: (seen: { operator: Operator; account: Account }, id: number) => Promise<Done | { error: string }>,
  ) {
    const seen = onAccount(request);
    const id = (request.params as { id: string }).id;
    if (!/^[1-9]\d{0,14}$/.test(id) || !(await deps.members.byId(seen.account, Number(id)))) return showMember(request, reply, seen);
    const outcome = await act(seen, Number(id));
    if (typeof outcome !== 'string') return showMember(request, reply, seen, 400, { kind: 'error', text: outcome.error });
    return seeOther(reply, `${memberPath(seen.account.name, Number(id))}?done=${outcome}`);
  }

  const by = (request: FastifyRequest, operator: Operator) => ({ actor: 'operator' as const, email: operator.email, requestId: request.id });

  scope.post('/:id/reset-mail', { config: { access: 'editor' } }, async (request, reply) =>
    memberAction(request, reply, async ({ account }, id) => {
      if (account.settings.smtpUrl === '') return { error: 'The account has no mail server (account set --smtp-url): no mail can be sent.' };
      const issued = await deps.resets.issue(account, { by: 'id', id }, true);
      return issued.kind === 'issued' ? 'reset-mailed' : { error: 'A Deleted member gets no reset mail.' };
    }),
  );
  scope.post('/:id/verify', { config: { access: 'editor' } }, async (request, reply) =>
    memberAction(request, reply, async ({ account, operator }, id) =>
      (await deps.members.markVerified(account, id, by(request, operator))) ? 'verified' : { error: 'A Deleted member’s address is not marked.' },
    ),
  );
  scope.post('/:id/sessions/end', { config: { access: 'editor' } }, async (request, reply) =>
    memberAction(request, reply, async ({ account }, id) =>
      (await deps.sessions.endOne(account, id, formOf(request).session ?? '')) ? 'session-ended' : { error: 'That session is over already.' },
    ),
  );
  scope.post('/:id/sessions/end-all', { config: { access: 'editor' } }, async (request, reply) =>
    memberAction(request, reply, async ({ account, operator }, id) => {
      await deps.members.update(account, { selector: { by: 'id', id }, revokeSessions: true, setFields: new Map(), deleteFields: [] }, by(request, operator));
      return 'sessions-ended';
    }),
  );

  // The addresses above an account's pages: the accounts, and the account's members.
}
