/**
 * Password reset. POST /api2/reset/ (with the API key) makes a single-use link for one
 * member; GET of the link shows a small page with a form; POSTing the form sets the new
 * password (the account's rules), ends the member's sessions, and sends the browser to the
 * account's ok URL. GET never changes anything (mail scanners open links); a used, expired or
 * forged link shows a page that says so and changes nothing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { redirectUrl } from '../../common/validate.js';
import { RESET_PAGE_PATH, type PasswordResets, type ResetLinkState } from '../../members/password-resets.js';
import { decodeFlag } from '../decoders.js';
import { ApiError, errorBody, MESSAGES } from '../errors.js';
import { html } from '../html.js';
import { chromeOf, passwordProblem, seeOther, sendPage } from '../../pages/page-reply.js';
import { messagePage } from '../../pages/views/layout.js';
import { redirectOrAnswer } from '../../pages/flash.js';
import { linkRefusedPage, resetPage } from '../../pages/views/reminder.js';
import { accountOrDefaults, DEFAULT_ACCOUNT } from '../../pages/page-actions.js';
import { memberPage, sendMemberPage } from '../link-pages.js';
import { FORM_BODY_LIMIT_BYTES, fromOwnPages, registerPages } from '../page-security.js';
import { queryParams, readParams } from '../params.js';
import { okReply } from '../replies.js';
import { apiHandler, authenticate, mailNotSent, type RouteContext } from '../route-kit.js';
import { apiResponses, CONSUMES, MAIL_NOT_SENT, okAnswer, parametersSchema, STRING, withAccount } from '../schemas.js';
import { decodeSelector, SELECTOR_PARAMETERS } from './update.js';

type ValidLink = Extract<ResetLinkState, { kind: 'valid' }>;

export const RESET_SCHEMA = {
  summary: 'Make a password reset link for a member',
  description:
    'Exactly one find_member_* selector, finding one member (not Deleted). The link works once, for the account’s reset lifetime (an hour by default); it opens a page where the member chooses a new password. With send_mail=1 and an account that has a mail server, the reset mail is sent to the member too.',
  tags: ['sessions'],
  consumes: CONSUMES,
  body: parametersSchema(
    withAccount({
      ...SELECTOR_PARAMETERS,
      send_mail: { description: '1 mails the link to the member (when the account has a mail server: account set --smtp-url)', enum: ['0', '1'] },
    }),
    { required: ['user', 'api_key'], profileFields: false, description: 'a selector' },
  ),
  response: apiResponses(
    [okAnswer({ reset_url: { ...STRING, description: 'the single-use link to the page that sets a new password' } }, 'the link is made', MAIL_NOT_SENT)],
    'OK, or ERROR (bad parameters, wrong api key, member not found, several members found)',
  ),
};

/**
 * Where the browser goes once the password is set: the member's ok URL, else the account's,
 * when absolute, made header-safe (a URL kept before they were: `Location` takes ASCII only).
 */
function okUrlOf(state: { member: { urlOk: string | null }; account: { settings: { okUrl: string } } }): string | undefined {
  const okUrl = state.member.urlOk || state.account.settings.okUrl;
  // A path is the integrator's site's, which this server does not know: a page then.
  return /^https?:\/\//i.test(okUrl) ? redirectUrl(okUrl) : undefined;
}

export async function registerResetRoutes(
  app: FastifyInstance,
  context: RouteContext & { resets: PasswordResets; publicUrl?: string; flashKey: Buffer },
): Promise<void> {
  const { resets } = context;
  app.post(
    '/api2/reset/',
    { schema: RESET_SCHEMA, bodyLimit: context.limits.bodyLimitBytes },
    apiHandler(context, async (params, request) => {
      const account = await authenticate(context, params, request, 'write');
      const selector = decodeSelector(params);
      if (selector.by === 'all') throw ApiError.invalid('find_member_id', 'must be one member’s id: a reset is for one member');
      const sendMail = decodeFlag(params, 'send_mail') === true;
      const issued = await resets.issue(account, selector, sendMail);
      if (issued.kind === 'not-found') return errorBody(MESSAGES.memberNotFound);
      if (issued.kind === 'several') return errorBody(MESSAGES.severalMembers);
      return okReply({ reset_url: issued.url, ...mailNotSent(request, account, params, 'send_mail') });
    }),
  );

  await registerPages(app, { 'style-src': ["'self'"], 'form-action': ["'self'"] }, (pages) => {
    // Pages for people: not in the OpenAPI document (the link is what /reset/ answers).
    pages.addHook('onRoute', (route) => {
      route.schema = { ...(route.schema ?? {}), hide: true };
    });

    /**
     * The page of a link that cannot be used: the account's (the link's own, else the one its
     * address names), in the member's language, saying why and offering a new link.
     */
    const linkPage = async (request: FastifyRequest, reply: FastifyReply, state: Exclude<ResetLinkState, { kind: 'valid' }>) => {
      const owner = state.kind === 'invalid' ? undefined : state.account;
      const named = queryParams(request).get('account') ?? undefined;
      const account = owner ?? (named === undefined ? undefined : await accountOrDefaults(context, named));
      const chrome = await chromeOf(context, account ?? DEFAULT_ACCOUNT, request);
      const member = state.kind === 'invalid' ? undefined : state.member;
      const page = linkRefusedPage(chrome, state.kind, { who: member ? member.email || member.login : undefined, withForm: account !== undefined });
      return sendPage(reply, state.kind === 'invalid' ? 404 : 410, chrome, page);
    };

    // A valid link's page is the account's: its look and language, the member pages' policy
    // (whose form may lead on to the ok URL).
    const formPage = async (request: FastifyRequest, reply: FastifyReply, status: number, token: string, state: ValidLink, error?: string) => {
      const chrome = await chromeOf(context, state.account, request);
      return sendPage(
        reply,
        status,
        chrome,
        resetPage(chrome, { token, login: state.member.login, action: `${RESET_PAGE_PATH}?account=${encodeURIComponent(state.account.name)}`, error }),
        okUrlOf(state),
      );
    };

    pages.get(RESET_PAGE_PATH, async (request, reply) => {
      const token = queryParams(request).get('token') ?? '';
      const state = await resets.state(token);
      if (state.kind !== 'valid') return linkPage(request, reply, state);
      return formPage(request, reply, 200, token, state);
    });

    pages.post(RESET_PAGE_PATH, { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
      if (!fromOwnPages(request, context.publicUrl)) {
        return sendMemberPage(reply, 403, memberPage('Refused', html`<p>This form did not come from this site’s own page, so nothing was changed.</p>`));
      }
      const params = await readParams(request, context.limits);
      const token = params.get('token') ?? '';
      const password = params.get('password') ?? '';
      const state = await resets.state(token);
      if (state.kind !== 'valid') return linkPage(request, reply, state);
      const chrome = await chromeOf(context, state.account, request);
      const problem = password !== (params.get('confirm') ?? '') ? chrome.t('passwordsDiffer') : passwordProblem(chrome, password);
      if (problem) return formPage(request, reply, 400, token, state, problem);
      const outcome = await resets.complete(token, state, password, { actor: 'member', requestId: request.id });
      if (outcome.kind !== 'changed') return linkPage(request, reply, outcome);
      const okUrl = okUrlOf(outcome);
      if (okUrl) return seeOther(reply, okUrl);
      // The sign-in page, saying so, by a redirect: a reload does not show the used link's page.
      return redirectOrAnswer(request, reply, chrome, context.flashKey, chrome.base, { notice: chrome.t('passwordSetText') }, () =>
        messagePage(chrome, 'passwordSet', 'passwordSetText', { href: chrome.base, label: 'signIn' }),
      );
    });
  });
}
