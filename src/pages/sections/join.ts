/**
 * Joining by paying (`?action=join`): the account's plans; a visitor's login, address and
 * password asked as at registration (or the signed-in member's membership); a checkout at the
 * payment provider (billing/billing-service.ts), the browser sent there with a cookie that
 * binds the checkout to it; back at `joined?checkout=ID`, a page that refreshes itself until the
 * provider's notice has made (or paid) the member, then signs it in, once. "Manage billing" on
 * the profile opens the provider's customer portal.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientScope } from '../../auth/client-address.js';
import { CHECKOUT_SIGN_IN_MS } from '../../billing/billing-service.js';
import { paysSubscription, ProviderUnavailable, type Plan } from '../../billing/billing.js';
import type { Member } from '../../members/member.js';
import { FORM_BODY_LIMIT_BYTES, cameOverHttps } from '../../http/page-security.js';
import { isEmail, isLogin } from '../../members/fields.js';
import { effectiveState } from '../../members/lifecycle.js';
import { pageOf, signedInOf } from '../access.js';
import type { MemberPagesContext } from '../context.js';
import { redirectWithFlash } from '../flash.js';
import { readCookies, setSessionCookie } from '../member-cookie.js';
import { currentSession, queryOf } from '../page-actions.js';
import { passwordProblem, seeOther, sendPage } from '../page-reply.js';
import { confirmingPage, joinPage, type Subscribed } from '../views/join.js';
import { messagePage, type Chrome } from '../views/layout.js';
import type { Account } from '../../accounts/account.js';

/** How often the confirmation page asks again, in seconds. */
const REFRESH_SECONDS = 2;
/** After this long without the provider's word, the page says it is late (and goes on asking). */
const LATE_MS = 60_000;

const checkoutCookie = (account: Pick<Account, 'name'>) => `checkout_${account.name}`;

export async function joinSection(pages: FastifyInstance, context: MemberPagesContext): Promise<void> {
  pages.post('/:account/join', { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: { form: 'own' } } }, async (request, reply) => {
    const { account, chrome, params } = pageOf(request);
    const plans = await context.billing.plans(account);
    const current = await currentSession(context, account, request);
    const member = current && (await context.members.byId(account, current.member.id));
    const planName = params.get('plan') ?? '';
    const plan = plans.find((p) => p.name === planName && p.stripePrice);
    const login = (params.get('login') ?? '').trim();
    const email = (params.get('email') ?? '').trim();
    const password = params.get('password') ?? '';
    // A member that pays for a plan already switches in the provider's portal: a second checkout would charge it twice.
    const subscribed = member && (await subscribedPlan(context, account, member, plans));
    if (subscribed !== undefined) return sendPage(reply, 409, chrome, joinPage(chrome, { plans: [], subscribed }), undefined, context.billing.providerOrigins());
    const errors: Record<string, string> = {};
    if (!plan) errors.plan = chrome.t('unknownPlan');
    if (!member) {
      // Joining by paying is open whatever `--registration` says (that is for free sign-ups): a plan on sale is an invitation.
      if (!isLogin(login)) errors.login = chrome.t(login === '' ? 'required' : 'invalidLogin');
      if (!isEmail(email)) errors.email = chrome.t(email === '' ? 'required' : 'invalidEmail');
      const taken = await context.members.registrationConflicts(account, errors.login ? '' : login, errors.email ? '' : email);
      if (taken.login) errors.login = chrome.t('loginTaken');
      if (taken.email) errors.email = chrome.t('emailTaken');
      const problem = passwordProblem(chrome, password);
      if (problem) errors.password = problem;
      else if (password !== (params.get('confirm') ?? '')) errors.confirm = chrome.t('passwordsDiffer');
    }
    const again = (status: number, error?: string) =>
      sendPage(reply, status, chrome, joinPage(chrome, { plans: sellable(plans), login: member?.login, values: { plan: planName, login, email }, errors, error }), undefined, context.billing.providerOrigins());
    if (Object.keys(errors).length > 0) return again(400);
    if (!member) {
      const admission = await context.registrations.admit(account.id, clientScope(request.ip));
      if (!admission.ok) return again(429, chrome.t('tooMany', { seconds: admission.retryAfterSeconds }));
    }
    try {
      const started = await context.billing.startCheckout(
        account,
        plan!,
        member ? { member } : { login, email, password, language: chrome.language, client: clientScope(request.ip) },
      );
      const secure = cameOverHttps(request, context.publicUrl) ? '; Secure' : '';
      reply.header('set-cookie', `${checkoutCookie(account)}=${started.checkout}; Path=${chrome.base}; HttpOnly; SameSite=Lax; Max-Age=${CHECKOUT_SIGN_IN_MS / 1000}${secure}`);
      return seeOther(reply, started.url);
    } catch (error) {
      if (error instanceof ProviderUnavailable) {
        request.log.warn({ reason: error.message }, 'checkout not started');
        return again(503, chrome.t('paymentsOff'));
      }
      throw error;
    }
  });

  pages.get('/:account/joined', { config: { page: {} } }, async (request, reply) => {
    const { account, chrome } = pageOf(request);
    const id = queryOf(request).checkout ?? '';
    const checkout = id === '' ? undefined : await context.billing.checkout(account, id);
    const bound = readCookies(request.headers.cookie, checkoutCookie(account)).includes(id);
    const over = () => sendPage(reply, 410, chrome, messagePage(chrome, 'checkoutOver', 'checkoutOverText', { href: chrome.base, label: 'backToSignIn' }));
    if (!checkout || !bound || checkout.signedInAt !== null || Date.now() - checkout.createdAt > CHECKOUT_SIGN_IN_MS) return over();
    const member = checkout.memberId === null ? undefined : await context.members.byId(account, checkout.memberId);
    const paid = member && checkout.completedAt !== null && effectiveState(member, Date.now()).status === 'A';
    if (!paid) {
      reply.header('refresh', String(REFRESH_SECONDS));
      return sendPage(reply, 200, chrome, confirmingPage(chrome, Date.now() - checkout.createdAt > LATE_MS));
    }
    if (!(await context.billing.markSignedIn(checkout.id))) return over();
    const session = await context.sessions.start(account, member.id, { ip: request.ip, remember: false });
    setSessionCookie(reply, request, account, session, false, context.publicUrl);
    const plan = (await context.billing.plans(account)).find((p) => p.name === checkout.plan);
    return redirectWithFlash(reply, chrome, context.flashKey, `${chrome.base}profile`, { notice: chrome.t('joined', { login: member.login, plan: plan?.title ?? checkout.plan }) });
  });

  pages.post('/:account/billing', { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: { form: 'own', member: true } } }, async (request, reply) => {
    const { account, chrome, signedIn } = signedInOf(request);
    try {
      const url = await context.billing.manageUrl(account, signedIn.member);
      return seeOther(reply, url ?? `${chrome.base}profile`);
    } catch (error) {
      if (!(error instanceof ProviderUnavailable)) throw error;
      request.log.warn({ reason: error.message }, 'billing portal not opened');
      return redirectWithFlash(reply, chrome, context.flashKey, `${chrome.base}profile`, { errors: { form: chrome.t('billingUnavailable') } });
    }
  });
}

/** The plans a visitor can buy here (those with a Stripe price: the hosted checkout is Stripe's). */
export function sellable<P extends { stripePrice: string | null }>(plans: readonly P[]): P[] {
  return plans.filter((plan) => plan.stripePrice);
}

/** The join page (`?action=join`), for a visitor or the signed-in member. */
export async function showJoin(context: MemberPagesContext, request: FastifyRequest, reply: FastifyReply, chrome: Chrome): Promise<FastifyReply> {
  const { account } = chrome;
  const current = await currentSession(context, account, request);
  const plans = sellable(await context.billing.plans(account));
  const member = current && (await context.members.byId(account, current.member.id));
  const subscribed = member && (await subscribedPlan(context, account, member, plans));
  return sendPage(reply, 200, chrome, joinPage(chrome, { plans, login: current?.member.login, subscribed }), undefined, context.billing.providerOrigins());
}

/** The plan the member pays for and goes on paying, if it does (billing.ts: paysSubscription), and whether it ends at its period's end. */
async function subscribedPlan(context: MemberPagesContext, account: Account, member: Member, plans: readonly Plan[]): Promise<Subscribed | undefined> {
  if (member.billSubscr === null) return undefined;
  const billing = await context.billing.memberBilling(account, member.id);
  if (!billing || !paysSubscription(member, billing, Date.now())) return undefined;
  return { plan: plans.find((plan) => plan.name === billing.plan)?.title ?? billing.plan, ending: billing.cancelAtPeriodEnd };
}
