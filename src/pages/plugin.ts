/**
 * The member pages under /auth/ACCOUNT/ (the hosted original's address): sign-in and the
 * original's page interface, registration, the password reminder, the member's profile, its
 * data and its deletion, and the protection of a site's pages (`/auth/ACCOUNT/check`, the
 * original's script and session check); with the original's older sign-in address and its
 * registration-form script outside /auth/. A plugin per section (sections/), registered in one
 * scope that finds what a route needs once (access.ts: the account, the page's words and look,
 * the form's parameters and origin, the signed-in member), answers failures as pages, and
 * caches nothing.
 *
 * Every change goes through the services the API uses (a sign-in is /login/'s, a registration
 * /create/'s, a profile change /update/'s), with actor `member`. Forms are taken from these
 * pages only (`Sec-Fetch-Site`, `Origin`, or their token), but for the sign-in form, which the
 * account's allowed origins may also post (sites paste the original's form).
 */
import type { FastifyInstance } from 'fastify';
import { HashingBusy } from '../auth/hashing-gate.js';
import { ApiError } from '../http/errors.js';
import { registerPageAccess } from './access.js';
import type { MemberPagesContext } from './context.js';
import { accountOrDefaults, DEFAULT_ACCOUNT } from './page-actions.js';
import { chromeOf, seeOther, sendPage } from './page-reply.js';
import { profileSection } from './sections/profile.js';
import { protectionSection, registrationScriptRoute } from './sections/protection.js';
import { registrationSection } from './sections/registration.js';
import { reminderSection } from './sections/reminder.js';
import { joinSection } from './sections/join.js';
import { originalSignInRoute, signInSection } from './sections/sign-in.js';
import { messagePage } from './views/layout.js';
import { PAGES_STYLESHEET } from './stylesheet.js';
import { serveStylesheet } from '../http/stylesheets.js';

export type { MemberPagesContext } from './context.js';

const SECTIONS = [signInSection, registrationSection, reminderSection, profileSection, protectionSection, joinSection];

export async function registerMemberPages(app: FastifyInstance, context: MemberPagesContext): Promise<void> {
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

  // Outside /auth/: the pages' stylesheet, and the original's older sign-in address and its registration-form script.
  await app.register(async (scope) => {
    asPages(scope);
    serveStylesheet(scope, PAGES_STYLESHEET);
    await registrationScriptRoute(scope);
    await originalSignInRoute(scope, context);
  });

  await app.register(
    async (pages) => {
      asPages(pages);
      registerPageAccess(pages, context);
      for (const section of SECTIONS) await pages.register(async (scope) => section(scope, context));

      // A form's address opened by GET (typed, bookmarked, reloaded after a redirect): its page.
      for (const [path, query] of [
        ['register', '?action=reg'],
        ['join', '?action=join'],
        ['lost', '?action=lost'],
        ['password', ''],
        ['delete', ''],
        ['logout', ''],
      ] as const) {
        pages.get(`/:account/${path}`, async (request, reply) =>
          seeOther(reply, `/auth/${encodeURIComponent((request.params as { account: string }).account)}/${query}`),
        );
      }

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

  /** The account a path names (one no account has, as it is answered everywhere), or undefined for a name that is not one (or not even a URL's). */
  async function findQuietly(encoded: string) {
    try {
      return await accountOrDefaults(context, decodeURIComponent(encoded));
    } catch {
      return undefined;
    }
  }
}
