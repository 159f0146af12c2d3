/**
 * Registration on the member pages: the pages' own form, and the hosted original's form pasted
 * on a site (`action=reg2`, read by originalRegistration and posted to the sign-in address,
 * sign-in.ts). Every field's problem is said at once; the budgets (per client, per account) and
 * the hashing gate come before the members' service makes the member (reg_type Free,
 * `member.registered`), which is signed in at once or waits for an operator's approval (the
 * operators who hear of it, and the link to the queue, are the operators' service's).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientScope } from '../../auth/client-address.js';
import { HashingBusy } from '../../auth/hashing-gate.js';
import { FORM_BODY_LIMIT_BYTES } from '../../http/page-security.js';
import { WireParams } from '../../http/params.js';
import { isEmail, isLogin } from '../../members/fields.js';
import { pageOf } from '../access.js';
import type { MemberPagesContext } from '../context.js';
import { destinationOf, goOn, readFields, registrationClosed, signIn, visitor } from '../page-actions.js';
import { passwordProblem, sendPage } from '../page-reply.js';
import { messagePage, type Chrome } from '../views/layout.js';
import { inFrame, redirectOrAnswer, redirectWithFlash, type Flash } from '../flash.js';
import { registerPage } from '../views/registration.js';
import { signInPage } from '../views/sign-in.js';

export async function registrationSection(pages: FastifyInstance, context: MemberPagesContext): Promise<void> {
  pages.post('/:account/register', { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: { form: 'own' } } }, async (request, reply) => {
    const { chrome, params } = pageOf(request);
    return register(context, request, reply, chrome, params);
  });
}

/** The registration form's element id: a refused registration lands scrolled to it. */
const REGISTER_FORM = 'register-form';

/** The flash of a registration that waits for approval, and the page that says so. */
const AWAITING = 'awaiting-approval';
const awaitingPage = (chrome: Chrome) => messagePage(chrome, 'awaitingApproval', 'awaitingApprovalText', { href: chrome.base, label: 'backToSignIn' });

/** The registration page (with what a refused registration left: its errors, what was typed), or the page that says it is closed, or that it waits. */

export function registrationPage(reply: FastifyReply, chrome: Chrome, flash?: Flash): FastifyReply {
  // A page, found (200): sites link to it, and link checkers take a 404 for a dead link.
  if (chrome.account.settings.registration === 'off') return registrationClosed(reply, chrome);
  if (flash?.form === AWAITING) return sendPage(reply, 200, chrome, awaitingPage(chrome));
  const errors = { ...(flash?.errors ?? {}) };
  const error = errors.form;
  delete errors.form;
  return sendPage(reply, 200, chrome, registerPage(chrome, { values: flash?.values ?? {}, errors, error }));
}

/**
 * A registration (the pages' form, or the original's pasted one read by originalRegistration):
 * every field's problem said at once, the budgets and the hashing gate, then a member made by
 * the members' service, signed in at once or waiting for approval.
 */
export async function register(
  context: MemberPagesContext,
  request: FastifyRequest,
  reply: FastifyReply,
  chrome: Chrome,
  params: WireParams,
): Promise<FastifyReply> {
  const { account } = chrome;
  if (account.settings.registration === 'off') return registrationClosed(reply, chrome);
  const login = (params.get('login') ?? '').trim();
  const email = (params.get('email') ?? '').trim();
  const password = params.get('password') ?? '';
  const { set, values, errors } = readFields(chrome, params, false);
  // Refused for what was typed: back to the registration page, its errors and what was typed
  // (not the password) with it. Refused for the moment (too many, busy): the page at once,
  // with its status (429, 503) and when to try again.
  const again = (status: number, error?: string) =>
    status === 429 || status === 503 || inFrame(request)
      ? sendPage(reply, status, chrome, registerPage(chrome, { values: { ...values, login, email }, errors, error }))
      : redirectWithFlash(reply, chrome, context.flashKey, `${chrome.base}?action=reg#${REGISTER_FORM}`, {
          form: REGISTER_FORM,
          errors: error === undefined ? errors : { ...errors, form: error },
          values: { ...values, login, email },
        });
  // A robot fills the hidden field: it is thanked, and nothing is made.
  if ((params.get('website') ?? '') !== '') return sendPage(reply, 200, chrome, messagePage(chrome, 'thanks', 'thanksText'));
  if (!isLogin(login)) errors.login = chrome.t(login === '' ? 'required' : 'invalidLogin');
  if (!isEmail(email)) errors.email = chrome.t(email === '' ? 'required' : 'invalidEmail');
  // A login or an address another member has, said with every other problem. Which login has
  // the address is not told: its owner is offered the reminder.
  const taken = await context.members.registrationConflicts(account, errors.login ? '' : login, errors.email ? '' : email);
  if (taken.login) errors.login = chrome.t('loginTaken');
  if (taken.email) errors.email = chrome.t('emailTaken');
  const client = clientScope(request.ip);
  // Telling that a login or an address is taken spends the registrations' budget: nobody
  // learns of more addresses than the budget registers.
  if (taken.login || taken.email) {
    const admission = await context.registrations.admit(account.id, client);
    if (!admission.ok) return again(429, chrome.t('tooMany', { seconds: admission.retryAfterSeconds }));
  }
  const problem = passwordProblem(chrome, password);
  if (problem) errors.password = problem;
  else if (password !== (params.get('confirm') ?? '')) errors.confirm = chrome.t('passwordsDiffer');
  if (Object.keys(errors).length > 0) return again(taken.login || taken.email ? 409 : 400);
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
      registration: {
        approval,
        language: chrome.language,
        ...(approval ? await context.operators.approvalNotice(account) : { operators: [], approveUrl: '' }),
      },
    },
    { actor: 'member', requestId: request.id },
  );
  if (created.kind === 'login-taken') {
    errors.login = chrome.t('loginTaken');
    return again(409);
  }
  if (created.kind !== 'created') return again(400, chrome.t(created.kind === 'over-quota' ? 'full' : 'tooLong'));
  // Waiting for approval: the page that says so, by a redirect (a reload registers nothing again).
  if (approval) return redirectOrAnswer(request, reply, chrome, context.flashKey, `${chrome.base}?action=reg`, { form: AWAITING }, () => awaitingPage(chrome));
  const signedIn = await signIn(context, request, reply, account, login, password, false);
  if (!signedIn.ok) return sendPage(reply, 200, chrome, signInPage(chrome, { error: signedIn.message, login }));
  const destination = destinationOf(chrome, undefined, signedIn.okUrl);
  // Without a site to go on to, the member lands on its profile, welcomed.
  if (destination === chrome.base) {
    const name = account.settings.pageName || account.name;
    return redirectWithFlash(reply, chrome, context.flashKey, `${chrome.base}profile`, { notice: chrome.t('welcome', { name, login }) });
  }
  return goOn(reply, chrome, destination);
}

/**
 * The hosted original's registration form, as sites pasted it (`action=reg2`, `_login`,
 * `_email`, `_password`, `_password2`, and each profile field as `_` and its name), read as
 * the pages' own form: a field of the account's registration fields by its name (`-` and `_`
 * alike); the others, which the account does not ask, are left out.
 */
export function originalRegistration(chrome: Chrome, params: WireParams): WireParams {
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
