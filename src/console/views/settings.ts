/** The account's settings, but the member pages': each as `account show` shows it, read as `account set` reads it. */
import type { Account } from '../../accounts/account.js';
import { ACCOUNT_SETTINGS, type SettingSpec } from '../../accounts/account-settings.js';
import { html } from '../../http/html.js';
import { memberPagesPath, membersPath, settingsPath } from '../paths.js';
import { layout, type Chrome } from './layout.js';

/** The member pages' settings: on their own page (member-pages.ts). */
const ON_MEMBER_PAGES = new Set([
  'registration',
  'registration-fields',
  'return-origins',
  'page-name',
  'page-logo',
  'page-accent',
  'page-language',
  'check-fields',
  'cookie-domain',
]);
export const SETTINGS = ACCOUNT_SETTINGS.filter((spec) => !ON_MEMBER_PAGES.has(spec.option));

/** A setting as its field shows it: `account show`'s text (an SMTP password masked). */
export const shownValue = (spec: SettingSpec, account: Account) => String(spec.kind.show(spec.get(account.settings)));

export function settingsPage(
  chrome: Chrome,
  account: Account,
  form: Readonly<Record<string, string>> = {},
  error?: { setting: string; reason: string },
): string {
  const field = (spec: SettingSpec) => {
    const value = form[spec.option] ?? shownValue(spec, account);
    const wrong = error?.setting === spec.option;
    const input = spec.kind.choices
      ? html`<select name="${spec.option}" id="${spec.option}"${wrong ? html` aria-invalid="true"` : ''}>${spec.kind.choices.map(
          (choice) => html`<option value="${choice}"${choice === value ? html` selected` : ''}>${choice}</option>`,
        )}</select>`
      : html`<input name="${spec.option}" id="${spec.option}" value="${value}" aria-describedby="${spec.option}-help"${wrong ? html` aria-invalid="true"` : ''}>`;
    return html`<div class="setting"><label for="${spec.option}">${spec.option}</label>${input}<p class="muted" id="${spec.option}-help">${spec.help} <code>${spec.kind.argument}</code></p></div>`;
  };
  return layout(
    `Settings of ${account.name}`,
    { ...chrome, notice: error ? { kind: 'error', text: `${error.setting}: ${error.reason}.` } : chrome.notice },
    html`<p><a href="${membersPath(account.name)}">← Members of ${account.name}</a></p><h1>Settings of ${account.name}</h1>
<div class="card"><form method="post" action="${settingsPath(account.name)}" class="account-settings">
<p class="muted">As <code>member-api account set ${account.name} --NAME VALUE</code> takes them; a value left as shown is kept (the mail server's password is shown masked: type the whole URL to change it). The member pages have <a href="${memberPagesPath(account.name)}">their own page</a>.</p>
${SETTINGS.map(field)}
<div class="actions"><button type="submit">Save</button></div>
</form></div>`,
  );
}
