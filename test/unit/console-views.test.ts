/**
 * The console's views rendered with fixture data, without a server: each page in its frame,
 * every value from data escaped, no script; and what each shows by role.
 */
import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../../src/accounts/account.js';
import { parseRegistrationFields } from '../../src/accounts/registration-fields.js';
import type { WebhookEndpoint } from '../../src/webhooks/webhook.js';
import { confirmBulkPage, countTyped } from '../../src/console/views/bulk.js';
import { keysPage } from '../../src/console/views/keys.js';
import { messagePage } from '../../src/console/views/layout.js';
import { confirmDeletePage, memberCreatedPage, memberPage, newMemberPage, type MemberView } from '../../src/console/views/member.js';
import { membersPage, type MembersView } from '../../src/console/views/members.js';
import { operatorsPage } from '../../src/console/views/operators.js';
import { overviewPage } from '../../src/console/views/overview.js';
import { memberPagesSettingsPage } from '../../src/console/views/page-settings.js';
import { registrationsPage } from '../../src/console/views/registrations.js';
import { setupPage, signInPage } from '../../src/console/views/session.js';
import { accountsPage } from '../../src/console/views/accounts.js';
import { settingsPage } from '../../src/console/views/settings.js';
import { exportPage, uploadPage } from '../../src/console/views/transfer.js';
import { enrolPage, recoveryCodesPage, secondStepPage } from '../../src/console/views/two-step.js';
import { webhooksPage } from '../../src/console/views/webhooks.js';
import { fixtureAccount, fixtureMember, fixtureOperator } from '../support/views.js';

const HOSTILE = '"><script>alert(1)</script>';
const fields = parseRegistrationFields('first_name*:text:First name;plan:choice(gold|silver):Plan');
if (!fields.ok) throw new Error(fields.reason);
const account = fixtureAccount({ registration: 'approval', registrationFields: fields.fields });
const owner = fixtureOperator('owner');
const chrome = { operator: owner, account: 'garden' };
const member = fixtureMember({ login: HOSTILE, email: 'ann@example.com' });
const key: ApiKey = {
  id: 1,
  accountId: 7,
  name: HOSTILE,
  digest: 'ab'.repeat(32),
  scope: 'all',
  createdAt: Date.UTC(2026, 0, 1),
  expiresAt: null,
  lastUsedAt: null,
};
const endpoint: WebhookEndpoint = {
  id: 4,
  accountId: 7,
  name: HOSTILE,
  url: 'https://hooks.example.com/in',
  secret: 'whsec_x',
  types: undefined,
  createdAt: Date.UTC(2026, 0, 1),
  cursor: 0,
  disabledAt: null,
  disabledReason: null,
};
const membersView = (role: MembersView['role']): MembersView => ({
  account: 'garden',
  role,
  form: { q: HOSTILE },
  columns: ['city'],
  members: [{ member, profile: new Map([['city', HOSTILE]]) }],
  total: 1,
  at: 1,
});
const memberView = (role: MemberView['role']): MemberView => ({
  account: 'garden',
  role,
  member,
  profile: new Map([['city', HOSTILE]]),
  lockedUntil: null,
  logins: [],
  history: [],
  sessions: [],
  mailOn: true,
  now: Date.UTC(2026, 10, 28),
});

/** Every page view, with data that tries to break out of its markup. */
const PAGES: Record<string, () => string> = {
  message: () => messagePage(HOSTILE, HOSTILE, chrome, { href: '/admin/', text: HOSTILE }),
  signIn: () => signInPage({}, HOSTILE),
  setup: () => setupPage({}, HOSTILE, HOSTILE),
  accounts: () => accountsPage({ operator: owner }),
  members: () => membersPage(chrome, membersView('owner')),
  member: () => memberPage(chrome, memberView('owner')),
  newMember: () => newMemberPage(chrome, account, { login: HOSTILE }),
  confirmDelete: () => confirmDeletePage(chrome, 'garden', member),
  created: () => memberCreatedPage(chrome, 'garden', { id: 9, login: HOSTILE, password: HOSTILE }),
  bulk: () =>
    confirmBulkPage(chrome, {
      account: 'garden',
      title: 'Suspend',
      text: HOSTILE,
      count: 3,
      sample: [member],
      target: '/admin/x',
      action: { action: 'suspend', count: '3', id_sum: '12' },
      back: '/admin/y',
    }),
  registrations: () =>
    registrationsPage(chrome, {
      account,
      members: [{ id: 9, login: HOSTILE, email: 'a@example.com', regAt: 0, profile: new Map([['plan', HOSTILE]]) }],
      total: 1,
    }),
  keys: () => keysPage(chrome, account, [key], { key, apiKey: HOSTILE }),
  operators: () => operatorsPage(chrome, account, [owner], { email: HOSTILE, link: `https://example.com/admin/setup?token=${HOSTILE}` }),
  overview: () =>
    overviewPage(chrome, 'garden', {
      byStatus: { A: 3, S: 1, D: 0 },
      days: [{ day: '2026-11-28', registered: 1, loginOk: 2, loginFailed: 1, loginLocked: 0 }],
      expiring: { count: 0, countedUpTo: 10_000, members: [] },
      failedLogins: [],
    }),
  pageSettings: () => memberPagesSettingsPage(chrome, account, { page_name: HOSTILE }, { setting: 'page-name', reason: HOSTILE }),
  settings: () => settingsPage(chrome, account, { ok_url: HOSTILE }, { 'ok-url': HOSTILE }),
  export: () => exportPage(chrome, { account: 'garden', back: '/admin/', search: '', total: 1, columns: ['id', HOSTILE], query: { q: HOSTILE } }),
  upload: () => uploadPage(chrome, 'garden', 1024),
  secondStep: () => secondStepPage({}),
  enrol: () => enrolPage(chrome, { secret: HOSTILE, uri: `otpauth://totp/${HOSTILE}` }),
  recoveryCodes: () => recoveryCodesPage(chrome, [HOSTILE]),
  webhooks: () => webhooksPage(chrome, account, [endpoint], { secret: HOSTILE }),
};

describe('every console view', () => {
  it.each(Object.keys(PAGES))('%s: in the console’s frame, no script, every value escaped', (name) => {
    const page = PAGES[name]!();
    expect(page).toMatch(/^<!doctype html>\s*<html lang="en">/);
    expect(page).toMatch(/<title>[^<]+ · member-api console<\/title>/);
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toContain(HOSTILE);
  });
});

describe('what a role sees', () => {
  const nav = (page: string) => [...(/<nav class="account-nav"[^>]*>([\s\S]*?)<\/nav>/.exec(page)?.[1] ?? '').matchAll(/>([^<]+)<\/a>/g)].map((m) => m[1]);

  it('the navigation lists the pages a role opens, the current one marked', () => {
    const ownerPage = membersPage(chrome, membersView('owner'));
    expect(nav(ownerPage)).toEqual(['Overview', 'Members', 'Registrations', 'Member pages', 'Settings', 'Mail', 'API keys', 'Operators', 'Webhooks', 'Plans']);
    expect(ownerPage).toContain('<a href="/admin/accounts/garden/members" class="current">Members</a>');
    const viewer = { operator: fixtureOperator('viewer'), account: 'garden' };
    expect(nav(membersPage(viewer, membersView('viewer')))).toEqual(['Overview', 'Members', 'Registrations']);
  });

  it('a viewer gets no way to change a member: no new member, export, import, bulk action or edit form', () => {
    const viewer = { operator: fixtureOperator('viewer'), account: 'garden' };
    const list = membersPage(viewer, membersView('viewer'));
    expect(list).not.toContain('/members/new');
    expect(list).not.toContain('/members/import');
    const one = memberPage(viewer, memberView('viewer'));
    expect(one).not.toContain('/edit"');
    expect(one).not.toContain('/status"');
    expect(memberPage(chrome, memberView('owner'))).toContain(`action="/admin/accounts/garden/members/${member.id}/edit"`);
  });
});

describe('pages that show a secret once', () => {
  it('the new key and the invitation’s link are shown on the page that made them', () => {
    expect(keysPage(chrome, account, [key], { key, apiKey: 'mk_live_abc' })).toContain('mk_live_abc');
    expect(keysPage(chrome, account, [key])).not.toContain('mk_live_abc');
    expect(operatorsPage(chrome, account, [owner], { email: 'new@example.com', link: 'https://example.com/admin/setup?token=t0k' })).toContain(
      'https://example.com/admin/setup?token=t0k',
    );
  });

  it('a bulk confirmation carries the preview’s count and id sum, which the change must find again', () => {
    const page = PAGES.bulk!();
    expect(page).toContain('<input type="hidden" name="count" value="3">');
    expect(page).toContain('<input type="hidden" name="id_sum" value="12">');
    expect(page).not.toContain('name="typed_count"');
  });

  it('a change of more than 1,000 members is in the danger colour and asks for their number, typed', () => {
    const view = { account: 'garden', title: 'Suspend', text: 'x', count: 20_003, sample: [member], target: '/admin/x', back: '/admin/y' };
    const page = confirmBulkPage(chrome, { ...view, action: { action: 'suspend', count: '20003', id_sum: '12' } });
    expect(page).toContain('type their number, 20,003, to go on');
    expect(page).toContain('name="typed_count"');
    expect(page).toMatch(/<button type="submit" class="danger">Suspend: 20,003 members<\/button>/);
    expect(countTyped({ typed_count: '20,003' }, 20_003)).toBe(true);
    expect(countTyped({ typed_count: '20003' }, 20_003)).toBe(true);
    expect(countTyped({ typed_count: '20000' }, 20_003)).toBe(false);
    expect(countTyped({}, 20_003)).toBe(false);
    expect(countTyped({}, 1_000)).toBe(true);
  });
});
