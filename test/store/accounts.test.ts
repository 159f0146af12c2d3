import { expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/accounts/account.js';
import { UniqueViolation } from '../../src/common/store-errors.js';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember, uniqueName } from '../support/factories.js';

describeEachEngine('account store', (context) => {
  it('stores an account and finds it by name with every setting', async () => {
    const { store } = context();
    const name = uniqueName();
    const settings = {
      okUrl: 'https://example.com/ok',
      failUrl: '/fail',
      minPasswordLength: 10,
      timeZone: 'Europe/Paris',
      lockout: { threshold: 5, stepSeconds: 30, maxSeconds: 300, resetSeconds: 600 },
      rateLimitPerMinute: 120,
      loginRateLimitPerMinute: 30,
      storageQuotaMb: 64,
      loginEvents: true,
      expiryWarningSeconds: 604800,
      sessionIdleSeconds: 1800,
      sessionLifetimeSeconds: 86400,
      resetLifetimeSeconds: 600,
      smtpUrl: 'smtp://mailer:secret@127.0.0.1:2525',
      mailFrom: 'Site <no-reply@example.com>',
      sessionFields: ['reg_date', 'city'],
      getWrites: false,
      messages: 'original' as const,
      passwordCheck: 'off' as const,
      registration: 'approval' as const,
      registrationFields: [
        { name: 'first_name', label: 'First name', required: true, editable: true, kind: 'text' as const, choices: [] },
        { name: 'plan', label: 'plan', required: false, editable: false, kind: 'choice' as const, choices: ['gold', 'silver'] },
      ],
      fieldTexts: new Map([
        ['fr:first_name', 'Prénom'],
        ['fr:plan(gold)', 'Or'],
      ]),
      returnOrigins: ['https://www.example.com', 'http://127.0.0.1:8080'],
      pageName: 'The Club',
      pageLogoUrl: 'https://cdn.example.com/logo.png',
      pageAccent: '#0f766e',
      pageLanguage: 'fr' as const,
      checkFields: ['plan'],
      cookieDomain: 'example.com',
      operatorsTwoStep: 'required' as const,
      requireEmail: true,
    };
    const key = { name: 'default', digest: 'cd'.repeat(32), scope: 'all', createdAt: 1_700_000_000_000, expiresAt: null } as const;
    const created = await store.accounts.insertAccount({ name, settings, createdAt: 1_700_000_000_000 }, key);
    expect(created.id).toBeGreaterThan(0);
    const found = await store.accounts.findAccountByName(name);
    expect(found).toEqual({ id: created.id, name, settings, createdAt: 1_700_000_000_000 });
    const withKeys = await store.accounts.findAccountWithKeys(name);
    expect(withKeys?.account).toEqual(found);
    expect(withKeys?.keys).toEqual([{ ...key, id: expect.any(Number), accountId: created.id, lastUsedAt: null }]);
  });

  it('refuses a second account with the same name', async () => {
    const { store } = context();
    const account = await insertAccount(context().store);
    await expect(insertAccount(store, account.name)).rejects.toBeInstanceOf(UniqueViolation);
  });

  it('answers undefined for an unknown name', async () => {
    expect(await context().store.accounts.findAccountByName('no-such-account')).toBeUndefined();
  });

  it('lists and counts accounts', async () => {
    const { store } = context();
    const before = await store.accounts.countAccounts();
    const a = await insertAccount(store);
    expect(await store.accounts.countAccounts()).toBe(before + 1);
    expect((await store.accounts.listAccounts()).map((x) => x.name)).toContain(a.name);
  });

  it('changes settings of one account only', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const b = await insertAccount(store);
    const settings = { ...DEFAULT_SETTINGS, okUrl: '/welcome', timeZone: 'Asia/Tokyo' };
    expect(await store.accounts.updateAccountSettings(a.id, settings)).toBe(true);
    expect((await store.accounts.findAccountByName(a.name))?.settings).toEqual(settings);
    expect(await store.accounts.findAccountByName(b.name)).toEqual(b);
    expect(await store.accounts.updateAccountSettings(999_999_999, settings)).toBe(false);
  });

  it('keeps an account’s keys: adds, replaces with a grace period, touches, deletes, purges, and never another account’s', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const b = await insertAccount(store);
    const [first] = await store.accounts.listKeys(a.id);
    const reader = await store.accounts.insertKey(a.id, { name: 'reports', digest: `r-${a.id}`, scope: 'read', createdAt: 1, expiresAt: 5_000 });
    expect(reader).toMatchObject({ name: 'reports', scope: 'read', expiresAt: 5_000, accountId: a.id });
    const replacement = await store.accounts.replaceKey(a.id, { name: 'default', digest: `n-${a.id}`, scope: 'all', createdAt: 2, expiresAt: null }, [
      { id: first!.id, name: `default.retired-${first!.id}`, expiresAt: 3_600_000 },
    ]);
    expect((await store.accounts.listKeys(a.id)).map((k) => [k.name, k.expiresAt])).toEqual([
      [`default.retired-${first!.id}`, 3_600_000],
      ['reports', 5_000],
      ['default', null],
    ]);
    await store.accounts.touchKey(replacement.id, 42);
    expect((await store.accounts.findAccountWithKeys(a.name))?.keys.find((k) => k.id === replacement.id)?.lastUsedAt).toBe(42);
    expect(await store.accounts.deleteKeys(b.id, 'reports')).toBe(0);
    expect(await store.accounts.deleteKeys(a.id, 'reports')).toBe(1);
    expect(await store.housekeeping.purgeExpiredKeys(4_000_000)).toBeGreaterThanOrEqual(1);
    expect((await store.accounts.listKeys(a.id)).map((k) => k.name)).toEqual(['default']);
    expect((await store.accounts.listKeys(b.id)).map((k) => k.name)).toEqual(['default']);
  });

  it('deletes an account with its members, and nothing of another account', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const b = await insertAccount(store);
    const memberA = await insertMember(store, a.id, { login: 'same', profile: new Map([['city', 'Oslo']]) });
    const memberB = await insertMember(store, b.id, { login: 'same', profile: new Map([['city', 'Rome']]) });
    expect(await store.accounts.deleteAccount(a.id)).toBe(true);
    expect(await store.accounts.findAccountByName(a.name)).toBeUndefined();
    expect(await store.members.findMemberById(a.id, memberA)).toBeUndefined();
    expect(await store.members.findMemberById(b.id, memberB)).toBeDefined();
    expect(await context().store.members.findProfile(b.id, memberB)).toEqual(new Map([['city', 'Rome']]));
    expect(await store.accounts.deleteAccount(a.id)).toBe(false);
  });

  it('counts members by status, per account', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const b = await insertAccount(store);
    await insertMember(store, a.id, { status: 'A' });
    await insertMember(store, a.id, { status: 'A' });
    await insertMember(store, a.id, { status: 'S' });
    await insertMember(store, b.id, { status: 'D' });
    expect(await store.accounts.countMembersByStatus(a.id)).toEqual({ A: 2, S: 1 });
    expect(await store.accounts.countMembersByStatus(b.id)).toEqual({ D: 1 });
  });

  it('keeps a secret made once', async () => {
    const { store } = context();
    const first = await store.secret('test-secret', () => 'one');
    const second = await store.secret('test-secret', () => 'two');
    expect(first).toBe('one');
    expect(second).toBe('one');
  });
});
