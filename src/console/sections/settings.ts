/**
 * The account's settings in the console (owners): every setting `account set` takes, but the
 * member pages' (they have their own page), each shown as `account show` shows it and read,
 * when it was changed, as the command line reads its option: the same checks and messages.
 */
import type { FastifyInstance } from 'fastify';
import { patchOf, SettingValueError, type SettingSpec } from '../../accounts/account-settings.js';
import { checkReceiver } from '../../webhooks/address-guard.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { settingsPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { SETTINGS, settingsPage, shownValue } from '../views/settings.js';

export async function settingsSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    return send(reply, 200, settingsPage({ operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account));
  });

  scope.post('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { account } = seen;
    const form = formOf(request);
    const chrome: Chrome = { operator: seen.operator, account: account.name };
    const refused = (setting: string, reason: string) => send(reply, 400, settingsPage(chrome, account, form, { [setting]: reason }));
    // Only what was changed is read: a value left as shown (a masked password) stays as it is.
    // Every value that cannot be read is said at once, beside its field; nothing is saved then.
    const values: Array<[SettingSpec, unknown]> = [];
    const errors: Record<string, string> = {};
    for (const spec of SETTINGS) {
      const sent = form[spec.option];
      if (sent === undefined || sent.trim() === shownValue(spec, account)) continue;
      try {
        const value = spec.kind.parse(sent.trim());
        const problem = spec.kind.check?.(value);
        if (problem) errors[spec.option] = problem;
        else values.push([spec, value]);
      } catch (error) {
        if (error instanceof SettingValueError) errors[spec.option] = error.message;
        else throw error;
      }
    }
    if (Object.keys(errors).length > 0) return send(reply, 400, settingsPage(chrome, account, form, errors));
    // An owner's mail server is a connection this server makes for them: to a public address
    // only, as a webhook's (the server's administrator sets a private one on the command line).
    const smtp = values.find(([spec]) => spec.option === 'smtp-url')?.[1];
    if (typeof smtp === 'string' && smtp !== '') {
      const blocked = await checkReceiver(new URL(smtp), deps.allowPrivateAddresses ?? false, t('settingsSmtpPublic'));
      if (blocked) return refused('smtp-url', blocked);
    }
    if (values.length > 0) {
      const changed = await deps.accounts.change(account.name, patchOf(values));
      if (changed.kind === 'invalid') return refused(changed.setting, changed.reason);
      if (changed.kind !== 'ok') return refused('account', t('accountNotFound'));
    }
    return seeOther(reply, `${settingsPath(account.name)}?done=saved`);
  });
}
