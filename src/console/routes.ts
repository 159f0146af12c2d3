/**
 * The operator's console at /admin/: server-rendered pages (pages.ts), no script at all, so it
 * works with JavaScript off and its Content-Security-Policy allows no script and no inline
 * style. Signed in by a session cookie (HttpOnly, SameSite=Strict, Secure behind https); every
 * change is a POST whose `Sec-Fetch-Site` (or, from older browsers, `Origin`) must be this
 * site's own, and goes through the same services as the API (same rules, same errors, the
 * same events, with actor `operator` and the operator's e-mail). Nothing it answers is cached.
 */
import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsService } from '../accounts/accounts-service.js';
import type { Account } from '../accounts/account.js';
import type { AccountOverview } from '../accounts/overview.js';
import type { MailTemplates } from '../mail/mail-templates.js';
import type { EventsService } from '../events/events-service.js';
import type { LoginService } from '../members/login-service.js';
import type { MemberFilters } from '../members/member-store.js';
import type { MembersService } from '../members/members-service.js';
import type { SessionsService } from '../members/sessions.js';
import type { PasswordResets } from '../members/password-resets.js';
import type { WebhooksService } from '../webhooks/webhooks-service.js';
import type { MemberExporter } from '../import-export/exporter.js';
import type { ImportJobs } from '../import-export/import-jobs.js';
import type { Operator, Role } from '../operators/operator.js';
import { accessTo, SETUP_PATH, type OperatorsService } from '../operators/operators-service.js';
import { ApiError } from '../http/errors.js';
import { queryParams } from '../http/params.js';
import { FORM_BODY_LIMIT_BYTES, fromOwnPages, registerPages } from '../http/page-security.js';
import { decodeCreate } from '../http/routes/create.js';
import { decodeUpdate, UPDATE_REFUSALS } from '../http/routes/update.js';
import { HashingBusy } from '../auth/hashing-gate.js';
import { clientScope } from '../auth/client-address.js';
import type { Clock } from '../common/clock.js';
import {
  accountsPage,
  confirmDeletePage,
  layout,
  memberPage,
  memberPath,
  membersPage,
  membersPath,
  messagePage,
  newMemberPage,
  setupPage,
  signInPage,
  type Chrome,
} from './pages.js';
import { html } from '../http/html.js';
import { registerMemberPagesConsole } from './member-pages.js';
import { registerOverview } from './overview.js';
import { registerMailTemplates } from './mail-templates.js';
import { columnsOf, filtersOf, newField, readable, sortOf, wire, type Params } from './forms.js';
import { bulkForm, registerBulkActions } from './bulk.js';
import { registerTransfer } from './import.js';
import { registerAccountSettings } from './account-settings.js';
import { registerApiKeys } from './api-keys.js';
import { registerAccountOperators } from './operators.js';
import { registerWebhooksConsole } from './webhooks.js';
import { askSecondStep, registerTwoStep, TWO_STEP_PATH } from './two-step.js';
import { actionAddresses } from './action-addresses.js';

export interface ConsoleContext {
  readonly operators: OperatorsService;
  readonly accounts: AccountsService;
  readonly members: MembersService;
  readonly logins: LoginService;
  readonly events: EventsService;
  /** A member's sessions, listed and ended. */
  readonly sessions: SessionsService;
  /** The reset mail an operator sends a member. */
  readonly resets: PasswordResets;
  /** The account's webhook receivers and their deliveries. */
  readonly webhooks: WebhooksService;
  /** Export and import (export.ts, import.ts). */
  readonly exporter: MemberExporter;
  readonly imports: ImportJobs;
  /** The largest import file taken, in bytes (IMPORT_UPLOAD_LIMIT_BYTES). */
  readonly uploadLimitBytes: number;
  /** An export's download whose client takes nothing for this long is cut off (RESPONSE_STALL_TIMEOUT_MS). */
  readonly stallTimeoutMs: number;
  /** The account at a glance. */
  readonly overview: AccountOverview;
  /** The account's own texts for its mails, and test mails. */
  readonly mailTemplates: MailTemplates;
  readonly clock: Clock;
  /** The public address, when set: https makes the cookie Secure, and its origin is this site's. */
  readonly publicUrl: string | undefined;
  /** WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: whether an owner's mail server may be on a private address. */
  readonly allowPrivateAddresses?: boolean;
}

const COOKIE = 'console_session';
/** Where the console lives: every route below is under it, and so is its own 404 page. */
const PREFIX = '/admin';

/**
 * What a change said, carried to the page its redirect opens (post/redirect/get) as a fixed
 * word of the query, never as text: a link cannot make the console say anything else.
 */
const DONE: Record<string, string> = {
  saved: 'Saved.',
  status: 'Status changed.',
  deleted: 'Deleted. Restore brings the member back.',
  unlocked: 'Unlocked.',
  created: 'Member created.',
  approved: 'Approved: the member is Active (and welcomed by mail when the account sends mail).',
  refused: 'Refused: the registration is deleted.',
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out on every device.',
  'reset-mailed': 'A password reset mail is on its way to the member.',
  verified: 'The e-mail address is marked verified.',
  'session-ended': 'The session is ended.',
  'sessions-ended': 'Every session of the member is ended.',
  bulk: 'Done.',
  'two-step-off': 'Two-step sign-in is off.',
  'key-revoked': 'The key is revoked: calls made with it are refused.',
  'operator-removed': 'The operator is taken off the account: its pages are closed to them.',
  'webhook-removed': 'The webhook is removed.',
  'webhook-enabled': 'The webhook is on again: its deliveries resume.',
  redelivered: 'The delivery is due again: it goes out within seconds.',
  'not-redelivered': 'There is no such delivery of this webhook.',
  'template-saved': 'Saved: the mail uses this text from now on.',
  'template-default': 'The mail uses the built-in text again.',
  'origin-allowed': 'Allowed: forms pasted on that site’s pages now work as they are.',
  'test-mailed': 'The test mail was handed to the mail server: look in your inbox.',
  uploaded: 'Uploaded: check the columns’ fields, then make a dry run.',
};

/** The notice a page shows for the change that led to it (`?done=…`), if any. */
export function doneNotice(request: FastifyRequest): { kind: 'ok'; text: string } | undefined {
  const query = queryParams(request);
  const done = query.get('done');
  // A bulk action's count: digits only, put into the console's own sentence.
  const changed = query.get('changed');
  if (done === 'bulk' && changed !== null && /^\d{1,9}$/.test(changed))
    return { kind: 'ok', text: `Done: ${Number(changed).toLocaleString('en')} ${changed === '1' ? 'member' : 'members'} changed.` };
  return done !== null && Object.hasOwn(DONE, done) ? { kind: 'ok', text: DONE[done]! } : undefined;
}
const PAGE_SIZE = 50;
// Beside this module: in src/ (tsx) and in dist/ (the build copies it there).
const CSS = readFileSync(new URL('./console.css', import.meta.url), 'utf8');

function formOf(request: FastifyRequest): Params {
  const body = request.body;
  const form: Params = {};
  if (body instanceof URLSearchParams) for (const [name, value] of body) form[name] = value;
  return form;
}

function queryOf(request: FastifyRequest): Params {
  return Object.fromEntries(queryParams(request));
}

function send(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();

export async function registerConsole(app: FastifyInstance, context: ConsoleContext): Promise<void> {
  // Secure whenever the request came over https (itself, or a proxy it trusts: TRUST_PROXY),
  // or PUBLIC_URL says the console is reached over https; as the member pages' cookie is.
  const secure = context.publicUrl?.startsWith('https://') ? true : ('auto' as const);
  await registerPages(
    app,
    { 'style-src': ["'self'"], 'img-src': ["'self'"], 'form-action': ["'self'"] },
    async (scope) => {
      await scope.register(cookie);
      // Pages for people, not the API: none of them in the OpenAPI document.
      scope.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
      const openActionAddresses = actionAddresses(scope);

      // Member data is never cached, by the browser or on the way.
      scope.addHook('onSend', async (_request, reply, payload) => {
        reply.header('cache-control', 'no-store');
        return payload;
      });

      // A change comes from this site's own pages: a form posted from elsewhere, or a fetch
      // forged by another site, is refused (the cookie's SameSite=Strict is the second line).
      scope.addHook('onRequest', async (request, reply) => {
        if (request.method === 'GET' || request.method === 'HEAD') return;
        if (!fromOwnPages(request, context.publicUrl))
          return send(reply, 403, messagePage('Refused', 'This change did not come from the console’s own pages, so it was not made.', {}));
      });

      scope.setErrorHandler((error, _request, reply) => {
        if (error instanceof HashingBusy)
          return send(reply.header('retry-after', '1'), 503, messagePage('Busy', 'The server is busy; try again in a moment.', {}));
        const status = (error as { statusCode?: number }).statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500)
          return send(reply, status, messagePage('Bad request', 'The request could not be read.', {}));
        reply.log.error({ err: error }, 'console page failed');
        return send(reply, 500, messagePage('Something went wrong', 'The page could not be shown; the error is in the server’s log.', {}));
      });

      const setCookie = (reply: FastifyReply, token: string) => reply.setCookie(COOKIE, token, { path: '/admin', httpOnly: true, sameSite: 'strict', secure });
      const clearCookie = (reply: FastifyReply) => reply.clearCookie(COOKIE, { path: '/admin', httpOnly: true, sameSite: 'strict', secure });

      /** The signed-in operator, or a redirect to the sign-in page. */
      async function operatorOf(request: FastifyRequest, reply: FastifyReply): Promise<Operator | undefined> {
        const operator = await context.operators.session(request.cookies[COOKIE] ?? '');
        if (!operator) {
          clearCookie(reply);
          seeOther(reply, '/admin/sign-in');
        }
        return operator;
      }

      /**
       * The account of the URL, when the operator has `needed` on it. Another account's pages
       * answer as an unknown account would (404): an operator learns nothing of accounts not its own.
       */
      async function accountOf(
        request: FastifyRequest,
        reply: FastifyReply,
        needed: Role,
      ): Promise<{ operator: Operator; account: Account; role: Role } | undefined> {
        const operator = await operatorOf(request, reply);
        if (!operator) return undefined;
        const name = (request.params as { account: string }).account;
        const seen = accessTo(operator, name);
        const account = seen && (await context.accounts.find(name));
        if (!seen || !account) {
          send(
            reply,
            404,
            messagePage('Not found', 'There is no such account, or you may not see it.', { operator }, { href: '/admin/', text: 'Your accounts' }),
          );
          return undefined;
        }
        if (!accessTo(operator, name, needed)) {
          send(
            reply,
            403,
            messagePage(
              'Not allowed',
              `Your role on ${name} (${seen.role}) may not do this: it takes an ${needed}.`,
              { operator, account: name },
              { href: membersPath(name), text: 'Back to the members' },
            ),
          );
          return undefined;
        }
        // An account that requires a second step opens to its operators that have one.
        if (account.settings.operatorsTwoStep === 'required' && !operator.twoStep) {
          seeOther(reply, `${TWO_STEP_PATH}?${new URLSearchParams({ required: account.name })}`);
          return undefined;
        }
        return { operator, account, role: seen.role };
      }

      scope.get('/console.css', async (_request, reply) => reply.type('text/css; charset=utf-8').send(CSS));

      scope.get('/', async (request, reply) => {
        const operator = await operatorOf(request, reply);
        if (!operator) return reply;
        if (operator.accounts.length === 1) return seeOther(reply, membersPath(operator.accounts[0]!.account));
        return send(reply, 200, accountsPage({ operator }));
      });

      scope.get('/sign-in', async (request, reply) => send(reply, 200, signInPage({ notice: doneNotice(request) })));
      // An unknown e-mail, a wrong password and a locked operator: one answer (nothing tells which).
      scope.post('/sign-in', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const form = formOf(request);
        const outcome = await context.operators.signIn(form.email ?? '', form.password ?? '', clientScope(request.ip));
        if (outcome.kind === 'signed-in') {
          setCookie(reply, outcome.token);
          return seeOther(reply, '/admin/');
        }
        if (outcome.kind === 'second-step') return askSecondStep(reply, outcome.token, secure);
        return send(
          reply,
          401,
          signInPage(
            {
              notice: {
                kind: 'error',
                text: 'The e-mail address or the password is wrong, or this operator is locked for a while after too many failed sign-ins.',
              },
            },
            form.email ?? '',
          ),
        );
      });

      // The link's token is in the query (masked in the log, left out of the shipped proxy's
      // log), then in the form's body: never in a path, which logs keep whole.
      const invalidLink = (reply: FastifyReply) =>
        send(
          reply,
          410,
          messagePage(
            'Link not valid',
            'This link was used already, was replaced by a newer one, has expired, or was never made. Ask for a new one (`member-api operator reset`).',
            {},
          ),
        );
      scope.get(SETUP_PATH.slice(PREFIX.length), async (request, reply) => {
        const token = queryOf(request).token ?? '';
        const operator = await context.operators.linkFor(token);
        if (!operator) return invalidLink(reply);
        return send(reply, 200, setupPage({}, token, operator.email));
      });
      scope.post(SETUP_PATH.slice(PREFIX.length), { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const form = formOf(request);
        const token = form.token ?? '';
        const operator = await context.operators.linkFor(token);
        if (!operator) return invalidLink(reply);
        if ((form.password ?? '') !== (form.confirm ?? ''))
          return send(reply, 400, setupPage({ notice: { kind: 'error', text: 'The two passwords differ.' } }, token, operator.email));
        const outcome = await context.operators.setPassword(token, form.password ?? '');
        if (outcome.kind === 'weak') return send(reply, 400, setupPage({ notice: { kind: 'error', text: outcome.message } }, token, operator.email));
        if (outcome.kind === 'invalid-link') return invalidLink(reply);
        // Signed in at once with the password just chosen (a second sign-in would ask it again).
        const signedIn = await context.operators.signIn(operator.email, form.password ?? '', clientScope(request.ip));
        if (signedIn.kind !== 'signed-in')
          return send(reply, 200, messagePage('Password set', 'Your password is set. You can sign in now.', {}, { href: '/admin/sign-in', text: 'Sign in' }));
        setCookie(reply, signedIn.token);
        return seeOther(reply, '/admin/');
      });

      scope.post('/sign-out', async (request, reply) => {
        await context.operators.signOut(request.cookies[COOKIE] ?? '');
        clearCookie(reply);
        return seeOther(reply, '/admin/sign-in?done=signed-out');
      });
      scope.post('/sign-out-everywhere', async (request, reply) => {
        const operator = await operatorOf(request, reply);
        if (!operator) return reply;
        await context.operators.signOutEverywhere(operator.id);
        clearCookie(reply);
        return seeOther(reply, '/admin/sign-in?done=signed-out-everywhere');
      });

      scope.get('/accounts/:account/members', async (request, reply) => {
        const seen = await accountOf(request, reply, 'viewer');
        if (!seen) return reply;
        const { operator, account, role } = seen;
        const query = queryOf(request);
        const chrome: Chrome = { operator, account: account.name, notice: doneNotice(request) };
        const now = context.clock();
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
        const page = await context.members.pageMembers(account, {
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

      scope.get('/accounts/:account/members/new', async (request, reply) => {
        const seen = await accountOf(request, reply, 'editor');
        if (!seen) return reply;
        return send(reply, 200, newMemberPage({ operator: seen.operator, account: seen.account.name }, seen.account.name));
      });
      scope.post('/accounts/:account/members/new', async (request, reply) => {
        const seen = await accountOf(request, reply, 'editor');
        if (!seen) return reply;
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
          const outcome = await context.members.create(account, decodeCreate(wire(pairs), account), {
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
          const generated = ` Its generated password: ${outcome.password} (shown this once).`;
          return send(
            reply,
            201,
            layout(
              'Member created',
              chrome,
              html`<div class="notice ok" role="status">Member ${outcome.login} created.${generated}</div><p><a class="button" href="${memberPath(account.name, outcome.id)}">Open ${outcome.login}</a> <a href="${membersPath(account.name)}">Back to the members</a></p>`,
            ),
          );
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
        const member = /^[1-9]\d{0,14}$/.test((request.params as { id: string }).id) ? await context.members.byId(account, id) : undefined;
        if (!member)
          return send(
            reply,
            404,
            messagePage('Not found', 'There is no such member in this account.', chrome, { href: membersPath(account.name), text: 'Back to the members' }),
          );
        const [profile, lockout, logins, history, sessions] = await Promise.all([
          context.members.profileOf(account, id),
          context.logins.lockoutOf(account, id),
          context.logins.recentLogins(account, id, 10),
          context.events.ofMember(account.id, id, 20),
          context.sessions.listOf(account, id),
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
            now: context.clock(),
          }),
        );
      }

      scope.get('/accounts/:account/members/:id', async (request, reply) => {
        const seen = await accountOf(request, reply, 'viewer');
        if (!seen) return reply;
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
        done: keyof typeof DONE,
      ) {
        const seen = await accountOf(request, reply, 'editor');
        if (!seen) return reply;
        const { operator, account } = seen;
        const id = (request.params as { id: string }).id;
        if (!/^[1-9]\d{0,14}$/.test(id)) return showMember(request, reply, seen);
        const form = formOf(request);
        const [profile, member] = await Promise.all([context.members.profileOf(account, Number(id)), context.members.byId(account, Number(id))]);
        if (!member) return showMember(request, reply, seen);
        try {
          const command = decodeUpdate(
            wire([['find_member_id', id], ...pairs(form, { profile, urlOk: member.urlOk ?? null, urlFail: member.urlFail ?? null })]),
            account,
          );
          const outcome = await context.members.update(account, command, { actor: 'operator', email: operator.email, requestId: request.id });
          if (outcome.kind !== 'updated')
            return showMember(request, reply, seen, outcome.kind === 'not-found' ? 404 : 400, { kind: 'error', text: readable(UPDATE_REFUSALS[outcome.kind]) });
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          return showMember(request, reply, seen, 400, { kind: 'error', text: readable(error.message) });
        }
        return seeOther(reply, `${memberPath(account.name, member.id)}?done=${done}`);
      }

      scope.post('/accounts/:account/members/:id/edit', async (request, reply) =>
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

      scope.post('/accounts/:account/members/:id/status', async (request, reply) => {
        const form = formOf(request);
        // A deletion is asked once more, saying what it does, before it is made.
        if (form.status === 'D' && form.confirm !== '1') {
          const seen = await accountOf(request, reply, 'editor');
          if (!seen) return reply;
          const id = (request.params as { id: string }).id;
          const member = /^[1-9]\d{0,14}$/.test(id) ? await context.members.byId(seen.account, Number(id)) : undefined;
          if (!member) return showMember(request, reply, seen);
          return send(reply, 200, confirmDeletePage({ operator: seen.operator, account: seen.account.name }, seen.account.name, member));
        }
        return change(request, reply, () => [['status', form.status ?? '']], form.status === 'D' ? 'deleted' : 'status');
      });

      const kit = {
        accounts: context.accounts,
        members: context.members,
        accountOf,
        send,
        formOf,
        doneNotice,
        seeOther,
        allowPrivateAddresses: context.allowPrivateAddresses ?? false,
      };
      registerMemberPagesConsole(scope, kit);
      registerOverview(scope, { ...kit, overview: context.overview });
      registerMailTemplates(scope, { ...kit, mailTemplates: context.mailTemplates });
      registerAccountSettings(scope, kit);
      registerApiKeys(scope, kit);
      registerAccountOperators(scope, { ...kit, operators: context.operators });
      registerWebhooksConsole(scope, { ...kit, webhooks: context.webhooks });
      registerBulkActions(scope, { ...kit, clock: context.clock });
      registerTransfer(scope, { ...context, ...kit });
      const sessionToken = (request: FastifyRequest) => request.cookies[COOKIE] ?? '';
      registerTwoStep(scope, { operators: context.operators, secure, operatorOf, sessionToken, setCookie, send, seeOther, formOf, doneNotice });

      scope.post('/accounts/:account/members/:id/unlock', async (request, reply) => {
        const seen = await accountOf(request, reply, 'editor');
        if (!seen) return reply;
        const id = (request.params as { id: string }).id;
        if (/^[1-9]\d{0,14}$/.test(id))
          await context.logins.unlock(seen.account, Number(id), { actor: 'operator', email: seen.operator.email, requestId: request.id });
        return seeOther(reply, `${memberPath(seen.account.name, Number(id))}?done=unlocked`);
      });

      /** A member action (editors): runs `act` on the member of the URL, then opens its page saying `done`, or why not. */
      async function memberAction(
        request: FastifyRequest,
        reply: FastifyReply,
        act: (seen: { operator: Operator; account: Account }, id: number) => Promise<keyof typeof DONE | { error: string }>,
      ) {
        const seen = await accountOf(request, reply, 'editor');
        if (!seen) return reply;
        const id = (request.params as { id: string }).id;
        if (!/^[1-9]\d{0,14}$/.test(id) || !(await context.members.byId(seen.account, Number(id)))) return showMember(request, reply, seen);
        const outcome = await act(seen, Number(id));
        if (typeof outcome !== 'string') return showMember(request, reply, seen, 400, { kind: 'error', text: outcome.error });
        return seeOther(reply, `${memberPath(seen.account.name, Number(id))}?done=${outcome}`);
      }

      const by = (request: FastifyRequest, operator: Operator) => ({ actor: 'operator' as const, email: operator.email, requestId: request.id });

      scope.post('/accounts/:account/members/:id/reset-mail', async (request, reply) =>
        memberAction(request, reply, async ({ account }, id) => {
          if (account.settings.smtpUrl === '') return { error: 'The account has no mail server (account set --smtp-url): no mail can be sent.' };
          const issued = await context.resets.issue(account, { by: 'id', id }, true);
          return issued.kind === 'issued' ? 'reset-mailed' : { error: 'A Deleted member gets no reset mail.' };
        }),
      );
      scope.post('/accounts/:account/members/:id/verify', async (request, reply) =>
        memberAction(request, reply, async ({ account, operator }, id) =>
          (await context.members.markVerified(account, id, by(request, operator))) ? 'verified' : { error: 'A Deleted member’s address is not marked.' },
        ),
      );
      scope.post('/accounts/:account/members/:id/sessions/end', async (request, reply) =>
        memberAction(request, reply, async ({ account }, id) =>
          (await context.sessions.endOne(account, id, formOf(request).session ?? '')) ? 'session-ended' : { error: 'That session is over already.' },
        ),
      );
      scope.post('/accounts/:account/members/:id/sessions/end-all', async (request, reply) =>
        memberAction(request, reply, async ({ account, operator }, id) => {
          await context.members.update(
            account,
            { selector: { by: 'id', id }, revokeSessions: true, setFields: new Map(), deleteFields: [] },
            by(request, operator),
          );
          return 'sessions-ended';
        }),
      );

      // The addresses above an account's pages: the accounts, and the account's members.
      scope.get('/accounts', async (_request, reply) => seeOther(reply, '/admin/'));
      scope.get('/accounts/:account', async (request, reply) => seeOther(reply, membersPath((request.params as { account: string }).account)));
      openActionAddresses();

      // Any other address under /admin/: a console page, not the API's JSON.
      scope.setNotFoundHandler(async (request, reply) => {
        const operator = await context.operators.session(request.cookies[COOKIE] ?? '');
        return send(reply, 404, messagePage('Not found', 'There is no such page in the console.', { operator }, { href: '/admin/', text: 'Your accounts' }));
      });
    },
    PREFIX,
  );
}
