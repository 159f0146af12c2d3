import type { Account, AccountSettings, ApiKey, KeyScope } from './account.js';

/** A key to store: its digest only, never the key. */
export interface NewApiKey {
  readonly name: string;
  readonly digest: string;
  readonly scope: KeyScope;
  readonly createdAt: number;
  readonly expiresAt: number | null;
}

/** A key being replaced: its new name (freeing the old one) and when it stops working. */
export interface KeyRetirement {
  readonly id: number;
  readonly name: string;
  readonly expiresAt: number;
}

/** What the accounts service needs from storage. Accounts are installation-wide. */
/** Another site whose pasted form reached the account's pages: how often, and when last. */
export interface FormOrigin {
  readonly origin: string;
  readonly posts: number;
  readonly lastAt: number;
}

export interface AccountStore {
  /** Creates the account with its first key, together. Fails with `UniqueViolation` when the name is taken. */
  insertAccount(account: { name: string; settings: AccountSettings; createdAt: number }, key: NewApiKey): Promise<Account>;
  findAccountByName(name: string): Promise<Account | undefined>;
  findAccountById(id: number): Promise<Account | undefined>;
  /** The account and its keys (expired ones included), in one read: what authenticating a request needs. */
  findAccountWithKeys(name: string): Promise<{ account: Account; keys: ApiKey[] } | undefined>;
  listAccounts(): Promise<Account[]>;
  countAccounts(): Promise<number>;
  /** Returns false when there is no such account. */
  updateAccountSettings(accountId: number, settings: AccountSettings): Promise<boolean>;
  /** Removes the account and everything it owns. */
  deleteAccount(accountId: number): Promise<boolean>;
  /** The account's own layout of its member pages, if it set one. */
  findPageTemplate(accountId: number): Promise<string | undefined>;
  /** Sets the account's layout, or (undefined) goes back to the built-in one. */
  setPageTemplate(accountId: number, text: string | undefined): Promise<void>;
  /**
   * Notes a post from another site's page (a pasted form from an origin not allowed): counted
   * per origin, at most `limit` origins kept per account (more are not noted).
   */
  noteFormOrigin(accountId: number, origin: string, at: number, limit: number): Promise<void>;
  /** The origins noted, the latest first; `forget` drops one (allowed, or dismissed). */
  formOrigins(accountId: number): Promise<FormOrigin[]>;
  forgetFormOrigin(accountId: number, origin: string): Promise<void>;
  /** Members per status, for `account show`. */
  countMembersByStatus(accountId: number): Promise<Record<string, number>>;

  /** The account's keys, oldest first. */
  listKeys(accountId: number): Promise<ApiKey[]>;
  insertKey(accountId: number, key: NewApiKey): Promise<ApiKey>;
  /** Adds `key` and renames the keys in `retire`, setting when they stop working, in one transaction. */
  replaceKey(accountId: number, key: NewApiKey, retire: ReadonlyArray<KeyRetirement>): Promise<ApiKey>;
  /** Deletes the keys named `name`; answers how many there were. */
  deleteKeys(accountId: number, name: string): Promise<number>;
  /** Records that a key was used (called at most once a minute per key). */
  touchKey(keyId: number, at: number): Promise<void>;
}
