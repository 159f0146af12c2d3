/**
 * The console's cookies: the operator's session (`console_session`, every console page) and a
 * sign-in waiting for its second step (`console_pending`, the second step's page only). Both
 * HttpOnly, SameSite=Strict, and Secure whenever the request came over https (itself, or a
 * proxy it trusts: TRUST_PROXY) or PUBLIC_URL says the console is reached over https.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'console_session';
export const PENDING_COOKIE = 'console_pending';
export const SECOND_STEP_PATH = '/admin/sign-in/code';

export interface ConsoleCookies {
  /** The session token the request carries ("" for none). */
  token(request: FastifyRequest): string;
  /** The pending sign-in's token the request carries ("" for none). */
  pendingToken(request: FastifyRequest): string;
  set(reply: FastifyReply, token: string): FastifyReply;
  clear(reply: FastifyReply): FastifyReply;
  setPending(reply: FastifyReply, token: string): FastifyReply;
  clearPending(reply: FastifyReply): FastifyReply;
}

export function consoleCookies(publicUrl: string | undefined): ConsoleCookies {
  const secure = publicUrl?.startsWith('https://') ? true : ('auto' as const);
  const session = { path: '/admin', httpOnly: true, sameSite: 'strict' as const, secure };
  const pending = { ...session, path: SECOND_STEP_PATH };
  return {
    token: (request) => request.cookies[SESSION_COOKIE] ?? '',
    pendingToken: (request) => request.cookies[PENDING_COOKIE] ?? '',
    set: (reply, token) => reply.setCookie(SESSION_COOKIE, token, session),
    clear: (reply) => reply.clearCookie(SESSION_COOKIE, session),
    setPending: (reply, token) => reply.setCookie(PENDING_COOKIE, token, pending),
    clearPending: (reply) => reply.clearCookie(PENDING_COOKIE, pending),
  };
}
