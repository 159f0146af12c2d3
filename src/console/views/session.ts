/** The console's pages before an account: signing in, a forgotten password, setting a password by a link. */
import { html } from '../../http/html.js';
import { layout, t, type Chrome } from './layout.js';

export function signInPage(chrome: Chrome, email = ''): string {
  return layout(
    t('signIn'),
    chrome,
    html`<div class="narrow card"><h1>${t('signIn')}</h1>
<form method="post" action="/admin/sign-in">
<label>${t('email')} <input type="email" name="email" value="${email}" required autocomplete="username" autofocus></label>
<label>${t('password')} <input type="password" name="password" required autocomplete="current-password"></label>
<button type="submit">${t('signIn')}</button></form>
<p><a href="/admin/forgot">${t('forgotPassword')}</a></p></div>`,
  );
}

/** "Forgot your password?": the operator's address; a link comes by mail. */
export function forgotPage(chrome: Chrome, email = ''): string {
  return layout(
    t('forgotTitle'),
    chrome,
    html`<div class="narrow card"><h1>${t('forgotTitle')}</h1><p>${t('forgotText')}</p>
<form method="post" action="/admin/forgot">
<label>${t('email')} <input type="email" name="email" value="${email}" required autocomplete="username" autofocus></label>
<button type="submit">${t('forgotSend')}</button></form>
<p><a href="/admin/sign-in">${t('signIn')}</a></p></div>`,
  );
}

export function setupPage(chrome: Chrome, token: string, email: string): string {
  return layout(
    t('setupTitle'),
    chrome,
    html`<div class="narrow card"><h1>${t('setupTitle')}</h1>
<p class="muted">${t('setupFor', { email })}</p>
<form method="post" action="/admin/setup">
<input type="hidden" name="token" value="${token}">
<input type="text" name="username" value="${email}" autocomplete="username" hidden>
<label>${t('newPassword')} <input type="password" name="password" required minlength="12" autocomplete="new-password" autofocus></label>
<label>${t('setupOnceMore')} <input type="password" name="confirm" required minlength="12" autocomplete="new-password"></label>
<button type="submit">${t('setupSetPassword')}</button></form></div>`,
  );
}
