/**
 * How a member page is answered: the account's look and words for the request (its chrome),
 * and the page sent with its headers. Shared by the member pages and by the pages a member
 * opens from a mail (the password reset).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import type { AccountsService } from '../accounts/accounts-service.js';
import { pageTemplateOf } from '../accounts/page-template.js';
import { pickLanguage, translator } from '../messages/catalog.js';
import { checkChosenPassword } from '../auth/password-policy.js';
import { originOf } from '../common/validate.js';
import { policy, type Chrome } from './views/layout.js';
import { appendCookie, formTokenCookie, formTokenOf } from './form-token.js';

/** What every page of the request shares: the account, its words in the visitor's language, its layout. */
export async function chromeOf(
  context: { readonly accounts: Pick<AccountsService, 'pageTemplate'>; readonly publicUrl?: string },
  account: Account,
  request: FastifyRequest,
): Promise<Chrome> {
  const language = pickLanguage(account.settings.pageLanguage, request.headers['accept-language']);
  const template = account.id === 0 ? pageTemplateOf(undefined) : await context.accounts.pageTemplate(account);
  const { token, fresh } = formTokenOf(request);
  return {
    account,
    t: translator(language),
    language,
    base: `/auth/${account.name}/`,
    template,
    formToken: token,
    freshFormToken: fresh,
    publicUrl: context.publicUrl,
  };
}

/** The origins a page's form may lead the browser to: the allowed ones, the account's ok URL's, a return's. */
export function formTargets(account: Account, returnTo?: string): string[] {
  return [...account.settings.returnOrigins, originOf(account.settings.okUrl), returnTo && originOf(returnTo)].filter((origin): origin is string =>
    Boolean(origin),
  );
}

/**
 * An HTML page with its policy; never cached; framed by the account's allowed origins only (by
 * nobody without them: `X-Frame-Options: DENY` too, for browsers before `frame-ancestors`).
 * Any form of it may lead the browser on to the account's allowed origins and ok URL (a
 * sign-in, a registration signed in at once), and to the sign-in's `return` when there is one.
 * The referrer policy keeps the origin on the pages' own requests (a form's `Origin` is then
 * this site's, not `null`) and gives other sites nothing. A page whose form leads to a payment
 * provider's pages (a checkout, the customer portal) names the provider's origins (`providers`).
 */
export function sendPage(reply: FastifyReply, status: number, chrome: Chrome, body: string, returnTo?: string, providers: readonly string[] = []): FastifyReply {
  giveFormToken(reply, chrome);
  reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', policy(chrome, [...formTargets(chrome.account, returnTo), ...providers]))
    .header('referrer-policy', 'same-origin');
  if (chrome.account.settings.returnOrigins.length === 0) reply.header('x-frame-options', 'DENY');
  return reply.send(body);
}

/** A browser without the forms' token gets it with the first answer it has from the pages (form-token.ts). */
export function giveFormToken(reply: FastifyReply, chrome: Chrome): void {
  if (chrome.freshFormToken) appendCookie(reply, formTokenCookie(reply.request, chrome.formToken, chrome.publicUrl));
}

/** A redirect after a form (303), never cached. */
export const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).header('cache-control', 'no-store').send();

/** The page's words for a refused chosen password, or undefined when it can be used. */
export function passwordProblem(chrome: Chrome, password: string): string | undefined {
  const { minPasswordLength, passwordCheck } = chrome.account.settings;
  switch (checkChosenPassword(password, { minLength: minPasswordLength, refuseCommon: passwordCheck === 'common' })) {
    case 'ok':
      return undefined;
    case 'too-short':
      return chrome.t('passwordTooShort', { min: minPasswordLength });
    case 'too-long':
      return chrome.t('passwordTooLong');
    case 'too-common':
      return chrome.t('passwordTooCommon');
  }
}
