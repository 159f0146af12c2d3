/**
 * Protecting a site's pages: `/auth/ACCOUNT/check`, which a reverse proxy asks on every request
 * to a protected page (no page is found for it: one read of the session), the original's
 * protection script (`?action=pp`) and session check (`?mode=API&action=session&id=SID`), and
 * `/regformcheck.js`, the original's script for its registration forms.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import type { MemberPagesContext } from '../context.js';
import { currentSession } from '../page-actions.js';
import { check, protectionScript } from '../protection.js';
import type { Chrome } from '../views/layout.js';

/** The original's registration-form check, read once (beside the pages' modules, in src/ and in dist/). */
const REGFORMCHECK = readFileSync(new URL('../assets/regformcheck.js', import.meta.url), 'utf8');

export async function protectionSection(pages: FastifyInstance, context: MemberPagesContext): Promise<void> {
  // On every request to a protected page: the account as recently read (a second at most).
  // Without a promise when the store answers at once (SQLite), as /session/'s check.
  pages.get('/:account/check', (request, reply) => {
    const found = context.accounts.findRecent((request.params as { account: string }).account);
    return found instanceof Promise
      ? found.then((account) => check(context.sessions, account, request, reply))
      : check(context.sessions, found, request, reply);
  });
}

/** `/regformcheck.js`, outside /auth/: sites include it by that address. */
export async function registrationScriptRoute(scope: FastifyInstance): Promise<void> {
  scope.get('/regformcheck.js', async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('cross-origin-resource-policy', 'cross-origin').send(REGFORMCHECK),
  );
}

/** `?mode=API&action=session&id=SID`: OK or FAIL, as plain text (the WordPress plugin's check). */
export async function sessionAnswer(context: MemberPagesContext, account: Account, query: Record<string, string>, reply: FastifyReply): Promise<FastifyReply> {
  let ok = false;
  if (query.action === 'session' && query.id && query.id.length <= 256) ok = (await context.sessions.check(account, query.id)).kind === 'valid';
  return reply.type('text/plain; charset=utf-8').send(ok ? 'OK' : 'FAIL');
}

/** `?action=pp`: the original's protection script, for the member signed in on this browser (or none). */
export async function protectionScriptAnswer(
  context: MemberPagesContext,
  account: Account,
  chrome: Chrome,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const current = await currentSession(context, account, request);
  const signInUrl = `${context.publicUrl ?? `${request.protocol}://${request.host}`}${chrome.base}`;
  return reply
    .type('application/javascript; charset=utf-8')
    .header('cross-origin-resource-policy', 'same-site')
    .send(protectionScript(signInUrl, current?.session));
}
