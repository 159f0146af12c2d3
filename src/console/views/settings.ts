/** The account's settings, but the member pages': each as `account show` shows it, read as `account set` reads it. */
import type { Account } from '../../accounts/account.js';
import { ACCOUNT_SETTINGS, type SettingSpec } from '../../accounts/account-settings.js';
import { html } from '../../http/html.js';
import { memberPagesPath, settingsPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, type Chrome } from './layout.js';

/** The member pages' settings: on their own page (member-pages.ts). */
const ON_MEMBER_PAGES = new Set([
  'registration',
  'registration-fields',
  'field-texts',
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
    accountTitle('navSettings', account.name),
    { ...chrome, notice: error ? { kind: 'error', text: `${error.setting}: ${error.reason}.` } : chrome.notice },
    html`${backToMembers(account.name)}<h1>${accountTitle('navSettings', account.name)}</h1>
<div class="card"><form method="post" action="${settingsPath(account.name)}" class="account-settings">
<p class="muted">${t('settingsAs')} <code>member-api account set ${account.name} --NAME VALUE</code> ${t('settingsTakesThem')} <a href="${memberPagesPath(account.name)}">${t('settingsTheirOwnPage')}</a>.</p>
${SETTINGS.map(field)}
<div class="actions"><button type="submit">${t('save')}</button></div>
</form></div>`,
  );
}
