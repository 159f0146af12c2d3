/**
 * The member pages under /auth/ACCOUNT/ (the hosted original's address): sign-in,
 * registration, the password reminder, the member's profile, its data and its deletion,
 * sign-out; the original's page interface (`?action=pp|ppfail|ppreturn|lost|reg|logout`,
 * `?mode=API&action=session&id=SID`); and `/auth/ACCOUNT/check`, which a reverse proxy asks
 * on every request to a protected page.
 *
 * Every change goes through the services the API uses (a sign-in is /login/'s, a registration
 * /create/'s, a profile change /update/'s), with actor `member`. Forms are taken from these
 * pages only (`Sec-Fetch-Site`, or `Origin`), but for the sign-in form, which the account's
 * allowed origins may also post (sites paste the original's form). Answers are never cached.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_SETTINGS, type Account } from '../accounts/account.js';
import type { AccountsService } from '../accounts/accounts-service.js';
import { ACCOUNT_NAME } from '../accounts/account-rules.js';
import { checkFieldValue, type FieldCheck } from '../accounts/registration-fields.js';
import { canonicalAddress, clientScope } from '../auth/client-address.js';
import { HashingBusy, type HashingGate } from '../auth/hashing-gate.js';
import { isOverlongPassword } from '../auth/passwords.js';
import type { AnonymousLoginLimiter, PageFormLimiter } from '../auth/request-limits.js';
import { builtInValues } from '../events/event.js';
import { foldKey } from '../members/member.js';
import { isEmail, isLogin } from '../members/fields.js';
import { loginShare, type LoginService } from '../members/login-service.js';
import type { MembersService } from '../members/members-service.js';
import type { PasswordResets } from '../members/password-resets.js';
import type { SessionMember, SessionsService } from '../members/sessions.js';
import type { Member } from '../members/member.js';
import type { LoginOutcome } from '../observability/metrics.js';
import type { EventsService } from '../events/events-service.js';
import type { OperatorsService } from '../operators/operators-service.js';
import { FORM_BODY_LIMIT_BYTES } from '../http/page-security.js';
import { fromOwnForm } from './form-token.js';
import { ApiError } from '../http/errors.js';
import { rawQuery, readParams, WireParams, type ParamLimits } from '../http/params.js';
import type { MessageKey } from './catalog.js';
import { check, protectionScript } from './protection.js';
import { chromeOf, formTargets, passwordProblem, seeOther, sendPage } from './page-reply.js';
import { allowedReturn, clearSessionCookie, cookieName, fromAllowedOrigin, readCookies, setSessionCookie } from './member-cookie.js';
import { originOf } from '../common/validate.js';
import { continuePage, signOutPage, lostPage, messagePage, profilePage, registerPage, signInPage, type Chrome, type ProfileView } from './views.js';

export interface MemberPagesContext {
  readonly accounts: AccountsService;
  readonly members: MembersService;
  readonly logins: LoginService;
  readonly sessions: SessionsService;
  readonly resets: PasswordResets;
  /** The member's history, in its data. */
  readonly events: Pick<EventsService, 'ofMember'>;
  /** Who hears of a registration that waits for approval. */
  readonly operators: Pick<OperatorsService, 'approvalNotice'>;
  readonly hashing: HashingGate;
  readonly anonymousLogins: AnonymousLoginLimiter;
  /** Registrations, and reminders, per address and per account. */
  readonly registrations: PageFormLimiter;
  readonly reminders: PageFormLimiter;
  /** A signed-in member's password confirmations, per member. */
  readonly confirmations: PageFormLimiter;
  readonly limits: ParamLimits;
  readonly publicUrl: string | undefined;
  /** Told every sign-in's outcome (the login metrics). */
  readonly countLogin?: (outcome: LoginOutcome) => void;
}

type Query = Record<string, string>;

/** The original's registration-form check, read once (beside this module, in src/ and in dist/). */
const REGFORMCHECK = readFileSync(new URL('./assets/regformcheck.js', import.meta.url), 'utf8');

/** The look of a page that belongs to no account (a request that could not be read). */
const DEFAULT_ACCOUNT: Account = { id: 0, name: 'member-api', createdAt: 0, settings: DEFAULT_SETTINGS };

/**
 * A name no account has, answered as an account with every default (registration off, no
 * member, no session) would be: the pages tell nobody which account names exist, as the API's
 * `wrong api key` does not. Its id is 0: nothing is ever written for it.
 */
function noSuchAccount(name: string): Account | undefined {
  return ACCOUNT_NAME.test(name) ? { id: 0, name, createdAt: 0, settings: DEFAULT_SETTINGS } : undefined;
}

/**
 * The query string's parameters (the first of each name); unknown ones are ignored by every
 * page. A `url` written last and not encoded (`…&url=https://site/page?a=1&b=2`, as nginx can
 * only write it) is taken whole: everything after `url=`. An encoded one (Caddy's) is decoded.
 */
function queryOf(request: FastifyRequest): Query {
  const query: Query = {};
  const raw = rawQuery(request);
  // Only a url holding a `?` or `&` as it is (not encoded) would be cut by a parse: it is taken
  // whole, and the parameters are read from what comes before it (never from the page's own).
  const bare = /(?:^|&)url=(https?:\/\/[^?&]*[?&].*)$/i.exec(raw);
  for (const [name, value] of new URLSearchParams(bare ? raw.slice(0, bare.index) : raw)) if (!(name in query)) query[name] = value;
  if (bare) query.url = bare[1]!;
  return query;
}

/** Whether a request is a page the browser opens itself (Fetch Metadata; a browser without it sends none, and is taken at its word). */
function topLevelNavigation(request: FastifyRequest): boolean {
  const mode = request.headers['sec-fetch-mode'];
  const destination = request.headers['sec-fetch-dest'];
  return (mode === undefined || mode === 'navigate') && (destination === undefined || destination === 'document');
}

/** The visitor's address, canonical (what a sign-in records and its lockout counts by). */
function visitor(request: FastifyRequest): string {
  try {
    return canonicalAddress(request.ip);
  } catch {
    return '0.0.0.0';
  }
}

/** The member's valid session from the cookie, if any (a valid check moves its idle deadline). */
async function currentSession(
  context: MemberPagesContext,
  account: Account,
  request: FastifyRequest,
): Promise<{ session: string; member: SessionMember; remember: boolean } | undefined> {
  for (const session of readCookies(request.headers.cookie, cookieName(account))) {
    const checked = await context.sessions.check(account, session);
    if (checked.kind === 'valid') return { session, member: checked.member, remember: checked.remember };
  }
  return undefined;
}

/** Ends every session the browser's cookies name (the host's and the domain's). */
async function endCookieSessions(context: MemberPagesContext, account: Account, request: FastifyRequest): Promise<void> {
  for (const session of readCookies(request.headers.cookie, cookieName(account))) await context.sessions.end(account, session);
}

const FIELD_PROBLEMS: Record<Extract<FieldCheck, { ok: false }>['problem'], MessageKey> = {
  required: 'required',
  email: 'invalidEmail',
  number: 'invalidNumber',
  date: 'invalidDate',
  choice: 'invalidChoice',
  'too-long': 'tooLong',
};

/** The account's fields read from a form: the values to keep, and each refused one's message. */
function readFields(
  chrome: Chrome,
  params: WireParams,
  editableOnly: boolean,
): { set: Map<string, string>; cleared: string[]; values: Record<string, string>; errors: Record<string, string> } {
  const set = new Map<string, string>();
  const cleared: string[] = [];
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  for (const field of chrome.account.settings.registrationFields) {
    if (editableOnly && !field.editable) continue;
    const sent = params.get(`f_${field.name}`);
    values[field.name] = sent ?? '';
    const checked = checkFieldValue(field, sent);
    if (!checked.ok) errors[field.name] = chrome.t(FIELD_PROBLEMS[checked.problem]);
    else if (checked.value === undefined) cleared.push(field.name);
    else set.set(field.name, checked.value);
  }
  return { set, cleared, values, errors };
}

/**
 * The hosted original's registration form, as sites pasted it (`action=reg2`, `_login`,
 * `_email`, `_password`, `_password2`, and each profile field as `_` and its name), read as
 * the pages' own form: a field of the account's registration fields by its name (`-` and `_`
 * alike); the others, which the account does not ask, are left out.
 */
function originalRegistration(chrome: Chrome, params: WireParams): WireParams {
  const form = new Map<string, string[]>();
  const take = (name: string, from: string) => {
    const value = params.get(from);
    if (value !== undefined) form.set(name, [value]);
  };
  take('login', '_login');
  take('email', '_email');
  take('password', '_password');
  take('confirm', '_password2');
  const folded = (name: string) => name.toLowerCase().replaceAll('-', '_');
  const sent = new Map([...params.names()].map((name): [string, string] => [folded(name), name]));
  for (const field of chrome.account.settings.registrationFields) {
    const from = sent.get(`_${folded(field.name)}`);
    if (from !== undefined) take(`f_${field.name}`, from);
  }
  return new WireParams(form);
}

/**
 * Where a browser goes after signing in: the `return` address (already checked), else the
 * member's `urlok`, else the account's, else the member's profile page.
 */
function destinationOf(chrome: Chrome, returnTo: string | undefined, okUrl: string): string {
  if (returnTo) return returnTo;
  return originOf(okUrl) ? okUrl : chrome.base;
}

export async function registerMemberPages(app: FastifyInstance, context: MemberPagesContext): Promise<void> {
  const { publicUrl } = context;

  /** The account of the path (one no account has answers as an account with the defaults), or the not-found page for a name no account can have. */
  async function accountOf(request: FastifyRequest, reply: FastifyReply): Promise<Account | undefined> {
    const name = (request.params as { account: string }).account;
    const account = (await context.accounts.find(name)) ?? noSuchAccount(name);
    if (!account) {
      const chrome = await chromeOf(context, DEFAULT_ACCOUNT, request);
      void sendPage(reply, 404, chrome, messagePage(chrome, 'notFound', 'notFoundText'));
    }
    return account;
  }

  function refused(reply: FastifyReply, chrome: Chrome): FastifyReply {
    return sendPage(reply, 403, chrome, messagePage(chrome, 'refused', 'refusedText', { href: chrome.base, label: 'backToSignIn' }));
  }

  async function showSignIn(request: FastifyRequest, reply: FastifyReply, account: Account, wanted: string | undefined): Promise<FastifyReply> {
    const chrome = await chromeOf(context, account, request);
    const returnTo = allowedReturn(account, wanted, request, publicUrl);
    const current = await currentSession(context, account, request);
    if (current && returnTo) return seeOther(reply, returnTo);
    if (current && !wanted) return showProfile(request, reply, account, current.member.id, {});
    const notice = wanted && !returnTo ? chrome.t('returnRefused') : undefined;
    return sendPage(reply, 200, chrome, signInPage(chrome, { returnTo, notice }), returnTo);
  }

  async function showProfile(
    request: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    memberId: number,
    view: Partial<ProfileView>,
    status = 200,
  ): Promise<FastifyReply> {
    const chrome = await chromeOf(context, account, request);
    const member = await context.members.byId(account, memberId);
    if (!member) return showSignIn(request, reply, account, undefined);
    const profile = await context.members.profileOf(account, memberId);
    return sendPage(reply, status, chrome, profilePage(chrome, { login: member.login, email: member.email, profile, ...view }));
  }

  async function signOut(request: FastifyRequest, reply: FastifyReply, account: Account) {
    const chrome = await chromeOf(context, account, request);
    await endCookieSessions(context, account, request);
    clearSessionCookie(reply, request, account, publicUrl);
    return sendPage(reply, 200, chrome, messagePage(chrome, 'signedOut', 'signedOutText', { href: chrome.base, label: 'signInAgain' }));
  }

  /** Signs the member in as /api2/login/ would, then sets the cookie; the failure's words otherwise. */
  async function signIn(
    request: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    login: string,
    password: string,
    remember: boolean,
  ): Promise<{ ok: true; okUrl: string } | { ok: false; message: string; failUrl: string }> {
    const chrome = await chromeOf(context, account, request);
    if (login === '' || password === '' || isOverlongPassword(password))
      return { ok: false, message: chrome.t('wrongLogin'), failUrl: account.settings.failUrl };
    try {
      await context.hashing.admit(loginShare(account, clientScope(request.ip)));
    } catch (error) {
      if (error instanceof HashingBusy) return { ok: false, message: chrome.t('busy'), failUrl: '' };
      throw error;
    }
    const admission = await context.anonymousLogins.admit(account.id, foldKey(login), clientScope(request.ip), account.settings.loginRateLimitPerMinute);
    if (!admission.ok) return { ok: false, message: chrome.t('tooMany', { seconds: admission.retryAfterSeconds }), failUrl: '' };
    // A name no account has: the same work as a wrong password (LoginService), nothing recorded.
    const outcome = await context.logins.login(account.id === 0 ? undefined : account, {
      login,
      password,
      ip: visitor(request),
      client: clientScope(request.ip),
      origin: { actor: 'member', requestId: request.id },
      remember,
    });
    context.countLogin?.(outcome.kind === 'ok' ? 'ok' : outcome.reason === 'wrong-credentials' ? 'fail' : outcome.reason);
    if (outcome.kind === 'fail') return { ok: false, message: chrome.t(outcome.reason === 'suspended' ? 'suspended' : 'wrongLogin'), failUrl: outcome.failUrl };
    // A session the browser held before is ended: an id is never carried across a sign-in.
    await endCookieSessions(context, account, request);
    setSessionCookie(reply, request, account, outcome.session, remember, publicUrl);
    return { ok: true, okUrl: outcome.okUrl };
  }

  /** Sends the browser on: a redirect when the form's policy allows the destination, else a page with a link. */
  function goOn(reply: FastifyReply, chrome: Chrome, destination: string, returnTo?: string) {
    const origin = originOf(destination);
    if (!origin || formTargets(chrome.account, returnTo).includes(origin)) return seeOther(reply, destination);
    return sendPage(reply, 200, chrome, continuePage(chrome, destination));
  }

  /**
   * A form posted to the account's sign-in address: the sign-in (`action=login`, the default),
   * or the original's pasted registration form (`action=reg2`). From these pages, or from a page
   * of an allowed origin (the original's forms pasted on the site), it is done. From anywhere
   * else nothing is done: the page it would have been answers, filled with what was posted
   * (never a password), for the visitor to finish here, and the origin is noted for the console
   * (an owner adds it to `--return-origins` there).
   */
  async function pageForm(request: FastifyRequest, reply: FastifyReply, account: Account, params: WireParams): Promise<FastifyReply> {
    const chrome = await chromeOf(context, account, request);
    const own = fromOwnForm(request, publicUrl, params);
    const pasted = !own && fromAllowedOrigin(account, request);
    const action = params.get('action') ?? 'login';
    if (action !== 'login' && action !== 'reg2') return refused(reply, chrome);
    if (!own && !pasted) await context.accounts.noteFormOrigin(account, request.headers.origin);
    if (action === 'reg2') {
      const form = originalRegistration(chrome, params);
      if (own || pasted) return register(request, reply, chrome, form);
      if (account.settings.registration === 'off') return registrationClosed(reply, chrome);
      const { values } = readFields(chrome, form, false);
      const shown = { ...values, login: form.get('login') ?? '', email: form.get('email') ?? '' };
      return sendPage(reply, 200, chrome, registerPage(chrome, { values: shown, errors: {}, notice: chrome.t('finishHere') }));
    }
    const login = params.get('login') ?? '';
    if (!own && !pasted) return sendPage(reply, 200, chrome, signInPage(chrome, { login, notice: chrome.t('signInHere') }));
    const wanted = params.get('return');
    const returnTo = allowedReturn(account, wanted, request, publicUrl);
    const outcome = await signIn(
      request,
      reply,
      account,
      login,
      params.get('password') ?? '',
      params.get('remember') === '1' || params.get('remember') === 'on',
    );
    if (outcome.ok) return goOn(reply, chrome, destinationOf(chrome, returnTo, outcome.okUrl), returnTo);
    // A pasted form's page is the site's: it goes to the failure URL when there is one.
    if (pasted && originOf(outcome.failUrl)) return seeOther(reply, outcome.failUrl);
    return sendPage(reply, 200, chrome, signInPage(chrome, { error: outcome.message, login, returnTo }), returnTo);
  }

  function registrationClosed(reply: FastifyReply, chrome: Chrome): FastifyReply {
    return sendPage(reply, 200, chrome, messagePage(chrome, 'registrationClosed', 'registrationClosedText', { href: chrome.base, label: 'backToSignIn' }));
  }

  /**
   * A registration (the pages' form, or the original's pasted one read by originalRegistration):
   * every field's problem said at once, the budgets and the hashing gate, then a member made by
   * the members' service, signed in at once or waiting for approval.
   */
  async function register(request: FastifyRequest, reply: FastifyReply, chrome: Chrome, params: WireParams): Promise<FastifyReply> {
    const { account } = chrome;
    if (account.settings.registration === 'off') return registrationClosed(reply, chrome);
    const login = (params.get('login') ?? '').trim();
    const email = (params.get('email') ?? '').trim();
    const password = params.get('password') ?? '';
    const { set, values, errors } = readFields(chrome, params, false);
    const again = (status: number, error?: string) =>
      sendPage(reply, status, chrome, registerPage(chrome, { values: { ...values, login, email }, errors, error }));
    // A robot fills the hidden field: it is thanked, and nothing is made.
    if ((params.get('website') ?? '') !== '') return sendPage(reply, 200, chrome, messagePage(chrome, 'thanks', 'thanksText'));
    if (!isLogin(login)) errors.login = chrome.t(login === '' ? 'required' : 'invalidLogin');
    if (!isEmail(email)) errors.email = chrome.t(email === '' ? 'required' : 'invalidEmail');
    const problem = passwordProblem(chrome, password);
    if (problem) errors.password = problem;
    else if (password !== (params.get('confirm') ?? '')) errors.confirm = chrome.t('passwordsDiffer');
    if (Object.keys(errors).length > 0) return again(400);
    const client = clientScope(request.ip);
    const admission = await context.registrations.admit(account.id, client);
    if (!admission.ok) return again(429, chrome.t('tooMany', { seconds: admission.retryAfterSeconds }));
    try {
      await context.hashing.admit({ account: String(account.id), client });
    } catch (error) {
      if (error instanceof HashingBusy) return again(503, chrome.t('busy'));
      throw error;
    }
    const approval = account.settings.registration === 'approval';
    const created = await context.members.create(
      account,
      {
        login,
        email,
        password,
        urlOk: null,
        urlFail: null,
        timeExpiry: null,
        loginExpiry: null,
        ip: visitor(request),
        client,
        profile: set,
        sendWelcome: true,
        registration: { approval, ...(approval ? await context.operators.approvalNotice(account) : { operators: [], approveUrl: '' }) },
      },
      { actor: 'member', requestId: request.id },
    );
    if (created.kind === 'login-taken') {
      errors.login = chrome.t('loginTaken');
      return again(409);
    }
    if (created.kind !== 'created') return again(400, chrome.t(created.kind === 'over-quota' ? 'full' : 'tooLong'));
    if (approval)
      return sendPage(reply, 200, chrome, messagePage(chrome, 'awaitingApproval', 'awaitingApprovalText', { href: chrome.base, label: 'backToSignIn' }));
    const signedIn = await signIn(request, reply, account, login, password, false);
    if (!signedIn.ok) return sendPage(reply, 200, chrome, signInPage(chrome, { error: signedIn.message, login }));
    return goOn(reply, chrome, destinationOf(chrome, undefined, signedIn.okUrl));
  }

  /** What every scope of the pages shares: out of the OpenAPI document, never cached, failures answered as pages. */
  function asPages(pages: FastifyInstance): void {
    pages.addHook('onRoute', (route) => {
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
    pages.addHook('onRequest', (_request, reply, done) => {
      reply.header('cache-control', 'no-store');
      done();
    });
    // A request the pages cannot read (a NUL byte, too many parameters, a body too large), a
    // server at its hashing capacity, or a fault: a page, never the API's JSON.
    pages.setErrorHandler(async (error, request, reply) => {
      const chrome = await chromeOf(context, DEFAULT_ACCOUNT, request);
      if (error instanceof HashingBusy) return sendPage(reply.header('retry-after', '1'), 503, chrome, messagePage(chrome, 'busyTitle', 'busy'));
      const status = (error as { statusCode?: number }).statusCode;
      if (error instanceof ApiError || (typeof status === 'number' && status >= 400 && status < 500))
        return sendPage(reply, typeof status === 'number' ? status : 400, chrome, messagePage(chrome, 'unreadable', 'unreadableText'));
      request.log.error({ err: error }, 'member page failed');
      return sendPage(reply, 500, chrome, messagePage(chrome, 'failed', 'failedText'));
    });
  }

  // The original's older sign-in address, where pasted forms still post
  // (`action=login&user=ACCOUNT&login=…&password=…`): the account's sign-in, as /auth/ACCOUNT/;
  // and the original's script that sites' sign-up pages include (assets/regformcheck.js).
  await app.register(async (scope) => {
    asPages(scope);
    scope.get('/regformcheck.js', async (_request, reply) =>
      reply.type('application/javascript; charset=utf-8').header('cross-origin-resource-policy', 'cross-origin').send(REGFORMCHECK),
    );
    scope.post('/cgi-bin/auth.fcgi', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
      const params = await readParams(request, context.limits);
      const name = params.get('user') ?? '';
      const account = (await context.accounts.find(name)) ?? noSuchAccount(name);
      if (!account) {
        const chrome = await chromeOf(context, DEFAULT_ACCOUNT, request);
        return sendPage(reply, 404, chrome, messagePage(chrome, 'notFound', 'notFoundText'));
      }
      return pageForm(request, reply, account, params);
    });
  });

  await app.register(
    async (pages) => {
      asPages(pages);

      // The page interface: one address, its `action` (and `mode`) choosing the page.
      pages.get('/:account/', async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        const query = queryOf(request);
        const chrome = await chromeOf(context, account, request);
        if (query.mode === 'API' || query.mode === 'api') {
          let ok = false;
          if (query.action === 'session' && query.id && query.id.length <= 256) ok = (await context.sessions.check(account, query.id)).kind === 'valid';
          return reply.type('text/plain; charset=utf-8').send(ok ? 'OK' : 'FAIL');
        }
        switch (query.action) {
          case 'pp': {
            const current = await currentSession(context, account, request);
            const signInUrl = `${publicUrl ?? `${request.protocol}://${request.host}`}${chrome.base}`;
            return reply
              .type('application/javascript; charset=utf-8')
              .header('cross-origin-resource-policy', 'same-site')
              .send(protectionScript(signInUrl, current?.session));
          }
          case 'ppfail':
            return showSignIn(request, reply, account, query.return);
          case 'ppreturn':
            return showSignIn(request, reply, account, query.url);
          case 'lost':
            return sendPage(reply, 200, chrome, lostPage(chrome));
          case 'reg':
            // A page, found (200): sites link to it, and link checkers take a 404 for a dead link.
            if (account.settings.registration === 'off')
              return sendPage(
                reply,
                200,
                chrome,
                messagePage(chrome, 'registrationClosed', 'registrationClosedText', { href: chrome.base, label: 'backToSignIn' }),
              );
            return sendPage(reply, 200, chrome, registerPage(chrome, { values: {}, errors: {} }));
          case 'logout':
            // A page the browser opens (a link followed, a window opened, typed: from any site)
            // signs out at once: a member on a shared computer who walks away is signed out. The
            // cookie is SameSite=Lax, so no image, frame or fetch of another site carries it;
            // such a request (or one that says it is no page) gets the question instead.
            if (!topLevelNavigation(request)) return sendPage(reply, 200, chrome, signOutPage(chrome));
            return signOut(request, reply, account);
          default:
            return showSignIn(request, reply, account, query.return);
        }
      });

      // Sign-in (and the original's pasted registration, `action=reg2`): this site's form, or
      // the original's pasted on a page of an allowed origin, or elsewhere (see pageForm).
      pages.post('/:account/', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        return pageForm(request, reply, account, await readParams(request, context.limits));
      });

      // On every request to a protected page: the account as recently read (a second at most).
      // Without a promise when the store answers at once (SQLite), as /session/'s check.
      pages.get('/:account/check', (request, reply) => {
        const found = context.accounts.findRecent((request.params as { account: string }).account);
        return found instanceof Promise
          ? found.then((account) => check(context.sessions, account, request, reply))
          : check(context.sessions, found, request, reply);
      });

      pages.post('/:account/register', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        const chrome = await chromeOf(context, account, request);
        const params = await readParams(request, context.limits);
        if (!fromOwnForm(request, publicUrl, params)) return refused(reply, chrome);
        return register(request, reply, chrome, params);
      });

      pages.post('/:account/lost', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        const chrome = await chromeOf(context, account, request);
        const params = await readParams(request, context.limits);
        if (!fromOwnForm(request, publicUrl, params)) return refused(reply, chrome);
        const who = (params.get('who') ?? '').trim();
        if (who === '') return sendPage(reply, 400, chrome, lostPage(chrome, chrome.t('required')));
        const admission = await context.reminders.admit(account.id, clientScope(request.ip));
        if (!admission.ok) return sendPage(reply, 429, chrome, lostPage(chrome, chrome.t('tooMany', { seconds: admission.retryAfterSeconds })));
        // Answered before the look-up: the same words, in the same time, whether anyone matches.
        const selector = who.includes('@') ? ({ by: 'email', email: who } as const) : ({ by: 'login', login: who } as const);
        void context.resets.issue(account, selector, true).catch((error: unknown) => request.log.error({ err: error }, 'the password reminder failed'));
        return sendPage(reply, 200, chrome, messagePage(chrome, 'lostSent', 'lostSentText', { href: chrome.base, label: 'backToSignIn' }));
      });

      /** A POST of a signed-in member's own form: its account, session and parameters, or the answer already sent. */
      async function memberForm(request: FastifyRequest, reply: FastifyReply) {
        const account = await accountOf(request, reply);
        if (!account) return undefined;
        const chrome = await chromeOf(context, account, request);
        const params = await readParams(request, context.limits);
        if (!fromOwnForm(request, publicUrl, params)) {
          refused(reply, chrome);
          return undefined;
        }
        const current = await currentSession(context, account, request);
        const member = current && (await context.members.byId(account, current.member.id));
        if (!current || !member) {
          void sendPage(reply, 401, chrome, signInPage(chrome, {}));
          return undefined;
        }
        return { account, chrome, current, member, params };
      }

      /**
       * Whether `password` is the member's own, for a change it confirms (its e-mail, its
       * password, its deletion): at most 10 tries an hour per member, each a hash's work.
       */
      async function confirmed(account: Account, chrome: Chrome, member: Member, password: string): Promise<true | string> {
        const admission = await context.confirmations.admit(account.id, String(member.id));
        if (!admission.ok) return chrome.t('tooMany', { seconds: admission.retryAfterSeconds });
        // A signed-in member's own turn at hashing: its confirmations wait behind no one else's.
        const client = `member:${member.id}`;
        try {
          await context.hashing.admit(loginShare(account, client));
        } catch (error) {
          if (error instanceof HashingBusy) return chrome.t('busy');
          throw error;
        }
        return (await context.logins.confirmPassword(account, member, password, client)) ? true : chrome.t('wrongPassword');
      }

      pages.get('/:account/profile', async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        const current = await currentSession(context, account, request);
        if (!current) return seeOther(reply, `/auth/${account.name}/`);
        return showProfile(request, reply, account, current.member.id, {});
      });

      pages.post('/:account/profile', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const form = await memberForm(request, reply);
        if (!form) return reply;
        const { account, chrome, member, params } = form;
        const email = (params.get('email') ?? '').trim();
        const { set, cleared, values, errors } = readFields(chrome, params, true);
        if (!isEmail(email)) errors.email = chrome.t(email === '' ? 'required' : 'invalidEmail');
        // A new address takes the password: whoever holds only the session cannot move the
        // account (and its password reminders) to an address of theirs.
        if (!errors.email && email !== member.email) {
          const ok = await confirmed(account, chrome, member, params.get('email_password') ?? '');
          if (ok !== true) errors.email_password = ok;
        }
        if (Object.keys(errors).length > 0) return showProfile(request, reply, account, member.id, { errors, values: { ...values, email } }, 400);
        const updated = await context.members.update(
          account,
          { selector: { by: 'id', id: member.id }, ...(email !== member.email ? { email } : {}), setFields: set, deleteFields: cleared },
          { actor: 'member', requestId: request.id },
        );
        if (updated.kind !== 'updated') {
          const problem =
            updated.kind === 'over-quota' ? 'full' : updated.kind === 'too-many-fields' || updated.kind === 'too-large' ? 'tooLong' : 'failedText';
          return showProfile(request, reply, account, member.id, { notice: undefined, errors: { form: chrome.t(problem) }, values: { ...values, email } }, 400);
        }
        return showProfile(request, reply, account, member.id, { notice: chrome.t('saved') });
      });

      pages.post('/:account/password', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const form = await memberForm(request, reply);
        if (!form) return reply;
        const { account, chrome, member, params } = form;
        const password = params.get('password') ?? '';
        const fail = (field: 'current' | 'password' | 'confirm', message: string) =>
          showProfile(request, reply, account, member.id, { passwordError: { field, message } }, 400);
        const problem = passwordProblem(chrome, password);
        if (problem) return fail('password', problem);
        if (password !== (params.get('confirm') ?? '')) return fail('confirm', chrome.t('passwordsDiffer'));
        const ok = await confirmed(account, chrome, member, params.get('current') ?? '');
        if (ok !== true) return fail('current', ok);
        // A new password ends every session of the member (as /update/'s does); this browser
        // gets a new one, kept as the old one was. Not a login: nothing is counted.
        await context.members.update(
          account,
          { selector: { by: 'id', id: member.id }, password, setFields: new Map(), deleteFields: [] },
          { actor: 'member', requestId: request.id },
        );
        const session = await context.sessions.start(account, member.id, { ip: visitor(request), remember: form.current.remember });
        setSessionCookie(reply, request, account, session, form.current.remember, publicUrl);
        return showProfile(request, reply, account, member.id, { notice: chrome.t('passwordChanged') });
      });

      pages.post('/:account/logout', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        if (!fromOwnForm(request, publicUrl, await readParams(request, context.limits))) return refused(reply, await chromeOf(context, account, request));
        return signOut(request, reply, account);
      });

      pages.post('/:account/delete', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
        const form = await memberForm(request, reply);
        if (!form) return reply;
        const { account, chrome, member, params } = form;
        const ok = await confirmed(account, chrome, member, params.get('delete_password') ?? '');
        if (ok !== true) return showProfile(request, reply, account, member.id, { deleteError: ok }, 400);
        // Erased, not the restorable Deleted an operator's status=D makes (docs/security.md).
        await context.members.erase(account, member.id, { actor: 'member', requestId: request.id });
        clearSessionCookie(reply, request, account, publicUrl);
        return sendPage(reply, 200, chrome, messagePage(chrome, 'deleted', 'deletedText', { href: chrome.base, label: 'backToSignIn' }));
      });

      // Everything stored about the member, as one JSON document (GET: it changes nothing).
      pages.get('/:account/my-data', async (request, reply) => {
        const account = await accountOf(request, reply);
        if (!account) return reply;
        const current = await currentSession(context, account, request);
        if (!current) return seeOther(reply, `/auth/${account.name}/`);
        const member = await context.members.byId(account, current.member.id);
        if (!member) return seeOther(reply, `/auth/${account.name}/`);
        const [profile, logins, sessions, history] = await Promise.all([
          context.members.profileOf(account, member.id),
          context.logins.recentLogins(account, member.id, 100),
          context.sessions.listOf(account, member.id, 100),
          context.events.ofMember(account.id, member.id, 100),
        ]);
        const document = {
          account: account.name,
          exported_at: new Date().toISOString(),
          member: { id: String(member.id), ...builtInValues(member) },
          profile: Object.fromEntries(profile),
          recent_logins: logins.map((entry) => ({ at: new Date(entry.at).toISOString(), ip: entry.ip, outcome: entry.outcome })),
          sessions: sessions.map((session) => ({
            signed_in_at: new Date(session.createdAt).toISOString(),
            last_seen_at: new Date(session.seenAt ?? session.createdAt).toISOString(),
            ip: session.ip,
            kept_signed_in: session.remember,
          })),
          history: history.map((event) => ({ at: new Date(event.at).toISOString(), type: event.type, by: event.origin.actor, data: event.data })),
        };
        return reply
          .type('application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="${account.name}-${member.login.replace(/[^A-Za-z0-9._-]/g, '_')}.json"`)
          .send(`${JSON.stringify(document, null, 2)}\n`);
      });

      // A form's address opened by GET (typed, bookmarked, reloaded after a redirect): its page.
      for (const [path, query] of [
        ['register', '?action=reg'],
        ['lost', '?action=lost'],
        ['password', ''],
        ['delete', ''],
        ['logout', ''],
      ] as const) {
        pages.get(`/:account/${path}`, async (request, reply) =>
          seeOther(reply, `/auth/${encodeURIComponent((request.params as { account: string }).account)}/${query}`),
        );
      }

      /** The account a path names (one no account has, as it is answered everywhere), or undefined for a name that is not one (or not even a URL's). */
      const findQuietly = async (encoded: string) => {
        try {
          const name = decodeURIComponent(encoded);
          return (await context.accounts.find(name)) ?? noSuchAccount(name);
        } catch {
          return undefined;
        }
      };

      // Any other address under /auth/: a page, in the account's look when there is one.
      pages.setNotFoundHandler(async (request, reply) => {
        const name = /^\/auth\/([^/?]+)/.exec(request.url)?.[1];
        const account = name ? await findQuietly(name) : undefined;
        const chrome = await chromeOf(context, account ?? DEFAULT_ACCOUNT, request);
        return sendPage(
          reply,
          404,
          chrome,
          messagePage(chrome, 'notFound', 'notFoundText', account ? { href: chrome.base, label: 'backToSignIn' } : undefined),
        );
      });
    },
    { prefix: '/auth' },
  );
}
