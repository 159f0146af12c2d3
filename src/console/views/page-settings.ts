/** The member pages' settings form, with the other sites whose pasted forms reached the pages. */
import { PAGE_LANGUAGES, REGISTRATIONS, type Account } from '../../accounts/account.js';
import { formatRegistrationFields } from '../../accounts/registration-fields.js';
import { formatFieldTexts } from '../../accounts/field-texts.js';
import type { FormOrigin } from '../../accounts/account-store.js';
import { html } from '../../http/html.js';
import { memberPagesPath, registrationsPath } from '../paths.js';
import { accountTitle, layout, t, when, type Chrome } from './layout.js';

/** The page layout, as an administrator sees it: the text in use (or the one sent, and why it was refused). */
export interface PageLayoutView {
  readonly text: string;
  readonly own: boolean;
  readonly error?: string;
}

/**
 * The member pages' settings form, with each setting's current value or the value sent and its
 * error; and for an administrator, the page layout.
 */
export function memberPagesSettingsPage(
  chrome: Chrome,
  account: Account,
  form: Readonly<Record<string, string>> = {},
  error?: { setting: string; reason: string },
  formOrigins: readonly FormOrigin[] = [],
  pageLayout?: PageLayoutView,
): string {
  const s = account.settings;
  const value = (name: string, current: string) => form[name] ?? current;
  const choice = (name: string, choices: readonly string[], current: string) =>
    html`<select name="${name}">${choices.map((c) => html`<option value="${c}"${value(name, current) === c ? html` selected` : ''}>${c}</option>`)}</select>`;
  return layout(
    accountTitle('navMemberPages', account.name),
    { ...chrome, notice: error ? { kind: 'error', text: `${error.setting}: ${error.reason}.` } : chrome.notice },
    html`<div class="actions"><h1>${t('navMemberPages')}</h1><a class="button secondary" href="/auth/${account.name}/">${t('mpOpenSignIn')}</a></div>
<div class="card"><form method="post" action="${memberPagesPath(account.name)}" class="settings">
<label>${t('registration')} ${choice('registration', REGISTRATIONS, s.registration)}</label>
<p class="muted">${t('mpRegistrationHelp')} <a href="${registrationsPath(account.name)}">${t('mpRegistrationsQueue')}</a>.</p>
<label>${t('mpRegistrationFields')} <textarea name="registration_fields" rows="3">${value('registration_fields', formatRegistrationFields(s.registrationFields))}</textarea></label>
<p class="muted">${t('mpFieldsSeparatedBy')} <code>;</code>, ${t('mpFieldsEach')} <code>name[*]:kind[:label]</code> (<code>*</code>: ${t('mpFieldsKinds')}), ${t('forExample')} <code>first_name*:text:First name;terms*:checkbox:I accept the terms</code>. ${t('mpFieldsOnProfile')}</p>
<label>${t('mpFieldTexts')} <textarea name="field_texts" rows="3">${value('field_texts', formatFieldTexts(s.fieldTexts))}</textarea></label>
<p class="muted">${t('mpFieldTextsHelp')} <code>fr:first_name=Prénom;fr:plan(gold)=Or</code>.</p>
<label>${t('mpReturnOrigins')} <textarea name="return_origins" rows="2">${value('return_origins', s.returnOrigins.join(', '))}</textarea></label>
<p class="muted">${t('commaSeparated')}, ${t('forExample')} <code>https://www.example.com</code>: ${t('mpReturnOriginsHelp')}</p>
<label>${t('mpNameShown')} <input name="page_name" value="${value('page_name', s.pageName)}" placeholder="${account.name}"></label>
<label>${t('mpLogoUrl')} <input name="page_logo" value="${value('page_logo', s.pageLogoUrl)}" placeholder="https://…"></label>
<label>${t('mpAccent')} <input name="page_accent" type="color" value="${value('page_accent', s.pageAccent)}"></label>
<label>${t('mpLanguage')} ${choice('page_language', PAGE_LANGUAGES, s.pageLanguage)}</label>
<p class="muted">${t('mpLanguageHelp')}</p>
<label>${t('mpCheckFields')} <input name="check_fields" value="${value('check_fields', s.checkFields.join(','))}" placeholder="plan,city"></label>
<label>${t('mpCookieDomain')} <input name="cookie_domain" value="${value('cookie_domain', s.cookieDomain)}" placeholder="example.com"></label>
<p class="muted">${t('mpCookieDomainEmpty')} <code>example.com</code>: ${t('mpCookieDomainSubdomains')}</p>
<div class="actions"><button type="submit">${t('save')}</button></div>
</form></div>
${pageLayout ? layoutCard(account, pageLayout) : ''}
${formOrigins.length === 0 ? '' : foreignOrigins(account, formOrigins)}`,
  );
}

/** The HTML around every member page (administrators only: it is served on this server's origin). */
function layoutCard(account: Account, view: PageLayoutView) {
  const path = `${memberPagesPath(account.name)}/layout`;
  const invalid = view.error !== undefined;
  return html`<div class="card" id="layout"><h2>${t('pageLayout')}</h2>
<p class="muted">${t('pageLayoutText')}</p>
<p>${t(view.own ? 'pageLayoutOwn' : 'pageLayoutBuiltIn')}</p>
<form method="post" action="${path}#layout" class="settings">
<label for="layout-text">${t('pageLayout')}</label>
<textarea id="layout-text" name="layout" rows="14" spellcheck="false"${invalid ? html` aria-invalid="true" aria-describedby="layout-error"` : ''}>${view.text}</textarea>
${invalid ? html`<p class="field-error" id="layout-error">${view.error}</p>` : ''}
<div class="actions"><button type="submit">${t('saveLayout')}</button></div>
</form>
${view.own ? html`<form method="post" action="${path}" class="inline-form"><input type="hidden" name="built_in" value="1"><button type="submit" class="secondary">${t('useBuiltInLayout')}</button></form>` : ''}
</div>`;
}

/**
 * Other sites whose pasted forms (the original's sign-in or registration) reached the pages:
 * their visitors were asked to finish on the pages themselves. Allowing one adds it to the
 * allowed return origins; dismissing forgets it.
 */
function foreignOrigins(account: Account, origins: readonly FormOrigin[]) {
  const path = `${memberPagesPath(account.name)}/origins`;
  const button = (origin: string, action: 'allow' | 'dismiss', label: string, kind: string) =>
    html`<form method="post" action="${path}" class="inline-form"><input type="hidden" name="origin" value="${origin}"><input type="hidden" name="do" value="${action}"><button type="submit" class="${kind}">${label}</button></form>`;
  return html`<div class="card"><h2>${t('mpForeignHeading')}</h2>
<p class="muted">${t('mpForeignText')}</p>
<table><thead><tr><th>${t('mpOrigin')}</th><th>${t('mpPosts')}</th><th>${t('mpLast')}</th><th></th></tr></thead><tbody>
${origins.map(
  (entry) =>
    html`<tr><td><code>${entry.origin}</code></td><td>${entry.posts.toLocaleString('en')}</td><td>${when(entry.lastAt)}</td><td>${button(entry.origin, 'allow', t('mpAllow'), 'secondary')} ${button(entry.origin, 'dismiss', t('mpDismiss'), 'secondary')}</td></tr>`,
)}</tbody></table></div>`;
}
