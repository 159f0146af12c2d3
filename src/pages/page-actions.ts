/**
 * What the member pages' sections share: the account of a path (a name no account has answered
 * as an account with every default), the member signed in on the browser, a sign-in made as
 * /api2/login/ makes it (then the cookie), a sign-out, the pages a sign-in leads to, the
 * account's fields read from a form. Functions of the pages' context, never a closure's.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_SETTINGS, type Account } from '../accounts/account.js';
import { ACCOUNT_NAME } from '../accounts/account-rules.js';
import { checkFieldValue, type FieldCheck } from '../accounts/registration-fields.js';
import { canonicalAddress, clientScope } from '../auth/client-address.js';
import { HashingBusy } from '../auth/hashing-gate.js';
import { isOverlongPassword } from '../auth/passwords.js';
import { originOf } from '../common/validate.js';
import { rawQuery, type WireParams } from '../http/params.js';
import { loginShare, type LoginOutcome } from '../members/login-service.js';
import { foldKey } from '../members/member.js';
import type { SessionMember } from '../members/sessions.js';
import type { MessageKey } from '../messages/catalog.js';
import type { MemberPagesContext } from './context.js';
import { allowedReturn, clearSessionCookie, cookieName, readCookies, setSessionCookie } from './member-cookie.js';
import { chromeOf, formTargets, seeOther, sendPage } from './page-reply.js';
import { redirectOrAnswer, takeFlash } from './flash.js';
import { continuePage, signInPage } from './views/sign-in.js';
import { messagePage, type Chrome } from './views/layout.js';
import { profilePage, type ProfileView } from './views/profile.js';
import { createDateFormatter } from '../members/date-format.js';

/** The look of a page that belongs to no account (a request that could not be read). */
export const DEFAULT_ACCOUNT: Account = { id: 0, name: 'member-api', createdAt: 0, settings: DEFAULT_SETTINGS };

/**
 * The account a path names; a name no account has (but could) is answered as an account with
 * every default (registration off, no member, no session): the pages tell nobody which account
 * names exist, as the API's `wrong api key` does not. Its id is 0: nothing is ever written for
 * it. Undefined for a name no account can have.
 */
export async function accountOrDefaults(context: Pick<MemberPagesContext, 'accounts'>, name: string): Promise<Account | undefined> {
  const account = await context.accounts.find(name);
  if (account) return account;
  return ACCOUNT_NAME.test(name) ? { id: 0, name, createdAt: 0, settings: DEFAULT_SETTINGS } : undefined;
}

/**
 * The query string's parameters (the first of each name); unknown ones are ignored by every
 * page. A `url` written last and not encoded (`…&url=https://site/page?a=1&b=2`, as nginx can
 * only write it) is taken whole: everything after `url=`. An encoded one (Caddy's) is decoded.
 */
export function queryOf(request: FastifyRequest): Record<string, string> {
  const query: Record<string, string> = {};
  const raw = rawQuery(request);
  // Only a url holding a `?` or `&` as it is (not encoded) would be cut by a parse: it is taken
  // whole, and the parameters are read from what comes before it (never from the page's own).
  const bare = /(?:^|&)url=(https?:\/\/[^?&]*[?&].*)$/i.exec(raw);
  for (const [name, value] of new URLSearchParams(bare ? raw.slice(0, bare.index) : raw)) if (!(name in query)) query[name] = value;
  if (bare) query.url = bare[1]!;
  return query;
}

/** Whether a request is a page the browser opens itself (Fetch Metadata; a browser without it sends none, and is taken at its word). */
export function topLevelNavigation(request: FastifyRequest): boolean {
  const mode = request.headers['sec-fetch-mode'];
  const destination = request.headers['sec-fetch-dest'];
  return (mode === undefined || mode === 'navigate') && (destination === undefined || destination === 'document');
}

/** The visitor's address, canonical (what a sign-in records and its lockout counts by). */
export function visitor(request: FastifyRequest): string {
  try {
    return canonicalAddress(request.ip);
  } catch {
    return '0.0.0.0';
  }
}

/** The member's valid session from the cookie, if any (a valid check moves its idle deadline). */
export async function currentSession(
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
export async function endCookieSessions(context: MemberPagesContext, account: Account, request: FastifyRequest): Promise<void> {
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
export function readFields(
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
 * Where a browser goes after signing in: the `return` address (already checked), else the
 * member's `urlok`, else the account's, else the member's profile page.
 */
export function destinationOf(chrome: Chrome, returnTo: string | undefined, okUrl: string): string {
  if (returnTo) return returnTo;
  return originOf(okUrl) ? okUrl : chrome.base;
}

export function refused(reply: FastifyReply, chrome: Chrome): FastifyReply {
  return sendPage(reply, 403, chrome, messagePage(chrome, 'refused', 'refusedText', { href: chrome.base, label: 'backToSignIn' }));
}

export function registrationClosed(reply: FastifyReply, chrome: Chrome): FastifyReply {
  return sendPage(reply, 200, chrome, messagePage(chrome, 'registrationClosed', 'registrationClosedText', { href: chrome.base, label: 'backToSignIn' }));
}

export async function showSignIn(
  context: MemberPagesContext,
  request: FastifyRequest,
  reply: FastifyReply,
  account: Account,
  wanted: string | undefined,
): Promise<FastifyReply> {
  const chrome = await chromeOf(context, account, request);
  const returnTo = allowedReturn(account, wanted, request, context.publicUrl);
  const current = await currentSession(context, account, request);
  if (current && returnTo) return seeOther(reply, returnTo);
  if (current && !wanted) return showProfile(context, request, reply, account, current.member.id, {});
  // A refused sign-in's redirect left why, and the login typed; a sign-out's or a deletion's, its notice.
  const flash = takeFlash(request, reply, chrome, context.flashKey);
  const notice = wanted && !returnTo ? chrome.t('returnRefused') : flash?.notice;
  const refused = flash?.form === 'sign-in' ? { error: flash.errors?.form, login: flash.values?.login } : {};
  return sendPage(reply, 200, chrome, signInPage(chrome, { returnTo, notice, ...refused }), returnTo);
}

export async function showProfile(
  context: MemberPagesContext,
  request: FastifyRequest,
  reply: FastifyReply,
  account: Account,
  memberId: number,
  view: Partial<ProfileView>,
  status = 200,
): Promise<FastifyReply> {
  const chrome = await chromeOf(context, account, request);
  const member = await context.members.byId(account, memberId);
  if (!member) return showSignIn(context, request, reply, account, undefined);
  const [profile, billing] = await Promise.all([context.members.profileOf(account, memberId), context.billing.memberBilling(account, memberId)]);
  // The plans' names only for a paid member: most profiles have none to show.
  const plans = billing ? await context.billing.plans(account) : [];
  const dates = createDateFormatter(account.settings.timeZone);
  const shown: ProfileView['billing'] = billing && {
    plan: plans.find((plan) => plan.name === billing.plan)?.title ?? billing.plan,
    paidUntil: billing.paidUntil === null ? undefined : dates.date(billing.paidUntil),
    cancels: billing.cancelAtPeriodEnd,
    problem: billing.status === 'past_due',
    manage: member.billPc === 'paypal' || (member.billPc === 'stripe' && member.billCust !== null),
  };
  const providers = shown?.manage ? context.billing.providerOrigins() : [];
  return sendPage(reply, status, chrome, profilePage(chrome, { login: member.login, email: member.email, profile, billing: shown, ...view }), undefined, providers);
}

export async function signOut(context: MemberPagesContext, request: FastifyRequest, reply: FastifyReply, account: Account) {
  const chrome = await chromeOf(context, account, request);
  await endCookieSessions(context, account, request);
  clearSessionCookie(reply, request, account, context.publicUrl);
  return leaveForSignIn(context, request, reply, chrome, 'signedOut');
}

/**
 * After the member's session ended (signed out, or the account deleted): the sign-in page, the
 * notice at its top, reached by a redirect, so that a reload posts nothing again. In a frame
 * (where the redirect's page would not get the pages' cookies) the notice's own page answers.
 */
export function leaveForSignIn(context: MemberPagesContext, request: FastifyRequest, reply: FastifyReply, chrome: Chrome, ended: 'signedOut' | 'deleted') {
  const words = ENDED[ended];
  return redirectOrAnswer(request, reply, chrome, context.flashKey, chrome.base, { notice: chrome.t(words.notice) }, () =>
    messagePage(chrome, ended, words.text, { href: chrome.base, label: 'signInAgain' }),
  );
}

/** The words of an ended session: the sign-in page's notice, and the text of the page a frame gets. */
const ENDED = {
  signedOut: { notice: 'signedOutNotice', text: 'signedOutText' },
  deleted: { notice: 'deletedText', text: 'deletedText' },
} as const;

/** Signs the member in as /api2/login/ would, then sets the cookie; the failure's words otherwise. */
export async function signIn(
  context: MemberPagesContext,
  request: FastifyRequest,
  reply: FastifyReply,
  account: Account,
  login: string,
  password: string,
  remember: boolean,
): Promise<{ ok: true; okUrl: string } | { ok: false; message: string; failUrl: string; status?: 429 | 503 }> {
  const chrome = await chromeOf(context, account, request);
  if (login === '' || password === '' || isOverlongPassword(password)) return { ok: false, message: chrome.t('wrongLogin'), failUrl: account.settings.failUrl };
  try {
    await context.hashing.admit(loginShare(account, clientScope(request.ip)));
  } catch (error) {
    if (error instanceof HashingBusy) return { ok: false, message: chrome.t('busy'), failUrl: '', status: 503 };
    throw error;
  }
  const admission = await context.anonymousLogins.admit(account.id, foldKey(login), clientScope(request.ip), account.settings.loginRateLimitPerMinute);
  if (!admission.ok) return { ok: false, message: chrome.t('tooMany', { seconds: admission.retryAfterSeconds }), failUrl: '', status: 429 };
  // The member's login, or an address one member has (members-service.ts); an address several
  // share signs in none, after the same work as a wrong password.
  const named = account.id === 0 ? { kind: 'login' as const, login } : await context.members.signInLogin(account, login);
  // A name no account has: the same work as a wrong password (LoginService), nothing recorded.
  const outcome = await context.logins.login(account.id === 0 ? undefined : account, {
    login: named.kind === 'login' ? named.login : login,
    password,
    ip: visitor(request),
    client: clientScope(request.ip),
    origin: { actor: 'member', requestId: request.id },
    remember,
  });
  context.countLogin?.(outcome.kind === 'ok' ? 'ok' : outcome.reason === 'wrong-credentials' ? 'fail' : outcome.reason);
  if (outcome.kind === 'fail') return { ok: false, message: failureMessage(chrome, outcome, named.kind === 'shared'), failUrl: outcome.failUrl };
  // A session the browser held before is ended: an id is never carried across a sign-in.
  await endCookieSessions(context, account, request);
  setSessionCookie(reply, request, account, outcome.session, remember, context.publicUrl);
  return { ok: true, okUrl: outcome.okUrl };
}

/**
 * The sign-in page's words for a refusal: wrong login or password; a suspension (told only to
 * the right password); a lock with the time left (told only to the right password, LoginService);
 * an address several members share.
 */
function failureMessage(chrome: Chrome, outcome: Extract<LoginOutcome, { kind: 'fail' }>, shared: boolean): string {
  if (outcome.reason === 'suspended') return chrome.t('suspended');
  if (outcome.lockedUntil !== undefined) return chrome.t('lockedWait', { minutes: Math.max(1, Math.ceil((outcome.lockedUntil - Date.now()) / 60_000)) });
  return chrome.t(shared ? 'sharedAddress' : 'wrongLogin');
}

/** Sends the browser on: a redirect when the form's policy allows the destination, else a page with a link. */
export function goOn(reply: FastifyReply, chrome: Chrome, destination: string, returnTo?: string) {
  const origin = originOf(destination);
  if (!origin || formTargets(chrome.account, returnTo).includes(origin)) return seeOther(reply, destination);
  return sendPage(reply, 200, chrome, continuePage(chrome, destination));
}
