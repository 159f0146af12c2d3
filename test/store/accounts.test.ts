import { expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/accounts/account.js';
import { UniqueViolation } from '../../src/store/errors.js';
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
    };
    const created = await store.accounts.insertAccount({ name, apiKeyDigest: 'cd'.repeat(32), settings, createdAt: 1_700_000_000_000 });
    expect(created.id).toBeGreaterThan(0);
    const found = await store.accounts.findAccountByName(name);
    expect(found).toEqual({ id: created.id, name, apiKeyDigest: 'cd'.repeat(32), settings, createdAt: 1_700_000_000_000 });
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

  it('changes settings and the key digest of one account only', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const b = await insertAccount(store);
    const settings = { ...DEFAULT_SETTINGS, okUrl: '/welcome', timeZone: 'Asia/Tokyo' };
    expect(await store.accounts.updateAccountSettings(a.id, settings)).toBe(true);
    expect(await store.accounts.setApiKeyDigest(a.id, 'ef'.repeat(32))).toBe(true);
    expect((await store.accounts.findAccountByName(a.name))?.settings).toEqual(settings);
    expect((await store.accounts.findAccountByName(a.name))?.apiKeyDigest).toBe('ef'.repeat(32));
    expect(await store.accounts.findAccountByName(b.name)).toEqual(b);
    expect(await store.accounts.updateAccountSettings(999_999_999, settings)).toBe(false);
    expect(await store.accounts.setApiKeyDigest(999_999_999, 'ef'.repeat(32))).toBe(false);
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
    expect(await store.members.getProfile(b.id, memberB)).toEqual(new Map([['city', 'Rome']]));
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
