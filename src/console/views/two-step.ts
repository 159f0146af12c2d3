/** The second step: its page at sign-in, turning it on (the key, then the recovery codes shown once), and off. */
import { html } from '../../http/html.js';
import { groupedSecret } from '../../operators/two-step.js';
import { SECOND_STEP_PATH } from '../session-cookie.js';
import { layout, type Chrome } from './layout.js';

export const TWO_STEP_PATH = '/admin/two-step';

export function requiredNotice(account: string): Chrome['notice'] {
  return { kind: 'error', text: `The account ${account} requires a second step of its operators: set it up to open its pages.` };
}

export function secondStepPage(chrome: Chrome): string {
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

export function enrolPage(chrome: Chrome, enrolment: { secret: string; uri: string }): string {
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

export function recoveryCodesPage(chrome: Chrome, codes: readonly string[]): string {
  return layout(
    'Recovery codes',
    { ...chrome, notice: { kind: 'ok', text: 'Two-step sign-in is on.' } },
    html`<div class="narrow card"><h1>Your recovery codes</h1>
<p>Each of these signs you in once instead of a code, if you lose your phone. Keep them somewhere safe: <strong>they are shown only now</strong>.</p>
<ul class="codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul>
<p><a class="button" href="/admin/">Done</a></p></div>`,
  );
}

export function twoStepOnPage(chrome: Chrome, codesLeft: number): string {
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
