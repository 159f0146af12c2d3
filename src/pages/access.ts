/**
 * What a member page's route finds before it runs, once, in a `preHandler` hook: a route says
 * what it needs in its options (`{ config: { page: { … } } }`) and the hook finds the account
 * of the URL (a name no account has is answered as an account with every default: page-actions.ts),
 * the page's words and look (its chrome), the form's parameters with the check that it came from
 * these pages (`form: 'own'`), and the signed-in member (`member: true`: without one, a page
 * goes to sign-in and a form is answered 401). The route reads it with `pageOf(request)`.
 * `/auth/ACCOUNT/check`, asked on every request to a protected page, needs none of it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import { readParams, type WireParams } from '../http/params.js';
import type { Member } from '../members/member.js';
import type { SessionMember } from '../members/sessions.js';
import type { MemberPagesContext } from './context.js';
import { fromOwnForm } from './form-token.js';
import { chromeOf, seeOther, sendPage } from './page-reply.js';
import { accountOrDefaults, currentSession, DEFAULT_ACCOUNT, refused } from './page-actions.js';
import { messagePage, type Chrome } from './views/layout.js';
import { signInPage } from './views/sign-in.js';

/** What a member page's route needs found first. */
export interface PageNeeds {
  /** The posted form must come from these pages (Sec-Fetch-Site, Origin, or its token). */
  readonly form?: 'own';
  /** A member signed in on this browser. */
  readonly member?: true;
}

export interface FoundPage {
  readonly account: Account;
  readonly chrome: Chrome;
  /** The query's or the form's parameters (read once). */
  readonly params: WireParams;
  /** The signed-in member, for a route that needs one. */
  readonly signedIn?: { readonly session: string; readonly remember: boolean; readonly member: Member; readonly summary: SessionMember };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a member page needs found first (pages/access.ts); a route without it finds nothing. */
    page?: PageNeeds;
  }
  interface FastifyRequest {
    memberPage: FoundPage | null;
  }
}

export function pageOf(request: FastifyRequest): FoundPage {
  if (!request.memberPage) throw new Error(`${request.routeOptions.url}: no page found (config.page is missing)`);
  return request.memberPage;
}

export function signedInOf(request: FastifyRequest): FoundPage & { signedIn: NonNullable<FoundPage['signedIn']> } {
  const page = pageOf(request);
  if (!page.signedIn) throw new Error(`${request.routeOptions.url}: no member found (config.page.member is missing)`);
  return page as FoundPage & { signedIn: NonNullable<FoundPage['signedIn']> };
}

export function registerPageAccess(scope: FastifyInstance, context: MemberPagesContext): void {
  scope.decorateRequest('memberPage', null);
  scope.addHook('preHandler', async (request, reply) => {
    const needs = request.routeOptions.config.page;
    if (!needs) return;
    const name = (request.params as { account?: string }).account ?? '';
    const account = await accountOrDefaults(context, name);
    if (!account) {
      const chrome = await chromeOf(context, DEFAULT_ACCOUNT, request);
      return sendPage(reply, 404, chrome, messagePage(chrome, 'notFound', 'notFoundText'));
    }
    const chrome = await chromeOf(context, account, request);
    const params = await readParams(request, context.limits);
    if (needs.form === 'own' && !fromOwnForm(request, context.publicUrl, params)) return refused(reply, chrome);
    if (!needs.member) {
      request.memberPage = { account, chrome, params };
      return;
    }
    const current = await currentSession(context, account, request);
    const member = current && (await context.members.byId(account, current.member.id));
    if (!current || !member) {
      if (request.method === 'GET') return seeOther(reply, chrome.base);
      return sendPage(reply, 401, chrome, signInPage(chrome, {}));
    }
    request.memberPage = { account, chrome, params, signedIn: { session: current.session, remember: current.remember, member, summary: current.member } };
  });
}
