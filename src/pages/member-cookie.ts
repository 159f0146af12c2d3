/**
 * The member pages' session cookie and the addresses a browser may be sent back to.
 *
 * The cookie holds the id of a session /api2/login/ would hand out (the same sessions: a
 * /session/ check, /logout/, a password change or a suspension end it alike). It is
 * `member_ACCOUNT`, HttpOnly, SameSite=Lax (sent when a member follows a link from the site,
 * not on another site's forms or fetches), Path=/ (a reverse proxy's check of any path on the
 * site's host reads it), for the pages' host or the account's `--cookie-domain`, Secure
 * behind https; a new one at every sign-in.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import { originOf, redirectUrl } from '../common/validate.js';
import { cameOverHttps } from '../http/page-security.js';

/** Longer than any id a sign-in hands out: not worth a look-up. */
const MAX_SESSION_LENGTH = 256;
/** A return address longer than this is refused (a URL a site builds is far shorter). */
const MAX_RETURN_LENGTH = 2048;

export function cookieName(account: Pick<Account, 'name'>): string {
  return `member_${account.name}`;
}

/**
 * Every value of the cookie in a Cookie header, in the order sent, without parsing the others
 * (this runs on every protected request). A browser may hold two: the pages' host's and, once
 * the account sets `--cookie-domain`, the domain's (or one a sibling subdomain planted).
 */
export function readCookies(header: string | undefined, name: string, maxLength = MAX_SESSION_LENGTH): string[] {
  const values: string[] = [];
  if (!header) return values;
  let at = 0;
  while (at < header.length && values.length < 4) {
    while (header.charCodeAt(at) === 32) at++;
    const end = header.indexOf(';', at);
    const stop = end < 0 ? header.length : end;
    if (header.startsWith(name, at) && header.charCodeAt(at + name.length) === 61 /* = */) {
      const value = header.slice(at + name.length + 1, stop).trim();
      if (value.length > 0 && value.length <= maxLength) values.push(value);
    }
    at = stop + 1;
  }
  return values;
}

/**
 * The cookie's attributes: the account's `--cookie-domain` when the pages' host is in it (a
 * browser refuses a Domain its host is not in), `Secure` behind https.
 */
function attributes(request: FastifyRequest, account: Account, publicUrl: string | undefined): string[] {
  const parts = ['Path=/', 'HttpOnly', 'SameSite=Lax'];
  const domain = account.settings.cookieDomain;
  const host = request.hostname.toLowerCase();
  if (domain !== '' && (host === domain || host.endsWith(`.${domain}`))) parts.push(`Domain=${domain}`);
  if (cameOverHttps(request, publicUrl)) parts.push('Secure');
  return parts;
}

/** Sets the member's session cookie: for the browser's session, or (`remember`) the account's session lifetime. */
export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, account: Account, session: string, remember: boolean, publicUrl?: string): void {
  const lifetime = remember ? [`Max-Age=${account.settings.sessionLifetimeSeconds}`] : [];
  const cookie = [`${cookieName(account)}=${session}`, ...attributes(request, account, publicUrl), ...lifetime].join('; ');
  // With a domain, a host-only cookie from before is cleared: it would be sent first.
  const hostOnly = cookie.includes('; Domain=') ? [[`${cookieName(account)}=`, 'Path=/', 'Max-Age=0'].join('; ')] : [];
  reply.header('set-cookie', [cookie, ...hostOnly]);
}

/** Clears the cookie, both the host's and the domain's (a browser may hold the two). */
export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, account: Account, publicUrl?: string): void {
  const withDomain = [`${cookieName(account)}=`, ...attributes(request, account, publicUrl), 'Max-Age=0'].join('; ');
  const hostOnly = withDomain.replace(/; Domain=[^;]*/, '');
  reply.header('set-cookie', withDomain === hostOnly ? withDomain : [withDomain, hostOnly]);
}

/** This server's own origin, as the request names it (or PUBLIC_URL). */
export function ownOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ? new URL(publicUrl).origin : `${request.protocol}://${request.host}`;
}

/**
 * The address a browser may be sent back to, made header-safe; undefined when it is not an
 * absolute http(s) URL on one of the account's allowed origins (or this server's own). Never
 * an open redirect: `//evil.example`, `https://evil.example`, `javascript:`, a look-alike
 * host (`https://www.example.com.evil.example`) are all refused.
 */
export function allowedReturn(account: Account, value: string | undefined, request: FastifyRequest, publicUrl: string | undefined): string | undefined {
  if (!value || value.length > MAX_RETURN_LENGTH) return undefined;
  const safe = redirectUrl(value);
  const origin = safe && originOf(safe);
  if (!origin) return undefined;
  return account.settings.returnOrigins.includes(origin) || origin === ownOrigin(request, publicUrl) ? safe : undefined;
}

/** Whether a POST came from a page on one of the account's allowed origins (a sign-in form pasted on the site). */
export function fromAllowedOrigin(account: Account, request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return typeof origin === 'string' && account.settings.returnOrigins.includes(origin);
}
