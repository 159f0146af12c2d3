/**
 * Whether a form posted to the member pages came from these pages. A browser says so itself:
 * `Sec-Fetch-Site` (same-origin, or none: typed, a bookmark), or, where it sends no Fetch
 * Metadata (plain http on a host name that is not localhost), `Origin`, this site's. When
 * `Origin` is `null` (a privacy setting, an extension, an old page's referrer policy) it tells
 * nothing: the form's own token then, a random value in a cookie of these pages and the same
 * value in every form they draw (a double-submit token: another site can neither read the
 * cookie nor make a browser send it with its own form, the cookie being SameSite=Lax). A post
 * with no `Origin` at all comes from no browser (a browser always sends one with a POST), and
 * is no forgery of one.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { WireParams } from '../http/params.js';
import { cameOverHttps } from '../http/page-security.js';
import { readCookies } from './member-cookie.js';

export const FORM_TOKEN_COOKIE = 'member_form';
/** The hidden field each form of the pages carries it in. */
export const FORM_TOKEN_FIELD = 'form_token';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{22,64}$/;

/** The browser's token (its cookie's), or a new one to set with the page. */
export function formTokenOf(request: FastifyRequest): { token: string; fresh: boolean } {
  const kept = readCookies(request.headers.cookie, FORM_TOKEN_COOKIE).find((value) => TOKEN_SHAPE.test(value));
  return kept ? { token: kept, fresh: false } : { token: randomBytes(18).toString('base64url'), fresh: true };
}

/** The cookie that holds a new token: the browser's session only, every path of the host (the original's addresses too). */
export function formTokenCookie(request: FastifyRequest, token: string, publicUrl: string | undefined): string {
  return [`${FORM_TOKEN_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', ...(cameOverHttps(request, publicUrl) ? ['Secure'] : [])].join('; ');
}

/** Adds a cookie to those the answer sets already. */
export function appendCookie(reply: FastifyReply, cookie: string): void {
  // Fastify adds a `set-cookie` to those set before (it never replaces one).
  reply.header('set-cookie', cookie);
}

/** Whether a form came from these pages (see above). */
export function fromOwnForm(request: FastifyRequest, publicUrl: string | undefined, params: WireParams): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (origin !== 'null') return origin === `${request.protocol}://${request.host}` || (publicUrl !== undefined && origin === new URL(publicUrl).origin);
  const sent = params.get(FORM_TOKEN_FIELD) ?? '';
  return readCookies(request.headers.cookie, FORM_TOKEN_COOKIE).some((kept) => TOKEN_SHAPE.test(kept) && sameText(kept, sent));
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
