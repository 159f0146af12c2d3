/**
 * Security headers for the pages a browser opens (the reference at /docs, the verify page):
 * @fastify/helmet's set, a Content-Security-Policy that allows only what each page needs,
 * `frame-ancestors 'none'` and `X-Frame-Options: DENY` (no page can be framed to trick a
 * click), `nosniff`. The JSON API answers do not pay for them; they get `nosniff` only.
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export type CspDirectives = Record<string, string[]>;

/**
 * The body a page's own small form is read up to (a password twice, a token, an e-mail):
 * whatever the server's body limit, a form that takes no key is not an 8 MiB read.
 */
export const FORM_BODY_LIMIT_BYTES = 16 * 1024;

/** What every page's policy says, whatever else it allows. */
const BASE_DIRECTIVES: CspDirectives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'object-src': ["'none'"],
};

/**
 * Registers `routes` in a scope of their own whose answers carry the page headers with this
 * policy (on top of the base one), under `prefix` when given (the scope may then answer its
 * own 404s). Routes outside the scope are not touched.
 */
export async function registerPages(
  app: FastifyInstance,
  directives: CspDirectives,
  routes: (scope: FastifyInstance) => Promise<void> | void,
  prefix?: string,
): Promise<void> {
  await app.register(
    async (scope) => {
      await scope.register(helmet, {
        contentSecurityPolicy: { useDefaults: false, directives: { ...BASE_DIRECTIVES, ...directives } },
        frameguard: { action: 'deny' },
        // Plain http on a private network is a supported set-up: do not pin browsers to https.
        strictTransportSecurity: false,
        // The origin on the pages' own requests (a form's Origin is then this site's, not `null`,
        // which is all a browser without Fetch Metadata gives: plain http on a host name), and
        // nothing to any other site.
        referrerPolicy: { policy: 'same-origin' },
      });
      await routes(scope);
    },
    prefix === undefined ? {} : { prefix },
  );
}

/**
 * Whether a POST comes from this site's own pages: `Sec-Fetch-Site` same-origin (or none: typed
 * or bookmarked), or, from browsers that do not send it, no `Origin` or this site's own (as
 * the request names it, or PUBLIC_URL). A form posted from another site, or a fetch forged by
 * one, is not.
 */
export function fromOwnPages(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  return origin === undefined || origin === `${request.protocol}://${request.host}` || (publicUrl !== undefined && origin === new URL(publicUrl).origin);
}

/** Whether the browser reached this server over https (itself, or a proxy it trusts: TRUST_PROXY), or PUBLIC_URL says so. */
export function cameOverHttps(request: FastifyRequest, publicUrl: string | undefined): boolean {
  return request.protocol === 'https' || (publicUrl?.startsWith('https:') ?? false);
}
