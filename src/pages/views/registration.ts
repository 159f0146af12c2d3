/** The registration page: login, address, password twice, and the account's own fields, each error beside its field. */
import type { RegistrationField } from '../../accounts/registration-fields.js';
import { choiceText, fieldLabel } from '../../accounts/field-texts.js';
import { html, type Html } from '../../http/html.js';
import { alert, formToken, input, layout, notice, type Chrome } from './layout.js';

export interface RegisterView {
  readonly values: Readonly<Record<string, string>>;
  readonly errors: Readonly<Record<string, string>>;
  readonly error?: string;
  /** A line above the form (the original's form posted from another site: finish here). */
  readonly notice?: string;
}

/** A registration field's markup: a checkbox, a choice list, or an input of its kind; its label and choices in the page's language. */
export function registrationInput(
  field: RegistrationField,
  view: Pick<RegisterView, 'values' | 'errors'>,
  chrome: Pick<Chrome, 't' | 'language' | 'account'>,
): Html {
  const { t, language } = chrome;
  const texts = chrome.account.settings.fieldTexts;
  const shown = fieldLabel(field, texts, language);
  const label = field.required ? shown : `${shown} ${t('optional')}`;
  const id = `f_${field.name}`;
  const value = view.values[field.name];
  const error = view.errors[field.name];
  const errorHtml = error ? html`<p class="error" id="${id}-error">${error}</p>` : '';
  const aria = error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
  if (field.kind === 'checkbox') {
    return html`<label class="check" for="${id}"><input id="${id}" name="${id}" type="checkbox" value="yes"${value ? html` checked` : ''}${field.required ? html` required` : ''}${aria}> ${label}</label>${errorHtml}`;
  }
  if (field.kind === 'choice') {
    return html`<label for="${id}">${label}</label>
<select id="${id}" name="${id}"${field.required ? html` required` : ''}${aria}><option value="">—</option>${field.choices.map(
      (choice) => html`<option value="${choice}"${choice === value ? html` selected` : ''}>${choiceText(field, choice, texts, language)}</option>`,
    )}</select>${errorHtml}`;
  }
  const type = { text: 'text', email: 'email', number: 'text', date: 'date' }[field.kind];
  return input(id, label, { type, value, required: field.required, error, autocomplete: field.kind === 'email' ? 'email' : undefined });
}

export function registerPage(chrome: Chrome, view: RegisterView): string {
  const { t, base, account } = chrome;
  const { values, errors } = view;
  return layout(
    chrome,
    t('registerTo', { name: account.settings.pageName || account.name }),
    html`${alert(view.error ?? (Object.keys(errors).length > 0 ? t('errorSummary') : undefined))}${notice(view.notice)}
<form id="register-form" method="post" action="${base}register" novalidate>${formToken(chrome)}
${input('login', t('login'), { value: values.login, autocomplete: 'username', required: true, error: errors.login })}
${input('email', t('email'), { type: 'email', value: values.email, autocomplete: 'email', required: true, error: errors.email })}
${input('password', t('newPassword'), { type: 'password', autocomplete: 'new-password', required: true, error: errors.password, hint: t('passwordHint', { min: account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true, error: errors.confirm })}
${account.settings.registrationFields.map((field) => registrationInput(field, view, chrome))}
<div class="trap" aria-hidden="true"><label for="website">Website</label><input id="website" name="website" type="text" tabindex="-1" autocomplete="off"></div>
<button type="submit">${t('createAccount')}</button>
</form>
<p class="links"><span>${t('haveAccount')} <a href="${base}">${t('signIn')}</a></span></p>`,
  );
}
