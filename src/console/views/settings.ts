/** The account's settings, but the member pages': each as `account show` shows it, read as `account set` reads it. */
import type { Account } from '../../accounts/account.js';
import { ACCOUNT_SETTINGS, periodText, type SettingSpec } from '../../accounts/account-settings.js';
import type { ConsoleKey } from '../../messages/catalog.js';
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

/** Each setting's name on the page, in plain words with its unit (its command-line option is in its help). */
const LABELS: Record<string, ConsoleKey> = {
  'ok-url': 'setOkUrl',
  'fail-url': 'setFailUrl',
  'min-password-length': 'setMinPasswordLength',
  'time-zone': 'setTimeZone',
  'lockout-threshold': 'setLockoutThreshold',
  'lockout-step': 'setLockoutStep',
  'lockout-max': 'setLockoutMax',
  'lockout-reset': 'setLockoutReset',
  'rate-limit': 'setRateLimit',
  'login-rate-limit': 'setLoginRateLimit',
  'storage-quota': 'setStorageQuota',
  'login-events': 'setLoginEvents',
  'expiry-warning': 'setExpiryWarning',
  'session-idle': 'setSessionIdle',
  'session-lifetime': 'setSessionLifetime',
  'reset-lifetime': 'setResetLifetime',
  'smtp-url': 'setSmtpUrl',
  'mail-from': 'setMailFrom',
  'session-fields': 'setSessionFields',
  'get-writes': 'setGetWrites',
  'require-email': 'setRequireEmail',
  messages: 'setMessages',
  'password-check': 'setPasswordCheck',
  'operators-two-step': 'setOperatorsTwoStep',
};

/**
 * A setting as its field shows it: `account show`'s text (an SMTP password masked), a period
 * as it is typed (`3h`, not 10800).
 */
export const shownValue = (spec: SettingSpec, account: Account) => {
  const value = spec.kind.show(spec.get(account.settings));
  return spec.kind.argument === '<period>' && typeof value === 'number' ? periodText(value) : String(value);
};

export function settingsPage(
  chrome: Chrome,
  account: Account,
  form: Readonly<Record<string, string>> = {},
  errors: Readonly<Record<string, string>> = {},
): string {
  const field = (spec: SettingSpec) => {
    const value = form[spec.option] ?? shownValue(spec, account);
    const reason = errors[spec.option];
    const wrong = reason !== undefined;
    const described = `${spec.option}-help${wrong ? ` ${spec.option}-error` : ''}`;
    const input = spec.kind.choices
      ? html`<select name="${spec.option}" id="${spec.option}" aria-describedby="${described}"${wrong ? html` aria-invalid="true"` : ''}>${spec.kind.choices.map(
          (choice) => html`<option value="${choice}"${choice === value ? html` selected` : ''}>${choice}</option>`,
        )}</select>`
      : html`<input name="${spec.option}" id="${spec.option}" value="${value}" aria-describedby="${described}"${wrong ? html` aria-invalid="true"` : ''}>`;
    const label = LABELS[spec.option] ? t(LABELS[spec.option]!) : spec.option;
    return html`<div class="setting"><label for="${spec.option}">${label}</label><div>${input}${
      wrong ? html`<span class="field-error" id="${spec.option}-error">${reason}</span>` : ''
    }</div><p class="muted" id="${spec.option}-help">${spec.help} <code>--${spec.option}</code></p></div>`;
  };
  const refused = Object.keys(errors);
  return layout(
    accountTitle('navSettings', account.name),
    {
      ...chrome,
      notice:
        refused.length > 0
          ? { kind: 'error', text: t(refused.length === 1 ? 'settingsOneRefused' : 'settingsRefused', { count: refused.length }) }
          : chrome.notice,
    },
    html`${backToMembers(account.name)}<h1>${accountTitle('navSettings', account.name)}</h1>
<div class="card"><form method="post" action="${settingsPath(account.name)}" class="account-settings">
<p class="muted">${t('settingsAs')} <code>member-api account set ${account.name} --NAME VALUE</code> ${t('settingsTakesThem')} <a href="${memberPagesPath(account.name)}">${t('settingsTheirOwnPage')}</a>.</p>
${SETTINGS.map(field)}
<div class="actions"><button type="submit">${t('save')}</button></div>
</form></div>`,
  );
}
