/** The password reminder's page, and the page a reset link opens. */
import { html } from '../../http/html.js';
import { alert, formToken, input, layout, type Chrome } from './layout.js';

export function lostPage(chrome: Chrome, error?: string): string {
  const { t, base } = chrome;
  return layout(
    chrome,
    t('lost'),
    html`${alert(error)}<p>${t('lostText')}</p>
<form method="post" action="${base}lost">${formToken(chrome)}
${input('who', t('emailOrLogin'), { autocomplete: 'username', required: true, autofocus: true })}
<button type="submit">${t('sendLink')}</button>
</form>
<p class="links"><a href="${base}">${t('backToSignIn')}</a></p>`,
  );
}

/** The page a reset link opens: a new password, twice, for the member the link is for. */
export function resetPage(chrome: Chrome, view: { token: string; login: string; action: string; error?: string }): string {
  const { t } = chrome;
  return layout(
    chrome,
    t('choosePassword'),
    html`<p>${t('choosePasswordFor')} <strong>${view.login}</strong>.</p>
${alert(view.error)}
<form method="post" action="${view.action}">
<input type="hidden" name="token" value="${view.token}">
<input type="text" name="username" value="${view.login}" autocomplete="username" hidden>
${input('password', t('newPasswordLabel'), { type: 'password', autocomplete: 'new-password', required: true, hint: t('passwordHint', { min: chrome.account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true })}
<button type="submit">${t('setPassword')}</button>
</form>`,
  );
}
