/** The sign-in page, signing out asked first, and the page that goes on to another site. */
import { html } from '../../http/html.js';
import { alert, formToken, layout, notice, input, type Chrome } from './layout.js';

export interface SignInView {
  readonly error?: string;
  readonly login?: string;
  /** Where the browser goes after sign-in (already checked). */
  readonly returnTo?: string;
  readonly notice?: string;
}

export function signInPage(chrome: Chrome, view: SignInView): string {
  const { t, base, account } = chrome;
  return layout(
    chrome,
    t('signIn'),
    html`${alert(view.error)}${notice(view.notice)}
<form method="post" action="${base}">${formToken(chrome)}
<input type="hidden" name="action" value="login">
${view.returnTo ? html`<input type="hidden" name="return" value="${view.returnTo}">` : ''}
${input('login', t('loginOrEmail'), { value: view.login, autocomplete: 'username', required: true, autofocus: !view.login })}
${input('password', t('password'), { type: 'password', autocomplete: 'current-password', required: true, autofocus: Boolean(view.login) })}
<label class="check" for="remember"><input id="remember" name="remember" type="checkbox" value="1"> ${t('remember')}</label>
<button type="submit">${t('signIn')}</button>
</form>
<p class="links"><a href="${base}?action=lost">${t('forgot')}</a>${
      account.settings.registration === 'off' ? '' : html`<span>${t('noAccount')} <a href="${base}?action=reg">${t('register')}</a></span>`
    }</p>`,
  );
}

/** Signing out asked of a member who followed another site's link: a button, not a link, does it. */
export function signOutPage(chrome: Chrome): string {
  const { t, base } = chrome;
  return layout(
    chrome,
    t('signOut'),
    html`<p>${t('signOutAsk')}</p><form method="post" action="${base}logout">${formToken(chrome)}<button type="submit">${t('signOut')}</button></form>
<p class="links"><a href="${base}">${t('stay')}</a></p>`,
  );
}

/**
 * The page that sends the browser on after a sign-in when the destination is not one the
 * form's policy lists (a member's own `urlok` elsewhere): a link, followed at once.
 */
export function continuePage(chrome: Chrome, destination: string): string {
  const { t } = chrome;
  return layout(
    chrome,
    t('signedIn'),
    html`<meta http-equiv="refresh" content="0;url=${destination}"><p class="links"><a href="${destination}">${t('continue')}</a></p>`,
  );
}
