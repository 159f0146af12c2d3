/** Fixtures for the views' own tests: an account, the chrome of its member pages, a member and an operator, without a server or a store. */
import { DEFAULT_SETTINGS, type Account, type AccountSettings } from '../../src/accounts/account.js';
import { pageTemplateOf } from '../../src/accounts/page-template.js';
import { pickLanguage, translator } from '../../src/messages/catalog.js';
import type { Chrome } from '../../src/pages/views/layout.js';
import type { Member } from '../../src/members/member.js';
import type { Operator, Role } from '../../src/operators/operator.js';

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

/** A member as the console's views show one: Active, registered by the API, a few logins. */
export function fixtureMember(fields: Partial<Member> = {}): Member {
  const member = {
    id: 1042,
    accountId: 7,
    login: 'ann.lee',
    email: 'ann.lee@example.com',
    passwordHash: 'fixture',
    status: 'A',
    regType: 'A',
    regAt: Date.UTC(2026, 2, 1, 9, 30),
    regIp: '203.0.113.5',
    loginCount: 12,
    lastLoginAt: Date.UTC(2026, 10, 20, 18, 5),
    lastLoginIp: '203.0.113.5',
    timeExpiry: null,
    loginExpiry: null,
    ...fields,
  };
  return member as unknown as Member;
}

/** An operator with a role on the fixture account. */
export function fixtureOperator(role: Role = 'owner'): Operator {
  return {
    id: 3,
    email: 'owner@example.com',
    hasPassword: true,
    twoStep: false,
    administrator: false,
    createdAt: Date.UTC(2026, 0, 1),
    accounts: [{ accountId: 7, account: 'garden', role }],
  };
}
