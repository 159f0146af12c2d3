import { randomUUID } from 'node:crypto';
import { DEFAULT_SETTINGS, type Account } from '../../src/accounts/account.js';
import type { NewMember } from '../../src/members/member.js';
import type { Store } from '../../src/store/store.js';

/** A unique name, so that every test owns its data even on a shared store. */
export function uniqueName(prefix = 'acct'): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function insertAccount(store: Store, name = uniqueName()): Promise<Account> {
  return store.accounts.insertAccount(
    { name, settings: DEFAULT_SETTINGS, createdAt: Date.now() },
    { name: 'default', digest: randomUUID(), scope: 'all', createdAt: Date.now(), expiresAt: null },
  );
}

export function newMember(overrides: Partial<NewMember> = {}): NewMember {
  const login = overrides.login ?? uniqueName('member');
  return {
    login,
    email: `${login}@example.com`,
    passwordHash: 'not-a-real-hash',
    status: 'A',
    regType: 'A',
    regAt: Date.now(),
    regIp: null,
    urlOk: null,
    urlFail: null,
    timeExpiry: null,
    loginExpiry: null,
    profile: new Map(),
    ...overrides,
  };
}

export async function insertMember(store: Store, accountId: number, overrides: Partial<NewMember> = {}): Promise<number> {
  return store.members.insertMember(accountId, newMember(overrides), { actor: 'api' });
}
