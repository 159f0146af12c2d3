/** The password reminder's page, and the page a reset link opens. */
import { html, type Html } from '../../http/html.js';
import type { MessageKey } from '../../messages/catalog.js';
import { alert, formToken, input, layout, type Chrome } from './layout.js';

export function lostPage(chrome: Chrome, error?: string): string {
  const { t } = chrome;
  return layout(
    chrome,
    t('lost'),
    html`${alert(error)}<p>${t('lostText')}</p>
${lostForm(chrome)}`,
  );
}

/** The reminder's form, its address (or login) filled in when known. */
function lostForm(chrome: Chrome, who?: string): Html {
  const { t, base } = chrome;
  return html`<form method="post" action="${base}lost">${formToken(chrome)}
${input('who', t('emailOrLogin'), { value: who, autocomplete: 'username', required: true, autofocus: !who })}
<button type="submit">${t('sendLink')}</button>
</form>
<p class="links"><a href="${base}">${t('backToSignIn')}</a></p>`;
}

const LINK_WORDS = {
  used: { title: 'linkUsed', text: 'linkUsedText' },
  expired: { title: 'linkExpired', text: 'linkExpiredText' },
  invalid: { title: 'linkInvalid', text: 'linkInvalidText' },
} as const satisfies Record<string, { title: MessageKey; text: MessageKey }>;

/**
 * The page of a reset link that cannot be used (used, expired, not valid): the account's page,
 * in the member's language, saying why and offering a new link, the address filled in when
 * the link's member is known. Without an account (a link cut before its account's name), only
 * the why.
 */
export function linkRefusedPage(chrome: Chrome, kind: keyof typeof LINK_WORDS, view: { who?: string; withForm: boolean }): string {
  const { t } = chrome;
  const words = LINK_WORDS[kind];
  return layout(chrome, t(words.title), html`<p>${t(words.text)}</p>${view.withForm ? lostForm(chrome, view.who) : ''}`);
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
