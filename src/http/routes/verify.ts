/**
 * GET /api2/verify/: the page a `verify_url` opens. A right link marks the member's e-mail
 * verified. Every bad link (a wrong code, an unknown account or member, a deleted member, a
 * login that changed since) answers the same 400 page, and the code is checked before the
 * store is asked anything: the page tells nobody which members exist.
 */
import type { FastifyInstance } from 'fastify';
import type { AccountsService } from '../../accounts/accounts-service.js';
import type { MembersService, VerifyEmailOutcome } from '../../members/members-service.js';
import { registerPages } from '../page-security.js';
import { html } from '../html.js';
import { memberPage, sendMemberPage } from '../link-pages.js';
import { matchPattern } from '../decoders.js';
import { queryParams } from '../params.js';
import { chromeOf, sendPage } from '../../pages/page-reply.js';
import { messagePage } from '../../pages/views/layout.js';

/** Every bad link's one page (a verified one is the account's: the member pages' catalog). */
const INVALID = {
  status: 400,
  title: 'Link not valid',
  text: 'This verification link is not valid: it may have been copied in part, or it is no longer in use.',
};

const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

export const VERIFY_SCHEMA = {
  summary: 'Verify a member’s e-mail address',
  description: 'The verify_url that /create/ answers with, opened in a browser. Answers a small HTML page; every bad link gets the same 400 page.',
  tags: ['members'],
  querystring: {
    type: 'object',
    properties: {
      user: { type: 'string', description: 'the account name' },
      login: { type: 'string', description: 'the member’s login' },
      id: { type: 'string', description: 'the member id', pattern: '^[0-9]{1,15}$' },
      code: { type: 'string', description: 'a keyed MAC over the account, id and login' },
    },
    required: ['user', 'login', 'id', 'code'],
  },
  response: { 200: htmlPage('E-mail address verified'), 400: htmlPage(INVALID.title) },
};

export async function registerVerifyRoute(app: FastifyInstance, context: { accounts: AccountsService; members: MembersService }): Promise<void> {
  await registerPages(app, { 'style-src': ["'self'"] }, (pages) => {
    pages.get('/api2/verify/', { schema: VERIFY_SCHEMA }, async (request, reply) => {
      const query = queryParams(request);
      const [user, login, id, code] = ['user', 'login', 'id', 'code'].map((name) => query.get(name) ?? '');
      let outcome: VerifyEmailOutcome = 'invalid';
      const idPattern = VERIFY_SCHEMA.querystring.properties.id.pattern;
      if (user && login && code && matchPattern(idPattern, id ?? '') && ![user, login, code].some((part) => part.includes('\0'))) {
        outcome = await context.members.verifyEmail(user!, Number(id), login!, code!, (name) => context.accounts.find(name), {
          actor: 'api',
          requestId: request.id,
        });
      }
      // Verified: the account's page, with the way to its sign-in. Every bad link: one plain page.
      const account = outcome === 'verified' ? await context.accounts.find(user!) : undefined;
      if (account) {
        const chrome = await chromeOf(context, account, request);
        return sendPage(reply, 200, chrome, messagePage(chrome, 'verified', 'verifiedText', { href: chrome.base, label: 'signIn' }));
      }
      const { status, title, text } = INVALID;
      return sendMemberPage(reply, status, memberPage(title, html`<p>${text}</p>`));
    });
  });
}
