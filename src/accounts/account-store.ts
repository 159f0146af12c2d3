import type { Account, AccountSettings } from './account.js';

/** What the accounts service needs from storage. Accounts are installation-wide. */
export interface AccountStore {
  /** Fails with `UniqueViolation` when the name is taken. */
  insertAccount(account: { name: string; apiKeyDigest: string; settings: AccountSettings; createdAt: number }): Promise<Account>;
  findAccountByName(name: string): Promise<Account | undefined>;
  listAccounts(): Promise<Account[]>;
  countAccounts(): Promise<number>;
  /** Returns false when there is no such account. */
  updateAccountSettings(accountId: number, settings: AccountSettings): Promise<boolean>;
  setApiKeyDigest(accountId: number, apiKeyDigest: string): Promise<boolean>;
  /** Removes the account and everything it owns. */
  deleteAccount(accountId: number): Promise<boolean>;
  /** Members per status, for `account show`. */
  countMembersByStatus(accountId: number): Promise<Record<string, number>>;
}
