/**
 * The console's second step: an operator turns it on (a secret for its authenticator app,
 * confirmed by a first code, then ten recovery codes shown once) or off (with a code), and a
 * sign-in whose password was right asks for a code before the session opens any page. An
 * account that requires it sends its operators without one here first.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Operator } from '../operators/operator.js';
import type { OperatorsService } from '../operators/operators-service.js';
import { groupedSecret } from '../operators/two-step.js';
import { html } from '../http/html.js';
import { FORM_BODY_LIMIT_BYTES } from '../http/page-security.js';
import { queryParams } from '../http/params.js';
import { layout, type Chrome } from './pages.js';

/** The cookie of a sign-in waiting for its second step: sent to the second step's page only. */
export const PENDING_COOKIE = 'console_pending';
export const SECOND_STEP_PATH = '/admin/sign-in/code';
export const TWO_STEP_PATH = '/admin/two-step';

export interface TwoStepKit {
  readonly operators: OperatorsService;
  /** The cookies' Secure: true, or 'auto' (whenever the request came over https). */
  readonly secure: boolean | 'auto';
  operatorOf(request: FastifyRequest, reply: FastifyReply): Promise<Operator | undefined>;
  /** The request's (full) session token. */
  sessionToken(request: FastifyRequest): string;
  /** Opens the full session: its cookie set. */
  setCookie(reply: FastifyReply, token: string): FastifyReply;
  send(reply: FastifyReply, status: number, page: string): FastifyReply;
  seeOther(reply: FastifyReply, location: string): FastifyReply;
  formOf(request: FastifyRequest): Record<string, string>;
  doneNotice(request: FastifyRequest): Chrome['notice'];
}

const pendingOptions = (secure: boolean | 'auto') => ({ path: SECOND_STEP_PATH, httpOnly: true, sameSite: 'strict' as const, secure });

/** After a right password, for an operator with a second step: the pending session's cookie, and its page. */
export function askSecondStep(reply: FastifyReply, token: string, secure: boolean | 'auto'): FastifyReply {
  return reply.setCookie(PENDING_COOKIE, token, pendingOptions(secure)).code(303).header('location', SECOND_STEP_PATH).send();
}

export function registerTwoStep(scope: FastifyInstance, kit: TwoStepKit): void {
  const { operators } = kit;
  const restart = (reply: FastifyReply) => {
    reply.clearCookie(PENDING_COOKIE, pendingOptions(kit.secure));
    return kit.seeOther(reply, '/admin/sign-in');
  };

  scope.get('/sign-in/code', async (request, reply) => {
    if (!(await operators.pendingOperator(request.cookies[PENDING_COOKIE] ?? ''))) return restart(reply);
    return kit.send(reply, 200, secondStepPage({}));
  });

  scope.post('/sign-in/code', { bodyLimit: FORM_BODY_LIMIT_BYTES }, async (request, reply) => {
    const token = request.cookies[PENDING_COOKIE] ?? '';
    const outcome = await operators.secondStep(token, kit.formOf(request).code ?? '');
    if (outcome.kind === 'signed-in') {
      reply.clearCookie(PENDING_COOKIE, pendingOptions(kit.secure));
      kit.setCookie(reply, outcome.token);
      return kit.seeOther(reply, '/admin/');
    }
    // Too many wrong codes end the pending session (and lock the operator for a while).
    if (!(await operators.pendingOperator(token))) return restart(reply);
    return kit.send(reply, 401, secondStepPage({ notice: { kind: 'error', text: 'This code is not right, or was used already.' } }));
  });

  scope.get('/two-step', async (request, reply) => {
    const operator = await kit.operatorOf(request, reply);
    if (!operator) return reply;
    const required = queryParams(request).get('required');
    const notice = kit.doneNotice(request) ?? (required ? requiredNotice(required) : undefined);
    const chrome: Chrome = { operator, notice };
    if (operator.twoStep) return kit.send(reply, 200, twoStepOnPage(chrome, await operators.recoveryCodesLeft(operator)));
    return kit.send(reply, 200, enrolPage(chrome, await operators.startTwoStep(operator)));
  });

  scope.post('/two-step/enable', async (request, reply) => {
    const operator = await kit.operatorOf(request, reply);
    if (!operator) return reply;
    const enabled = operator.twoStep ? undefined : await operators.enableTwoStep(operator, kit.formOf(request).code ?? '', kit.sessionToken(request));
    if (!enabled) {
      const enrolment = (await operators.pendingTwoStep(operator)) ?? (await operators.startTwoStep(operator));
      const notice = { kind: 'error' as const, text: 'This code is not right: check the app’s entry for member-api and type the code it shows now.' };
      return kit.send(reply, 400, enrolPage({ operator, notice }, enrolment));
    }
    // The codes are on this page only: it is not a redirect's target, so a reload cannot show them again.
    return kit.send(reply, 200, recoveryCodesPage({ operator: { ...operator, twoStep: true } }, enabled.codes));
  });

  scope.post('/two-step/disable', async (request, reply) => {
    const operator = await kit.operatorOf(request, reply);
    if (!operator) return reply;
    const outcome = await operators.disableTwoStep(operator, kit.formOf(request).code ?? '', kit.sessionToken(request));
    if (outcome === 'off') return kit.seeOther(reply, `${TWO_STEP_PATH}?done=two-step-off`);
    const text =
      outcome === 'wrong-code'
        ? 'This code is not right, or was used already: nothing changed.'
        : `The account ${outcome.required} requires a second step of its operators: it stays on.`;
    return kit.send(reply, 400, twoStepOnPage({ operator, notice: { kind: 'error', text } }, await operators.recoveryCodesLeft(operator)));
  });
}

function requiredNotice(account: string): Chrome['notice'] {
  return { kind: 'error', text: `The account ${account} requires a second step of its operators: set it up to open its pages.` };
}

function secondStepPage(chrome: Chrome): string {
  return layout(
    'Second step',
    chrome,
    html`<div class="narrow card"><h1>Second step</h1>
<p class="muted">Type the code your authenticator app shows for member-api, or one of your recovery codes.</p>
<form method="post" action="${SECOND_STEP_PATH}">
<label>Code <input name="code" required autocomplete="one-time-code" inputmode="numeric" autofocus maxlength="64"></label>
<button type="submit">Sign in</button></form>
<p><a href="/admin/sign-in">Start again</a></p></div>`,
  );
}

function enrolPage(chrome: Chrome, enrolment: { secret: string; uri: string }): string {
  return layout(
    'Two-step sign-in',
    chrome,
    html`<div class="narrow card"><h1>Two-step sign-in</h1>
<p>After your password, the console will ask for a code from an authenticator app on your phone (any app that reads TOTP: Google Authenticator, Microsoft Authenticator, 1Password, Aegis…).</p>
<ol><li>In the app, add an entry with this key: <code class="secret">${groupedSecret(enrolment.secret)}</code> (time-based, six digits), or on the phone open <a href="${enrolment.uri}">this link</a>.</li>
<li>Type the code the app shows now.</li></ol>
<form method="post" action="${TWO_STEP_PATH}/enable">
<label>Code <input name="code" required autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]{6,7}" maxlength="7"></label>
<button type="submit">Turn on</button></form></div>`,
  );
}

function recoveryCodesPage(chrome: Chrome, codes: readonly string[]): string {
  return layout(
    'Recovery codes',
    { ...chrome, notice: { kind: 'ok', text: 'Two-step sign-in is on.' } },
    html`<div class="narrow card"><h1>Your recovery codes</h1>
<p>Each of these signs you in once instead of a code, if you lose your phone. Keep them somewhere safe: <strong>they are shown only now</strong>.</p>
<ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a class="button" href="/admin/">Done</a></p></div>`,
  );
}

function twoStepOnPage(chrome: Chrome, codesLeft: number): string {
  return layout(
    'Two-step sign-in',
    chrome,
    html`<div class="narrow card"><h1>Two-step sign-in</h1>
<p>On: after your password, the console asks for a code from your authenticator app. ${codesLeft} of your recovery codes ${codesLeft === 1 ? 'is' : 'are'} left; <code>member-api operator reset</code> turns it off with the password when the phone and the codes are lost.</p>
<form method="post" action="${TWO_STEP_PATH}/disable">
<label>A code, to turn it off <input name="code" required autocomplete="one-time-code" maxlength="64"></label>
<button type="submit" class="secondary">Turn off</button></form></div>`,
  );
}
