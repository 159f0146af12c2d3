/**
 * A form's outcome carried across its redirect. The member pages' forms post, then redirect
 * (303) to the page that shows the outcome: a reload asks no "confirm form resubmission", and
 * Back posts nothing again. What the next page shows (the notice, or each field's error and
 * what was typed, never a password) rides in a cookie of the account's pages that lives a
 * minute and is read once. It is signed with the server's key (kept in the store: every
 * server of one store reads another's) over the browser's form token, so neither another
 * site nor another browser can put words on a member's page.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cameOverHttps } from '../http/page-security.js';
import { appendCookie } from './form-token.js';
import { giveFormToken, sendPage } from './page-reply.js';
import { readCookies } from './member-cookie.js';
import type { Chrome } from './views/layout.js';

export interface Flash {
  /** The form the outcome is of (its element's id): the page lands scrolled to it when it failed. */
  readonly form?: string;
  readonly notice?: string;
  /** Each refused field's message, by field name (`form`: the form's own). */
  readonly errors?: Readonly<Record<string, string>>;
  /** What was typed in the refused form, shown again (never a password). */
  readonly values?: Readonly<Record<string, string>>;
}

const COOKIE = 'member_flash';
/** A cookie stays well under browsers' 4 KiB: beyond this, what was typed is left out. */
const MAX_BYTES = 3000;

function signature(key: Buffer, formToken: string, payload: string): string {
  return createHmac('sha256', key).update(`flash\u0000${formToken}\u0000${payload}`).digest('base64url');
}

function cookie(request: FastifyRequest, chrome: Chrome, value: string, maxAge: number): string {
  const secure = cameOverHttps(request, chrome.publicUrl) ? ['Secure'] : [];
  return [`${COOKIE}=${value}`, `Path=${chrome.base}`, `Max-Age=${maxAge}`, 'HttpOnly', 'SameSite=Lax', ...secure].join('; ');
}

/**
 * Whether the form was posted in a frame (a site showing the sign-in in an `<iframe>`): there
 * the browser keeps the pages' SameSite cookies from the redirect's page, so the form's page
 * answers at once instead.
 */
export function inFrame(request: FastifyRequest): boolean {
  return request.headers['sec-fetch-dest'] === 'iframe' || request.headers['sec-fetch-dest'] === 'frame';
}

/** Answers the form with a redirect to `location`, the outcome kept for the page it leads to. */
export function redirectWithFlash(reply: FastifyReply, chrome: Chrome, key: Buffer, location: string, flash: Flash): FastifyReply {
  let payload = Buffer.from(JSON.stringify(flash)).toString('base64url');
  if (payload.length > MAX_BYTES) payload = Buffer.from(JSON.stringify({ ...flash, values: undefined })).toString('base64url');
  // A browser that had no form token yet (a form pasted on a site, posted first) gets it now.
  giveFormToken(reply, chrome);
  appendCookie(reply, cookie(reply.request, chrome, `${payload}.${signature(key, chrome.formToken, payload)}`, 60));
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

/**
 * A form done: the redirect to `location` with its outcome; in a frame (whose next page would
 * not get the pages' cookies), `page` at once instead.
 */
export function redirectOrAnswer(request: FastifyRequest, reply: FastifyReply, chrome: Chrome, key: Buffer, location: string, flash: Flash, page: () => string): FastifyReply {
  if (inFrame(request)) return sendPage(reply, 200, chrome, page());
  return redirectWithFlash(reply, chrome, key, location, flash);
}

/** The outcome a redirect left for this page (then forgotten), if it is this browser's. */
export function takeFlash(request: FastifyRequest, reply: FastifyReply, chrome: Chrome, key: Buffer): Flash | undefined {
  const kept = readCookies(request.headers.cookie, COOKIE, MAX_BYTES + 100);
  if (kept.length === 0) return undefined;
  appendCookie(reply, cookie(request, chrome, '', 0));
  for (const value of kept) {
    const [payload = '', signed = ''] = value.split('.');
    const expected = Buffer.from(signature(key, chrome.formToken, payload));
    const presented = Buffer.from(signed);
    if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) continue;
    try {
      return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Flash;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
