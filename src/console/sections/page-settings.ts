/**
 * The member pages' settings (owners): registration and its fields, the allowed return
 * origins, the look, the language, the check's headers; and the other sites whose pasted forms
 * reached the pages, to allow one. Read as `account set` reads each option.
 */
import type { FastifyInstance } from 'fastify';
import type { SettingsPatch } from '../../accounts/account.js';
import { ACCOUNT_SETTINGS, SettingValueError } from '../../accounts/account-settings.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { memberPagesPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t } from '../views/layout.js';
import { memberPagesSettingsPage } from '../views/page-settings.js';

/** The form's fields, by the setting each sets (the command line's option names). */
const FORM_SETTINGS: Record<string, string> = {
  registration: 'registration',
  registration_fields: 'registration-fields',
  field_texts: 'field-texts',
  return_origins: 'return-origins',
  page_name: 'page-name',
  page_logo: 'page-logo',
  page_accent: 'page-accent',
  page_language: 'page-language',
  check_fields: 'check-fields',
  cookie_domain: 'cookie-domain',
};

/** The patch a settings form asks for, read as the command line reads each option; or the first value that cannot be read. */
function patchOfForm(form: Readonly<Record<string, string>>): { ok: true; patch: SettingsPatch } | { ok: false; setting: string; reason: string } {
  let patch = {} as SettingsPatch;
  for (const [field, option] of Object.entries(FORM_SETTINGS)) {
    const sent = form[field];
    if (sent === undefined) continue;
    const spec = ACCOUNT_SETTINGS.find((candidate) => candidate.option === option)!;
    try {
      const text = field === 'return_origins' ? sent.replace(/\s+/g, ',') : sent;
      patch = spec.set(patch as never, spec.kind.parse(text.trim())) as SettingsPatch;
    } catch (error) {
      if (error instanceof SettingValueError) return { ok: false, setting: option, reason: error.message };
      throw error;
    }
  }
  return { ok: true, patch };
}

export async function memberPagesSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const chrome = { operator: seen.operator, account: seen.account.name, notice: doneNotice(request) };
    const [origins, pageLayout] = await Promise.all([
      deps.accounts.formOrigins(seen.account),
      seen.operator.administrator ? deps.accounts.pageLayout(seen.account) : undefined,
    ]);
    return send(reply, 200, memberPagesSettingsPage(chrome, seen.account, {}, undefined, origins, pageLayout));
  });

  // The page layout: the server's administrators only (its HTML is served on this server's
  // origin, around every page of the account). The same service as `account page-template`.
  scope.post('/layout', { config: { access: 'administrator' } }, async (request, reply) => {
    const seen = onAccount(request);
    const form = formOf(request);
    const text = form.built_in === '1' ? undefined : (form.layout ?? '').replaceAll('\r\n', '\n');
    const set = await deps.accounts.setPageTemplate(seen.account.name, text);
    if (set.kind === 'invalid') {
      const chrome = { operator: seen.operator, account: seen.account.name, notice: { kind: 'error' as const, text: t('layoutRefused') } };
      const own = (await deps.accounts.pageLayout(seen.account)).own;
      const origins = await deps.accounts.formOrigins(seen.account);
      return send(reply, 400, memberPagesSettingsPage(chrome, seen.account, {}, undefined, origins, { text: text ?? '', own, error: set.reason }));
    }
    return seeOther(reply, `${memberPagesPath(seen.account.name)}?done=${text === undefined ? 'layout-built-in' : 'layout-saved'}#layout`);
  });

  // An origin other sites' forms came from: allowed (added to the return origins), or dismissed.
  scope.post('/origins', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { origin = '', do: action } = formOf(request);
    const { account } = seen;
    const known = (await deps.accounts.formOrigins(account)).some((entry) => entry.origin === origin);
    if (known && action === 'allow') {
      const changed = await deps.accounts.change(account.name, { returnOrigins: [...new Set([...account.settings.returnOrigins, origin])] });
      if (changed.kind !== 'ok') {
        const refusal =
          changed.kind === 'invalid' ? { setting: changed.setting, reason: changed.reason } : { setting: 'account', reason: t('accountNotFound') };
        return send(reply, 400, memberPagesSettingsPage({ operator: seen.operator, account: account.name }, account, {}, refusal));
      }
    }
    if (known) await deps.accounts.forgetFormOrigin(account, origin);
    return seeOther(reply, `${memberPagesPath(account.name)}?done=${known && action === 'allow' ? 'origin-allowed' : 'saved'}`);
  });

  scope.post('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const form = formOf(request);
    const chrome = { operator: seen.operator, account: seen.account.name };
    const read = patchOfForm(form);
    if (!read.ok) return send(reply, 400, memberPagesSettingsPage(chrome, seen.account, form, read));
    const changed = await deps.accounts.change(seen.account.name, read.patch);
    if (changed.kind !== 'ok') {
      const refusal = changed.kind === 'invalid' ? { setting: changed.setting, reason: changed.reason } : { setting: 'account', reason: t('accountNotFound') };
      return send(reply, 400, memberPagesSettingsPage(chrome, seen.account, form, refusal));
    }
    return seeOther(reply, `${memberPagesPath(seen.account.name)}?done=saved`);
  });
}
