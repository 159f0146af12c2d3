/** A signed-in member's profile: its address and fields, its password, its data, its account's deletion. */
import { html } from '../../http/html.js';
import { alert, formToken, input, layout, notice, type Chrome } from './layout.js';
import { registrationInput } from './registration.js';

export interface ProfileView {
  readonly login: string;
  readonly email: string;
  readonly profile: ReadonlyMap<string, string>;
  readonly notice?: string;
  readonly errors?: Readonly<Record<string, string>>;
  /** Values typed that were refused, shown again. */
  readonly values?: Readonly<Record<string, string>>;
  readonly passwordError?: { readonly field: 'current' | 'password' | 'confirm'; readonly message: string };
  readonly deleteError?: string;
  /** A paid member's plan, its paid-until date, and whether the provider's portal opens for it. */
  readonly billing?: { readonly plan: string; readonly paidUntil?: string; readonly cancels: boolean; readonly problem: boolean; readonly manage: boolean };
}

export function profilePage(chrome: Chrome, view: ProfileView): string {
  const { t, base, account } = chrome;
  const errors = view.errors ?? {};
  const editable = account.settings.registrationFields.filter((field) => field.editable);
  const values: Record<string, string> = { ...Object.fromEntries(view.profile), email: view.email, ...(view.values ?? {}) };
  const pwError = (field: 'current' | 'password' | 'confirm') => (view.passwordError?.field === field ? view.passwordError.message : undefined);
  return layout(
    chrome,
    t('profile'),
    html`${notice(view.notice)}${alert(errors.form ?? (Object.keys(errors).length > 0 ? t('errorSummary') : undefined))}
<p>${t('signedInAs', { login: view.login })}</p>
${view.billing
  ? html`<section id="billing" aria-labelledby="billing-title"><h2 id="billing-title">${t('billing')}</h2>
${view.billing.plan ? html`<p>${t('billingPlan', { plan: view.billing.plan })}</p>` : ''}
${view.billing.paidUntil ? html`<p>${view.billing.cancels ? t('cancelsAt', { date: view.billing.paidUntil }) : t('paidUntil', { date: view.billing.paidUntil })}</p>` : ''}
${view.billing.problem ? html`<p class="alert" role="alert">${t('paymentProblem')}</p>` : ''}
${view.billing.manage ? html`<form method="post" action="${base}billing">${formToken(chrome)}<button type="submit" class="secondary">${t('manageBilling')}</button></form>` : ''}</section>`
  : ''}
<form id="profile-form" method="post" action="${base}profile" novalidate>${formToken(chrome)}
${input('email', t('email'), { type: 'email', value: values.email, autocomplete: 'email', required: true, error: errors.email })}
${input('email_password', t('emailPassword'), { type: 'password', autocomplete: 'current-password', error: errors.email_password, hint: t('emailPasswordHint') })}
${editable.map((field) => registrationInput(field, { values, errors }, chrome))}
<button type="submit">${t('save')}</button>
</form>
<h2>${t('changePassword')}</h2>
<form id="password-form" method="post" action="${base}password">${formToken(chrome)}
<input type="text" name="username" value="${view.login}" autocomplete="username" hidden>
${input('current', t('currentPassword'), { type: 'password', autocomplete: 'current-password', required: true, error: pwError('current') })}
${input('password', t('changedPassword'), { type: 'password', autocomplete: 'new-password', required: true, error: pwError('password'), hint: t('passwordHint', { min: account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true, error: pwError('confirm') })}
<button type="submit" class="secondary">${t('changePassword')}</button>
</form>
<h2>${t('myData')}</h2>
<p><a href="${base}my-data" download>${t('downloadData')}</a></p>
<form method="post" action="${base}logout">${formToken(chrome)}<button type="submit" class="secondary">${t('signOut')}</button></form>
<h2>${t('deleteAccount')}</h2>
<p>${t('deleteText')}</p>
<form id="delete-form" method="post" action="${base}delete">${formToken(chrome)}
<input type="text" name="username" value="${view.login}" autocomplete="username" hidden>
${input('delete_password', t('password'), { type: 'password', autocomplete: 'current-password', required: true, error: view.deleteError })}
<button type="submit" class="danger">${t('deleteButton')}</button>
</form>`,
  );
}
