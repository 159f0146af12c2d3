/** The member pages' settings form, with the other sites whose pasted forms reached the pages. */
import { PAGE_LANGUAGES, REGISTRATIONS, type Account } from '../../accounts/account.js';
import { formatRegistrationFields } from '../../accounts/registration-fields.js';
import type { FormOrigin } from '../../accounts/account-store.js';
import { html } from '../../http/html.js';
import { memberPagesPath, registrationsPath } from '../paths.js';
import { layout, when, type Chrome } from './layout.js';

/** The member pages' settings form, with each setting's current value or the value sent and its error. */
export function memberPagesSettingsPage(
  chrome: Chrome,
  account: Account,
  form: Readonly<Record<string, string>> = {},
  error?: { setting: string; reason: string },
  formOrigins: readonly FormOrigin[] = [],
): string {
  const s = account.settings;
  const value = (name: string, current: string) => form[name] ?? current;
  const choice = (name: string, choices: readonly string[], current: string) =>
    html`<select name="${name}">${choices.map((c) => html`<option value="${c}"${value(name, current) === c ? html` selected` : ''}>${c}</option>`)}</select>`;
  return layout(
    `Member pages of ${account.name}`,
    { ...chrome, notice: error ? { kind: 'error', text: `${error.setting}: ${error.reason}.` } : chrome.notice },
    html`<div class="actions"><h1>Member pages</h1><a class="button secondary" href="/auth/${account.name}/">Open the sign-in page</a></div>
<div class="card"><form method="post" action="${memberPagesPath(account.name)}" class="settings">
<label>Registration ${choice('registration', REGISTRATIONS, s.registration)}</label>
<p class="muted">off: no registration page; open: a new member is Active and signed in at once; approval: it waits, Suspended, in the <a href="${registrationsPath(account.name)}">registrations queue</a>.</p>
<label>Registration fields <textarea name="registration_fields" rows="3">${value('registration_fields', formatRegistrationFields(s.registrationFields))}</textarea></label>
<p class="muted">Separated by <code>;</code>, each <code>name[*]:kind[:label]</code> (<code>*</code>: required; kinds text, email, number, date, choice(a|b), checkbox), e.g. <code>first_name*:text:First name;terms*:checkbox:I accept the terms</code>. Members change the same fields, but the checkboxes, on their profile page.</p>
<label>Allowed return origins <textarea name="return_origins" rows="2">${value('return_origins', s.returnOrigins.join(', '))}</textarea></label>
<p class="muted">Comma-separated, e.g. <code>https://www.example.com</code>: where a browser may go back after sign-in, and whose pages may post the sign-in form.</p>
<label>Name shown <input name="page_name" value="${value('page_name', s.pageName)}" placeholder="${account.name}"></label>
<label>Logo URL <input name="page_logo" value="${value('page_logo', s.pageLogoUrl)}" placeholder="https://…"></label>
<label>Accent colour <input name="page_accent" type="color" value="${value('page_accent', s.pageAccent)}"></label>
<label>Language ${choice('page_language', PAGE_LANGUAGES, s.pageLanguage)}</label>
<p class="muted">auto: the visitor's browser chooses between English and French.</p>
<label>Profile fields the check answers as headers <input name="check_fields" value="${value('check_fields', s.checkFields.join(','))}" placeholder="plan,city"></label>
<label>Cookie domain <input name="cookie_domain" value="${value('cookie_domain', s.cookieDomain)}" placeholder="example.com"></label>
<p class="muted">Empty: the sign-in holds on the pages' own host. <code>example.com</code>: on every subdomain too (pages on members.example.com, a proxy on www.example.com).</p>
<div class="actions"><button type="submit">Save</button></div>
</form></div>
${formOrigins.length === 0 ? '' : foreignOrigins(account, formOrigins)}`,
  );
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
  return html`<div class="card"><h2>Forms posted from other sites</h2>
<p class="muted">A sign-in or registration form pasted on these sites' pages reached the member pages; as these origins are not allowed, nothing was done, and the visitors were asked to finish on the member pages. Allow an origin that is yours: its forms then work as they are.</p>
<table><thead><tr><th>Origin</th><th>Posts</th><th>Last</th><th></th></tr></thead><tbody>
${origins.map(
  (entry) =>
    html`<tr><td><code>${entry.origin}</code></td><td>${entry.posts.toLocaleString('en')}</td><td>${when(entry.lastAt)}</td><td>${button(entry.origin, 'allow', 'Allow', 'secondary')} ${button(entry.origin, 'dismiss', 'Dismiss', 'secondary')}</td></tr>`,
)}</tbody></table></div>`;
}
