/** Fixtures for the views' own tests: the chrome of an account's member pages, and of the console, without a server or a store. */
import { DEFAULT_SETTINGS, type Account, type AccountSettings } from '../../src/accounts/account.js';
import { pageTemplateOf } from '../../src/accounts/page-template.js';
import { pickLanguage, translator } from '../../src/messages/catalog.js';
import type { Chrome } from '../../src/pages/views/layout.js';

/** An account as the views see it: a name, an id, and the defaults but what a test sets. */
export function fixtureAccount(settings: Partial<AccountSettings> = {}, name = 'garden'): Account {
  return { id: 7, name, createdAt: Date.UTC(2026, 0, 1), settings: { ...DEFAULT_SETTINGS, ...settings } };
}

/** The chrome of a member page of that account, in a language (English by default). */
export function pageChrome(settings: Partial<AccountSettings> = {}, acceptLanguage = 'en'): Chrome {
  const account = fixtureAccount(settings);
  const language = pickLanguage(account.settings.pageLanguage, acceptLanguage);
  return {
    account,
    t: translator(language),
    language,
    base: `/auth/${account.name}/`,
    template: pageTemplateOf(undefined),
    formToken: 'fixture-form-token-0000000',
    freshFormToken: false,
  };
}
