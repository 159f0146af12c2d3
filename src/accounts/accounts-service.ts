import type { Clock } from '../common/clock.js';
import { UniqueViolation } from '../store/errors.js';
import { DEFAULT_SETTINGS, type Account } from './account.js';
import { ACCOUNT_NAME, applySettingsPatch, type SettingsPatch } from './account-rules.js';
import type { AccountStore } from './account-store.js';
import { apiKeyMatches, digestApiKey, generateApiKey } from './api-key.js';

export type AccountChange =
  | { kind: 'ok'; account: Account }
  | { kind: 'not-found' }
  | { kind: 'invalid'; setting: string; reason: string };

export type AccountCreation =
  | { kind: 'created'; account: Account; apiKey: string }
  | { kind: 'name-taken' }
  | { kind: 'invalid'; setting: string; reason: string };

// Compared against when the account does not exist, so that the answer takes as long.
const ABSENT_DIGEST = digestApiKey(generateApiKey());

export const DEMO_ACCOUNT = 'demo';

export class AccountsService {
  constructor(
    private readonly store: AccountStore,
    private readonly clock: Clock,
  ) {}

  async create(name: string, patch: SettingsPatch = {}): Promise<AccountCreation> {
    if (!ACCOUNT_NAME.test(name)) {
      return { kind: 'invalid', setting: 'name', reason: 'must be 3 to 64 of a-z 0-9 . _ -' };
    }
    const checked = applySettingsPatch(DEFAULT_SETTINGS, patch);
    if (!checked.ok) return { kind: 'invalid', setting: checked.setting, reason: checked.reason };
    const apiKey = generateApiKey();
    try {
      const account = await this.store.insertAccount({
        name,
        apiKeyDigest: digestApiKey(apiKey),
        settings: checked.settings,
        createdAt: this.clock(),
      });
      return { kind: 'created', account, apiKey };
    } catch (error) {
      if (error instanceof UniqueViolation) return { kind: 'name-taken' };
      throw error;
    }
  }

  /**
   * The account named `user` when `apiKey` is its key. An unknown user and a wrong key are
   * indistinguishable to the caller, in answer and in time.
   */
  async authenticate(user: string | undefined, apiKey: string | undefined): Promise<Account | undefined> {
    const account = user ? await this.store.findAccountByName(user) : undefined;
    const matches = apiKeyMatches(account?.apiKeyDigest ?? ABSENT_DIGEST, apiKey ?? '');
    return account && matches && apiKey ? account : undefined;
  }

  find(name: string): Promise<Account | undefined> {
    return this.store.findAccountByName(name);
  }

  list(): Promise<Account[]> {
    return this.store.listAccounts();
  }

  countMembers(account: Account): Promise<Record<string, number>> {
    return this.store.countMembersByStatus(account.id);
  }

  async change(name: string, patch: SettingsPatch): Promise<AccountChange> {
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    const checked = applySettingsPatch(account.settings, patch);
    if (!checked.ok) return { kind: 'invalid', setting: checked.setting, reason: checked.reason };
    if (!(await this.store.updateAccountSettings(account.id, checked.settings))) return { kind: 'not-found' };
    return { kind: 'ok', account: { ...account, settings: checked.settings } };
  }

  /** A new key replaces the old one at once; the old key stops working. */
  async rotateKey(name: string): Promise<{ kind: 'ok'; apiKey: string } | { kind: 'not-found' }> {
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    const apiKey = generateApiKey();
    if (!(await this.store.setApiKeyDigest(account.id, digestApiKey(apiKey)))) return { kind: 'not-found' };
    return { kind: 'ok', apiKey };
  }

  async delete(name: string): Promise<boolean> {
    const account = await this.store.findAccountByName(name);
    return account ? this.store.deleteAccount(account.id) : false;
  }

  /**
   * On a store without any account, creates `demo` so that a first start gives a working
   * service. Returns its key, to be shown once, or undefined when accounts already exist.
   */
  async ensureDemoAccount(): Promise<string | undefined> {
    if ((await this.store.countAccounts()) > 0) return undefined;
    const created = await this.create(DEMO_ACCOUNT);
    // Another instance starting at the same moment may have won the race; it prints the key.
    return created.kind === 'created' ? created.apiKey : undefined;
  }
}
