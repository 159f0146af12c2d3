/** The second step: its page at sign-in, turning it on (the key, then the recovery codes shown once), and off. */
import { html } from '../../http/html.js';
import { groupedSecret } from '../../operators/two-step.js';
import { SECOND_STEP_PATH } from '../session-cookie.js';
import { layout, t, type Chrome } from './layout.js';
import { qrSvg } from './qr-code.js';

export const TWO_STEP_PATH = '/admin/two-step';

export function requiredNotice(account: string): Chrome['notice'] {
  return { kind: 'error', text: t('twoStepRequired', { account }) };
}

export function secondStepPage(chrome: Chrome): string {
  return layout(
    t('secondStep'),
    chrome,
    html`<div class="narrow card"><h1>${t('secondStep')}</h1>
<p class="muted">${t('secondStepHelp')}</p>
<form method="post" action="${SECOND_STEP_PATH}">
<label>${t('code')} <input name="code" required autocomplete="one-time-code" autocapitalize="none" spellcheck="false" autofocus maxlength="64"></label>
<button type="submit">${t('signIn')}</button></form>
<p><a href="/admin/sign-in">${t('startAgain')}</a></p></div>`,
  );
}

export function enrolPage(chrome: Chrome, enrolment: { secret: string; uri: string }): string {
  return layout(
    t('twoStepSignIn'),
    chrome,
    html`<div class="narrow card"><h1>${t('twoStepSignIn')}</h1>
<p>${t('twoStepIntro')}</p>
${qrSvg(enrolment.uri, t('twoStepQrLabel'))}
<ol><li>${t('twoStepScan')} <code class="secret">${groupedSecret(enrolment.secret)}</code> ${t('twoStepOrOpen')} <a href="${enrolment.uri}">${t('twoStepThisLink')}</a>.</li>
<li>${t('twoStepTypeCode')}</li></ol>
<form method="post" action="${TWO_STEP_PATH}/enable">
<label>${t('code')} <input name="code" required autocomplete="one-time-code" inputmode="numeric" pattern="[0-9 ]{6,7}" maxlength="7"></label>
<button type="submit">${t('turnOn')}</button></form></div>`,
  );
}

export function recoveryCodesPage(chrome: Chrome, codes: readonly string[]): string {
  return layout(
    t('recoveryCodes'),
    { ...chrome, notice: { kind: 'ok', text: t('twoStepIsOn') } },
    html`<div class="narrow card"><h1>${t('yourRecoveryCodes')}</h1>
<p>${t('recoveryCodesText')} <strong>${t('recoveryCodesShownOnlyNow')}</strong>.</p>
<ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a class="button" href="/admin/">${t('done')}</a></p></div>`,
  );
}

export function twoStepOnPage(chrome: Chrome, codesLeft: number): string {
  return layout(
    t('twoStepSignIn'),
    chrome,
    html`<div class="narrow card"><h1>${t('twoStepSignIn')}</h1>
<p>${t('twoStepOnText')} ${t(codesLeft === 1 ? 'twoStepCodeLeft' : 'twoStepCodesLeft', { count: codesLeft })} <code>member-api operator reset</code> ${t('twoStepResetHelp')}</p>
<form method="post" action="${TWO_STEP_PATH}/disable">
<label>${t('twoStepOffCode')} <input name="code" required autocomplete="one-time-code" maxlength="64"></label>
<button type="submit" class="secondary">${t('turnOff')}</button></form></div>`,
  );
}
