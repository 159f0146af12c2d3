/**
 * The account's settings in the console (owners): every setting `account set` takes, but the
 * member pages' (they have their own page), each shown as `account show` shows it and read,
 * when it was changed, as the command line reads its option: the same checks and messages.
 */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../accounts/account.js';
import { ACCOUNT_SETTINGS, patchOf, SettingValueError, type SettingSpec } from '../accounts/account-settings.js';
import { html } from '../http/html.js';
import { checkReceiver } from '../webhooks/address-guard.js';
import { memberPagesPath, type ConsoleKit } from './member-pages.js';
import { layout, membersPath, type Chrome } from './pages.js';

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
const SETTINGS = ACCOUNT_SETTINGS.filter((spec) => !ON_MEMBER_PAGES.has(spec.option));

export const settingsPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/settings`;

/** A setting as its field shows it: `account show`'s text (an SMTP password masked). */
const shownValue = (spec: SettingSpec, account: Account) => String(spec.kind.show(spec.get(account.settings)));

export function registerAccountSettings(scope: FastifyInstance, kit: ConsoleKit): void {
  scope.get('/accounts/:account/settings', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    return kit.send(reply, 200, settingsPage({ operator: seen.operator, account: seen.account.name, notice: kit.doneNotice(request) }, seen.account));
  });

  scope.post('/accounts/:account/settings', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const { account } = seen;
    const form = kit.formOf(request);
    const chrome: Chrome = { operator: seen.operator, account: account.name };
    const refused = (setting: string, reason: string) => kit.send(reply, 400, settingsPage(chrome, account, form, { setting, reason }));
    // Only what was changed is read: a value left as shown (a masked password) stays as it is.
    const values: Array<[SettingSpec, unknown]> = [];
    for (const spec of SETTINGS) {
      const sent = form[spec.option];
      if (sent === undefined || sent.trim() === shownValue(spec, account)) continue;
      try {
        values.push([spec, spec.kind.parse(sent.trim())]);
      } catch (error) {
        if (error instanceof SettingValueError) return refused(spec.option, error.message);
        throw error;
      }
    }
    // An owner's mail server is a connection this server makes for them: to a public address
    // only, as a webhook's (the server's administrator sets a private one on the command line).
    const smtp = values.find(([spec]) => spec.option === 'smtp-url')?.[1];
    if (typeof smtp === 'string' && smtp !== '') {
      const blocked = await checkReceiver(new URL(smtp), kit.allowPrivateAddresses, 'from the console, the mail server must be on a public address');
      if (blocked) return refused('smtp-url', blocked);
    }
    if (values.length > 0) {
      const changed = await kit.accounts.change(account.name, patchOf(values));
      if (changed.kind === 'invalid') return refused(changed.setting, changed.reason);
      if (changed.kind !== 'ok') return refused('account', 'not found');
    }
    return kit.seeOther(reply, `${settingsPath(account.name)}?done=saved`);
  });
}

function settingsPage(chrome: Chrome, account: Account, form: Readonly<Record<string, string>> = {}, error?: { setting: string; reason: string }): string {
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
