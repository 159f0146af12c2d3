/**
 * One member of an account: its page (fields, status and why, profile, sessions, logins,
 * history) and its changes (edit, status, unlock, reset mail, verification, sessions). Every
 * change goes through the members' service as /update/ makes it (the same decoding, rules and
 * errors), actor `operator`; made, the browser goes to the member's page saying what was done;
 * refused, the page says why.
 */
import { parseDay } from '../../members/lifecycle.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import type { Operator, Role } from '../../operators/operator.js';
import { ApiError } from '../../http/errors.js';
import { UPDATE_REFUSALS } from '../../http/routes/update.js';
import { editCommand, statusCommand, type EditedMember, type MemberChange } from '../commands.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { readable } from '../forms.js';
import { memberPath, membersPath } from '../paths.js';
import { doneNotice, formOf, queryOf, send, seeOther, type Done, type Params } from '../replies.js';
import type { Member } from '../../members/member.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { messagePage, t, type Chrome } from '../views/layout.js';
import { confirmDeletePage, memberPage, type MemberView } from '../views/member.js';

/** What was done to a member, said of it: its login, and its status now. */
const MEMBER_DONE: Partial<Record<Done, ConsoleKey>> = {
  saved: 'memberDoneSaved',
  status: 'memberDoneStatus',
  deleted: 'memberDoneDeleted',
  unlocked: 'memberDoneUnlocked',
  created: 'memberDoneCreated',
  'created-link-mailed': 'memberDoneCreatedLinkMailed',
  'reset-mailed': 'memberDoneResetMailed',
  verified: 'memberDoneVerified',
  'session-ended': 'memberDoneSessionEnded',
  'sessions-ended': 'memberDoneSessionsEnded',
};
const STATUS_WORDS = { A: 'statusA', S: 'statusS', D: 'statusD' } as const satisfies Record<string, ConsoleKey>;

function memberDone(done: string | undefined, member: Member): Chrome['notice'] {
  const key = done !== undefined && Object.hasOwn(MEMBER_DONE, done) ? MEMBER_DONE[done as Done] : undefined;
  if (!key) return undefined;
  return { kind: 'ok', text: t(key, { login: member.login, email: member.email, status: t(STATUS_WORDS[member.status]) }) };
}

/**
 * The form field a refusal names (`invalid parameter: NAME …`): the edit form's own name, or
 * a profile field's box (`profile:NAME`) when the member has it.
 */
function refusedField(form: Params, message: string): string | undefined {
  const name = /parameter: (\S+)/.exec(message)?.[1];
  if (name === undefined) return undefined;
  if (`profile:${name}` in form) return `profile:${name}`;
  return name;
}

export async function memberSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function showMember(
    request: FastifyRequest,
    reply: FastifyReply,
    seen: { operator: Operator; account: Account; role: Role },
    status = 200,
    notice?: Chrome['notice'],
    edited?: MemberView['edited'],
  ) {
    const id = Number((request.params as { id: string }).id);
    const { operator, account, role } = seen;
    const member = /^[1-9]\d{0,14}$/.test((request.params as { id: string }).id) ? await deps.members.byId(account, id) : undefined;
    // What a redirect says was done (`done`) is said of the member, by its login.
    const chrome: Chrome = { operator, account: account.name, notice: (member && memberDone(queryOf(request).done, member)) ?? notice };
    if (!member)
      return send(reply, 404, messagePage(t('notFound'), t('noSuchMember'), chrome, { href: membersPath(account.name), text: t('backToTheMembers') }));
    const [profile, lockout, logins, history, sessions, billing, payments] = await Promise.all([
      deps.members.profileOf(account, id),
      deps.logins.lockoutOf(account, id),
      deps.logins.recentLogins(account, id, 10),
      deps.events.ofMember(account.id, id, 20),
      deps.sessions.listOf(account, id),
      deps.billing.memberBilling(account, id),
      deps.billing.records(account, id, 20),
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
        edited,
        billing,
        payments,
      }),
    );
  }

  scope.get('/:id', { config: { access: 'viewer' } }, async (request, reply) => {
    const seen = onAccount(request);
    return showMember(request, reply, seen, 200, doneNotice(request));
  });

  /**
   * A change to one member, its form read as a command (console/commands.ts) and made by the
   * members' service: the API's rules and errors. Refused, the form's page says why; made, the browser goes to the member's page
   * (a reload does not send the form again), which says it was `done`.
   */
  async function change(request: FastifyRequest, reply: FastifyReply, changeOf: (form: Params, member: EditedMember) => MemberChange, done: Done) {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const id = (request.params as { id: string }).id;
    if (!/^[1-9]\d{0,14}$/.test(id)) return showMember(request, reply, seen);
    const form = formOf(request);
    const [profile, member] = await Promise.all([deps.members.profileOf(account, Number(id)), deps.members.byId(account, Number(id))]);
    if (!member) return showMember(request, reply, seen);
    try {
      const command = {
        selector: { by: 'id' as const, id: member.id },
        ...changeOf(form, { profile, urlOk: member.urlOk ?? null, urlFail: member.urlFail ?? null }),
      };
      const outcome = await deps.members.update(account, command, { actor: 'operator', email: operator.email, requestId: request.id });
      if (outcome.kind !== 'updated') {
        const text = readable(UPDATE_REFUSALS[outcome.kind]);
        const field = outcome.kind === 'login-taken' ? 'login' : outcome.kind === 'expiry-out-of-range' ? 'exp_time' : undefined;
        return showMember(request, reply, seen, outcome.kind === 'not-found' ? 404 : 400, { kind: 'error', text }, { values: form, field, message: text });
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const text = readable(error.message);
      return showMember(request, reply, seen, 400, { kind: 'error', text }, { values: form, field: refusedField(form, error.message), message: text });
    }
    return seeOther(reply, `${memberPath(account.name, member.id)}?done=${done}`);
  }

  // Access without payment until a day (its end, in the account's time zone): Manual, Active, suspended then.
  scope.post('/:id/comp', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const id = (request.params as { id: string }).id;
    const day = parseDay((formOf(request).until ?? '').trim());
    const until = day && deps.billing.endOfDay(account, day);
    if (!/^[1-9]\d{0,14}$/.test(id)) return showMember(request, reply, seen);
    if (until === undefined || until <= deps.clock()) return showMember(request, reply, seen, 400, { kind: 'error', text: t('compRefused') });
    if (!(await deps.billing.comp(account, Number(id), until, { actor: 'operator', email: operator.email, requestId: request.id }))) return showMember(request, reply, seen, 404);
    return seeOther(reply, `${memberPath(account.name, Number(id))}?done=comped`);
  });

  scope.post('/:id/edit', { config: { access: 'editor' } }, async (request, reply) =>
    change(request, reply, (form, member) => editCommand(form, member, onAccount(request).account), 'saved'),
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
    return change(request, reply, statusCommand, form.status === 'D' ? 'deleted' : 'status');
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
      if (account.settings.smtpUrl === '') return { error: t('memberNoMailServer') };
      const issued = await deps.resets.issue(account, { by: 'id', id }, true);
      return issued.kind === 'issued' ? 'reset-mailed' : { error: t('memberDeletedNoReset') };
    }),
  );
  scope.post('/:id/verify', { config: { access: 'editor' } }, async (request, reply) =>
    memberAction(request, reply, async ({ account, operator }, id) =>
      (await deps.members.markVerified(account, id, by(request, operator))) ? 'verified' : { error: t('memberDeletedNotMarked') },
    ),
  );
  scope.post('/:id/sessions/end', { config: { access: 'editor' } }, async (request, reply) =>
    memberAction(request, reply, async ({ account }, id) =>
      (await deps.sessions.endOne(account, id, formOf(request).session ?? '')) ? 'session-ended' : { error: t('sessionOverAlready') },
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
