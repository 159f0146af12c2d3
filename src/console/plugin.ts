/**
 * The operator's console at /admin/: server-rendered pages, no script at all, so it works with
 * JavaScript off and its Content-Security-Policy allows no script and no inline style. It is
 * one Fastify scope with what every page shares (the page headers, the session cookie, the
 * refusal of changes from other sites, the access hook, the error and not-found pages), and a
 * plugin per section, each under its prefix (sections/). Every change is a POST whose
 * `Sec-Fetch-Site` (or, from older browsers, `Origin`) must be this site's own, and goes
 * through the same services as the API (same rules, same errors, the same events, with actor
 * `operator` and the operator's e-mail). Nothing it answers is cached.
 */
import { plansSection } from './sections/plans.js';
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { HashingBusy } from '../auth/hashing-gate.js';
import { fromOwnPages, registerPages } from '../http/page-security.js';
import { registerAccess } from './access.js';
import { actionAddresses } from './action-addresses.js';
import type { ConsoleContext } from './deps.js';
import { membersPath } from './paths.js';
import { send, seeOther } from './replies.js';
import { bulkSection } from './sections/bulk.js';
import { keysSection } from './sections/keys.js';
import { mailSection } from './sections/mail.js';
import { memberPagesSection } from './sections/page-settings.js';
import { memberSection } from './sections/member.js';
import { membersSection } from './sections/members.js';
import { operatorsSection } from './sections/operators.js';
import { overviewSection } from './sections/overview.js';
import { registrationsSection } from './sections/registrations.js';
import { accountsSection } from './sections/accounts.js';
import { sessionSection } from './sections/session.js';
import { settingsSection } from './sections/settings.js';
import { exportSection } from './sections/export.js';
import { importSection } from './sections/import.js';
import { twoStepSection } from './sections/two-step.js';
import { webhooksSection } from './sections/webhooks.js';
import { consoleCookies } from './session-cookie.js';
import { CONSOLE_STYLESHEET } from './views/layout.js';
import { serveStylesheet } from '../http/stylesheets.js';
import { messagePage, t } from './views/layout.js';
import { TWO_STEP_PATH } from './views/two-step.js';

export type { ConsoleContext } from './deps.js';

/** Where the console lives: every route below is under it, and so is its own 404 page. */
const PREFIX = '/admin';

/** The sections of an account's pages, each a plugin under its own prefix. */
const ACCOUNT_SECTIONS = [
  ['members', membersSection],
  ['members', memberSection],
  ['members', bulkSection],
  ['members', exportSection],
  ['members', importSection],
  ['overview', overviewSection],
  ['registrations', registrationsSection],
  ['member-pages', memberPagesSection],
  ['settings', settingsSection],
  ['mail', mailSection],
  ['keys', keysSection],
  ['operators', operatorsSection],
  ['webhooks', webhooksSection],
  ['plans', plansSection],
] as const;

export async function registerConsole(app: FastifyInstance, context: ConsoleContext): Promise<void> {
  const cookies = consoleCookies(context.publicUrl);
  const deps = { ...context, cookies };
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

      // Member data is never cached, by the browser or on the way (the stylesheet, named by its
      // content's hash, is: it says so itself).
      scope.addHook('onSend', async (_request, reply, payload) => {
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
        return payload;
      });

      // A change comes from this site's own pages: a form posted from elsewhere, or a fetch
      // forged by another site, is refused (the cookie's SameSite=Strict is the second line).
      scope.addHook('onRequest', async (request, reply) => {
        if (request.method === 'GET' || request.method === 'HEAD') return;
        if (!fromOwnPages(request, context.publicUrl)) return send(reply, 403, messagePage(t('refusedTitle'), t('refusedForeign'), {}));
      });

      scope.setErrorHandler((error, _request, reply) => {
        if (error instanceof HashingBusy) return send(reply.header('retry-after', '1'), 503, messagePage(t('busy'), t('busyText'), {}));
        const status = (error as { statusCode?: number }).statusCode;
        if (typeof status === 'number' && status >= 400 && status < 500) return send(reply, status, messagePage(t('badRequest'), t('badRequestText'), {}));
        reply.log.error({ err: error }, 'console page failed');
        return send(reply, 500, messagePage(t('failedTitle'), t('failedText'), {}));
      });

      registerAccess(scope, {
        operators: context.operators,
        accounts: context.accounts,
        sessionToken: cookies.token,
        clearCookie: cookies.clear,
        twoStepPath: TWO_STEP_PATH,
      });

      serveStylesheet(scope, CONSOLE_STYLESHEET);
      await scope.register(async (section) => sessionSection(section, deps));
      await scope.register(async (section) => accountsSection(section, deps));
      await scope.register(async (section) => twoStepSection(section, deps));
      for (const [path, section] of ACCOUNT_SECTIONS) await scope.register(async (child) => section(child, deps), { prefix: `/accounts/:account/${path}` });

      // The addresses above an account's pages: the accounts, and the account's members.
      scope.get('/accounts', async (_request, reply) => seeOther(reply, '/admin/'));
      scope.get('/accounts/:account', async (request, reply) => seeOther(reply, membersPath((request.params as { account: string }).account)));
      openActionAddresses();

      // Any other address under /admin/: a console page, not the API's JSON.
      scope.setNotFoundHandler(async (request, reply) => {
        const operator = await context.operators.session(cookies.token(request));
        return send(reply, 404, messagePage(t('notFound'), t('noSuchPage'), { operator }, { href: '/admin/', text: t('yourAccounts') }));
      });
    },
    PREFIX,
  );
}
