/**
 * Signing in and out, and an operator's accounts: the sign-in form (an unknown e-mail, a wrong
 * password and a locked operator get one answer), a set-up link's page (its token in the
 * query, then in the form's body: never in a path, which logs keep whole), sign-out here and
 * everywhere (`/admin/`, the accounts, is sections/accounts.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { clientScope } from '../../auth/client-address.js';
import { FORM_BODY_LIMIT_BYTES } from '../../http/page-security.js';
import { SETUP_PATH } from '../../operators/operators-service.js';
import { signedIn } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { doneNotice, formOf, queryOf, send, seeOther } from '../replies.js';
import type { ConsoleCookies } from '../session-cookie.js';
import { messagePage, t } from '../views/layout.js';
import { forgotPage, setupPage, signInPage } from '../views/session.js';
import { isEmail } from '../../members/fields.js';
import { askSecondStep } from './two-step.js';

export async function sessionSection(scope: FastifyInstance, deps: ConsoleDeps & { cookies: ConsoleCookies }): Promise<void> {
  const { operators, cookies } = deps;

  scope.get('/sign-in', async (request, reply) => send(reply, 200, signInPage({ notice: doneNotice(request) })));
  scope.post('/sign-in', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
    const form = formOf(request);
    const outcome = await operators.signIn(form.email ?? '', form.password ?? '', clientScope(request.ip));
    if (outcome.kind === 'signed-in') return seeOther(cookies.set(reply, outcome.token), '/admin/');
    if (outcome.kind === 'second-step') return askSecondStep(reply, outcome.token, cookies);
    return send(reply, 401, signInPage({ notice: { kind: 'error', text: t('signInWrong') } }, form.email ?? ''));
  });

  // "Forgot your password?": one answer, given before anything is looked up (whether the
  // address is an operator's cannot be told from it, nor from its time); a link is mailed when it is.
  scope.get('/forgot', async (_request, reply) => send(reply, 200, forgotPage({})));
  scope.post('/forgot', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
    const email = (formOf(request).email ?? '').trim();
    if (!isEmail(email)) return send(reply, 400, forgotPage({ notice: { kind: 'error', text: t('opInvalidEmail') } }, email));
    void operators.forgotten(email).catch((error: unknown) => request.log.error({ err: error }, 'the console password reminder failed'));
    // The sign-in page says so, by a redirect: a reload asks for no second mail.
    return seeOther(reply, '/admin/sign-in?done=forgot-sent');
  });

  const invalidLink = (reply: FastifyReply) => send(reply, 410, messagePage(t('linkNotValid'), t('linkNotValidText'), {}));
  const setup = SETUP_PATH.slice('/admin'.length);
  scope.get(setup, async (request, reply) => {
    const token = queryOf(request).token ?? '';
    const operator = await operators.linkFor(token);
    if (!operator) return invalidLink(reply);
    return send(reply, 200, setupPage({}, token, operator.email));
  });
  scope.post(setup, { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
    const form = formOf(request);
    const token = form.token ?? '';
    const operator = await operators.linkFor(token);
    if (!operator) return invalidLink(reply);
    if ((form.password ?? '') !== (form.confirm ?? ''))
      return send(reply, 400, setupPage({ notice: { kind: 'error', text: t('passwordsDiffer') } }, token, operator.email));
    const outcome = await operators.setPassword(token, form.password ?? '');
    if (outcome.kind === 'weak') return send(reply, 400, setupPage({ notice: { kind: 'error', text: outcome.message } }, token, operator.email));
    if (outcome.kind === 'invalid-link') return invalidLink(reply);
    // Signed in at once with the password just chosen (a second sign-in would ask it again).
    const signed = await operators.signIn(operator.email, form.password ?? '', clientScope(request.ip));
    if (signed.kind !== 'signed-in')
      return send(reply, 200, messagePage(t('passwordSet'), t('passwordSetText'), {}, { href: '/admin/sign-in', text: t('signIn') }));
    return seeOther(cookies.set(reply, signed.token), '/admin/');
  });

  scope.post('/sign-out', async (request, reply) => {
    await operators.signOut(cookies.token(request));
    return seeOther(cookies.clear(reply), '/admin/sign-in?done=signed-out');
  });
  scope.post('/sign-out-everywhere', { config: { access: 'signed-in' } }, async (request, reply) => {
    await operators.signOutEverywhere(signedIn(request).id);
    return seeOther(cookies.clear(reply), '/admin/sign-in?done=signed-out-everywhere');
  });
}
