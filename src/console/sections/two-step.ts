/**
 * The console's second step: an operator turns it on (a secret for its authenticator app,
 * confirmed by a first code, then ten recovery codes shown once) or off (with a code), and a
 * sign-in whose password was right asks for a code before the session opens any page. An
 * account that requires it sends its operators without one here first.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FORM_BODY_LIMIT_BYTES } from '../../http/page-security.js';
import { queryParams } from '../../http/params.js';
import { signedIn } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { SECOND_STEP_PATH, type ConsoleCookies } from '../session-cookie.js';
import { t, type Chrome } from '../views/layout.js';
import { enrolPage, recoveryCodesPage, requiredNotice, secondStepPage, TWO_STEP_PATH, twoStepOnPage } from '../views/two-step.js';

/** After a right password, for an operator with a second step: the pending session's cookie, and its page. */
export function askSecondStep(reply: FastifyReply, token: string, cookies: ConsoleCookies): FastifyReply {
  return seeOther(cookies.setPending(reply, token), SECOND_STEP_PATH);
}

export async function twoStepSection(scope: FastifyInstance, deps: ConsoleDeps & { cookies: ConsoleCookies }): Promise<void> {
  const { operators, cookies } = deps;
  const restart = (reply: FastifyReply) => seeOther(cookies.clearPending(reply), '/admin/sign-in');

  scope.get('/sign-in/code', async (request, reply) => {
    if (!(await operators.pendingOperator(cookies.pendingToken(request)))) return restart(reply);
    return send(reply, 200, secondStepPage({}));
  });

  scope.post('/sign-in/code', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
    const token = cookies.pendingToken(request);
    const outcome = await operators.secondStep(token, formOf(request).code ?? '');
    if (outcome.kind === 'signed-in') {
      cookies.clearPending(reply);
      cookies.set(reply, outcome.token);
      return seeOther(reply, '/admin/');
    }
    // Too many wrong codes end the pending session (and lock the operator for a while).
    if (!(await operators.pendingOperator(token))) return restart(reply);
    return send(reply, 401, secondStepPage({ notice: { kind: 'error', text: t('codeNotRight') } }));
  });

  scope.get('/two-step', { config: { access: 'signed-in' } }, async (request, reply) => {
    const operator = signedIn(request);
    const required = queryParams(request).get('required');
    const notice = doneNotice(request) ?? (required ? requiredNotice(required) : undefined);
    const chrome: Chrome = { operator, notice };
    if (operator.twoStep) return send(reply, 200, twoStepOnPage(chrome, await operators.recoveryCodesLeft(operator)));
    return send(reply, 200, enrolPage(chrome, await operators.startTwoStep(operator)));
  });

  scope.post('/two-step/enable', { config: { access: 'signed-in' } }, async (request, reply) => {
    const operator = signedIn(request);
    const enabled = operator.twoStep ? undefined : await operators.enableTwoStep(operator, formOf(request).code ?? '', cookies.token(request));
    if (!enabled) {
      const enrolment = (await operators.pendingTwoStep(operator)) ?? (await operators.startTwoStep(operator));
      const notice = { kind: 'error' as const, text: t('codeNotRightEnrol') };
      return send(reply, 400, enrolPage({ operator, notice }, enrolment));
    }
    // The codes are on this page only: it is not a redirect's target, so a reload cannot show them again.
    return send(reply, 200, recoveryCodesPage({ operator: { ...operator, twoStep: true } }, enabled.codes));
  });

  scope.post('/two-step/disable', { config: { access: 'signed-in' } }, async (request, reply) => {
    const operator = signedIn(request);
    const outcome = await operators.disableTwoStep(operator, formOf(request).code ?? '', cookies.token(request));
    if (outcome === 'off') return seeOther(reply, `${TWO_STEP_PATH}?done=two-step-off`);
    const text = outcome === 'wrong-code' ? t('codeNotRightNothingChanged') : t('twoStepRequiredStaysOn', { account: outcome.required });
    return send(reply, 400, twoStepOnPage({ operator, notice: { kind: 'error', text } }, await operators.recoveryCodesLeft(operator)));
  });
}
