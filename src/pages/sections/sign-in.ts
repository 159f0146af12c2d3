/**
 * Signing in and out, at the hosted original's addresses: `/auth/ACCOUNT/` is its page
 * interface (`?action=` and `?mode=API` choose the page: sign-in, the reminder, registration,
 * sign-out, the protection script, the session check), and takes the sign-in form (this site's,
 * or the original's pasted on a site; with `action=reg2`, the original's pasted registration
 * form), as its older address `/cgi-bin/auth.fcgi` does. A sign-in is /api2/login/'s, actor
 * `member` (page-actions.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { FORM_BODY_LIMIT_BYTES } from '../../http/page-security.js';
import { readParams, type WireParams } from '../../http/params.js';
import { originOf } from '../../common/validate.js';
import { pageOf } from '../access.js';
import type { MemberPagesContext } from '../context.js';
import { fromOwnForm } from '../form-token.js';
import { inFrame, redirectWithFlash, takeFlash } from '../flash.js';
import { allowedReturn, fromAllowedOrigin } from '../member-cookie.js';
import {
  accountOrDefaults,
  DEFAULT_ACCOUNT,
  destinationOf,
  goOn,
  queryOf,
  readFields,
  refused,
  registrationClosed,
  showSignIn,
  signIn,
  signOut,
  topLevelNavigation,
} from '../page-actions.js';
import { chromeOf, seeOther, sendPage } from '../page-reply.js';
import { messagePage } from '../views/layout.js';
import { registerPage } from '../views/registration.js';
import { signInPage, signOutPage } from '../views/sign-in.js';
import { protectionScriptAnswer, sessionAnswer } from './protection.js';
import { originalRegistration, register, registrationPage } from './registration.js';
import { reminderPage } from './reminder.js';
import { showJoin } from './join.js';

export async function signInSection(pages: FastifyInstance, context: MemberPagesContext): Promise<void> {
  // The page interface: one address, its `action` (and `mode`) choosing the page.
  pages.get('/:account/', { config: { page: {} } }, async (request, reply) => {
    const { account, chrome } = pageOf(request);
    const query = queryOf(request);
    if (query.mode === 'API' || query.mode === 'api') return sessionAnswer(context, account, query, reply);
    switch (query.action) {
      case 'pp':
        return protectionScriptAnswer(context, account, chrome, request, reply);
      case 'ppreturn':
        return showSignIn(context, request, reply, account, query.url);
      case 'lost':
        return reminderPage(reply, chrome, takeFlash(request, reply, chrome, context.flashKey));
      case 'join':
        return showJoin(context, request, reply, chrome);
      case 'reg':
        // An account that takes no free registrations but sells plans: registering is joining.
        if (account.settings.registration === 'off' && (await context.billing.plans(account)).some((plan) => plan.stripePrice))
          return showJoin(context, request, reply, chrome);
        return registrationPage(reply, chrome, takeFlash(request, reply, chrome, context.flashKey));
      case 'logout':
        // A page the browser opens (a link followed, a window opened, typed: from any site)
        // signs out at once: a member on a shared computer who walks away is signed out. The
        // cookie is SameSite=Lax, so no image, frame or fetch of another site carries it;
        // such a request (or one that says it is no page) gets the question instead.
        if (!topLevelNavigation(request)) return sendPage(reply, 200, chrome, signOutPage(chrome));
        return signOut(context, request, reply, account);
      default:
        // The sign-in page (`?action=ppfail&return=…` too).
        return showSignIn(context, request, reply, account, query.return);
    }
  });

  // Sign-in (and the original's pasted registration, `action=reg2`): this site's form, or the
  // original's pasted on a page of an allowed origin, or elsewhere (see pageForm).
  pages.post('/:account/', { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: {} } }, async (request, reply) => {
    const { account, params } = pageOf(request);
    return pageForm(context, request, reply, account, params);
  });

  pages.post('/:account/logout', { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: { form: 'own' } } }, async (request, reply) =>
    signOut(context, request, reply, pageOf(request).account),
  );
}

/**
 * The original's older sign-in address, where pasted forms still post
 * (`action=login&user=ACCOUNT&login=…&password=…`): the account's sign-in, as /auth/ACCOUNT/.
 */
export async function originalSignInRoute(scope: FastifyInstance, context: MemberPagesContext): Promise<void> {
  scope.post('/cgi-bin/auth.fcgi', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
    const params = await readParams(request, context.limits);
    const account = await accountOrDefaults(context, params.get('user') ?? '');
    if (!account) {
      const chrome = await chromeOf(context, DEFAULT_ACCOUNT, request);
      return sendPage(reply, 404, chrome, messagePage(chrome, 'notFound', 'notFoundText'));
    }
    return pageForm(context, request, reply, account, params);
  });
}

/**
 * A form posted to the account's sign-in address: the sign-in (`action=login`, the default),
 * or the original's pasted registration form (`action=reg2`). From these pages, or from a page
 * of an allowed origin (the original's forms pasted on the site), it is done. From anywhere
 * else nothing is done: the page it would have been answers, filled with what was posted
 * (never a password), for the visitor to finish here, and the origin is noted for the console
 * (an owner adds it to `--return-origins` there).
 */
async function pageForm(
  context: MemberPagesContext,
  request: FastifyRequest,
  reply: FastifyReply,
  account: Account,
  params: WireParams,
): Promise<FastifyReply> {
  const chrome = await chromeOf(context, account, request);
  const own = fromOwnForm(request, context.publicUrl, params);
  const pasted = !own && fromAllowedOrigin(account, request);
  const action = params.get('action') ?? 'login';
  if (action !== 'login' && action !== 'reg2') return refused(reply, chrome);
  if (!own && !pasted) await context.accounts.noteFormOrigin(account, request.headers.origin);
  if (action === 'reg2') {
    const form = originalRegistration(chrome, params);
    if (own || pasted) return register(context, request, reply, chrome, form);
    if (account.settings.registration === 'off') return registrationClosed(reply, chrome);
    const { values } = readFields(chrome, form, false);
    const shown = { ...values, login: form.get('login') ?? '', email: form.get('email') ?? '' };
    return sendPage(reply, 200, chrome, registerPage(chrome, { values: shown, errors: {}, notice: chrome.t('finishHere') }));
  }
  const login = params.get('login') ?? '';
  if (!own && !pasted) return sendPage(reply, 200, chrome, signInPage(chrome, { login, notice: chrome.t('signInHere') }));
  const returnTo = allowedReturn(account, params.get('return'), request, context.publicUrl);
  const remember = params.get('remember') === '1' || params.get('remember') === 'on';
  const outcome = await signIn(context, request, reply, account, login, params.get('password') ?? '', remember);
  if (outcome.ok) return goOn(reply, chrome, destinationOf(chrome, returnTo, outcome.okUrl), returnTo);
  // A pasted form's page is the site's: it goes to the failure URL when there is one.
  if (pasted && originOf(outcome.failUrl)) return seeOther(reply, outcome.failUrl);
  // This site's own form: back to the sign-in page (post, redirect, get), the login and why kept.
  // Too many, or busy: the page at once, with its status (429, 503).
  if (outcome.status) return sendPage(reply, outcome.status, chrome, signInPage(chrome, { error: outcome.message, login, returnTo }), returnTo);
  if (own && !inFrame(request)) {
    const page = `${chrome.base}${returnTo ? `?${new URLSearchParams({ return: returnTo })}` : ''}`;
    return redirectWithFlash(reply, chrome, context.flashKey, page, { form: 'sign-in', errors: { form: outcome.message }, values: { login } });
  }
  return sendPage(reply, 200, chrome, signInPage(chrome, { error: outcome.message, login, returnTo }), returnTo);
}
