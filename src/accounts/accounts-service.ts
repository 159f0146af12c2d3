import { accountScope } from '../common/account-scope.js';
import type { Clock } from '../common/clock.js';
import { DEFAULT_PAGE_TEMPLATE, pageTemplateOf, parsePageTemplate, type PageTemplate } from './page-template.js';
import { UniqueViolation } from '../common/store-errors.js';
import { addPeriods, parsePeriod } from '../members/lifecycle.js';
import { DEFAULT_KEY_NAME, DEFAULT_SETTINGS, scopeAllows, type Account, type ApiKey, type KeyScope, type KeyUse } from './account.js';
import { ACCOUNT_NAME, applySettingsPatch, KEY_NAME, MAX_KEYS_PER_ACCOUNT, type SettingsPatch } from './account-rules.js';
import type { AccountStore, FormOrigin } from './account-store.js';
import { originOf } from '../common/validate.js';
import { apiKeyMatches, digestApiKey, generateApiKey } from './api-key.js';

export type AccountChange = { kind: 'ok'; account: Account } | { kind: 'not-found' } | { kind: 'invalid'; setting: string; reason: string };

export type AccountCreation =
  { kind: 'created'; account: Account; apiKey: string } | { kind: 'name-taken' } | { kind: 'invalid'; setting: string; reason: string };

/** A request's key checked: the account, and the key that opened it. */
export interface Authenticated {
  readonly account: Account;
  readonly key: ApiKey;
}

export type KeyIssue = { kind: 'issued'; key: ApiKey; apiKey: string } | { kind: 'not-found' } | { kind: 'invalid'; setting: string; reason: string };

export interface KeyOptions {
  readonly scope?: KeyScope;
  /** A period from now, like `7D` or `12h` (units m h D M Y). */
  readonly expires?: string;
}

// Compared against when the account does not exist, so that the answer takes as long.
const ABSENT_DIGEST = digestApiKey(generateApiKey());

/** `last_used_at` is written at most this often per key, so that using a key costs no write per request. */
const TOUCH_INTERVAL_MS = 60_000;

export const DEMO_ACCOUNT = 'demo';

/** The other sites' origins noted per account (what a forger could fill the list with is bounded). */
const FORM_ORIGINS_KEPT = 20;

/** How long `findRecent` answers from memory. */
export const RECENT_ACCOUNT_MS = 1_000;

/** Adds a found account to the current request's scope, and answers it. */
function scoped(account: Account | undefined): Account | undefined {
  if (account) accountScope.add(account.id);
  return account;
}

export class AccountsService {
  private readonly touched = new Map<number, number>();
  private readonly recent = new Map<string, { account: Account | undefined; at: number }>();
  private readonly layouts = new Map<number, { template: PageTemplate; at: number }>();

  constructor(
    private readonly store: AccountStore,
    private readonly clock: Clock,
  ) {}

  async create(name: string, patch: SettingsPatch = {}): Promise<AccountCreation> {
    if (!ACCOUNT_NAME.test(name)) {
      return { kind: 'invalid', setting: 'name', reason: 'must be 3 to 64 of A-Z a-z 0-9 . _ -' };
    }
    const checked = applySettingsPatch(DEFAULT_SETTINGS, patch);
    if (!checked.ok) return { kind: 'invalid', setting: checked.setting, reason: checked.reason };
    const apiKey = generateApiKey();
    const now = this.clock();
    try {
      const account = await this.store.insertAccount(
        { name, settings: checked.settings, createdAt: now },
        { name: DEFAULT_KEY_NAME, digest: digestApiKey(apiKey), scope: 'all', createdAt: now, expiresAt: null },
      );
      return { kind: 'created', account, apiKey };
    } catch (error) {
      if (error instanceof UniqueViolation) return { kind: 'name-taken' };
      throw error;
    }
  }

  /**
   * The account named `user` and its key matching `apiKey`, when that key has not expired.
   * An unknown user and a wrong key are indistinguishable to the caller, in answer and in
   * time: every key is compared in constant time, and a dummy one when there is no account.
   */
  async authenticate(user: string | undefined, apiKey: string | undefined): Promise<Authenticated | undefined> {
    const found = user ? await this.store.findAccountWithKeys(user) : undefined;
    const now = this.clock();
    const presented = apiKey ?? '';
    let match: ApiKey | undefined;
    for (const key of found?.keys ?? []) {
      if (apiKeyMatches(key.digest, presented) && (key.expiresAt === null || key.expiresAt > now)) match = key;
    }
    if (!found) apiKeyMatches(ABSENT_DIGEST, presented);
    if (!found || !match || !apiKey) return undefined;
    accountScope.add(found.account.id);
    this.noteUse(match, now);
    return { account: found.account, key: match };
  }

  /** Whether an authenticated key may make a call of this kind. */
  allows(authenticated: Authenticated, use: KeyUse): boolean {
    return scopeAllows(authenticated.key.scope, use);
  }

  /** The account of this name; the current request acts for it from now (common/account-scope.ts). */
  async find(name: string): Promise<Account | undefined> {
    return scoped(await this.store.findAccountByName(name));
  }

  async byId(id: number): Promise<Account | undefined> {
    return scoped(await this.store.findAccountById(id));
  }

  list(): Promise<Account[]> {
    return this.store.listAccounts();
  }

  /**
   * Notes the origin of another site's page whose form reached the account's pages without
   * being allowed (`--return-origins`): the console lists them, to allow one. Only an http(s)
   * origin as browsers send it, and at most FORM_ORIGINS_KEPT per account.
   */
  async noteFormOrigin(account: Account, origin: string | undefined): Promise<void> {
    if (account.id === 0 || origin === undefined || origin.length > 200 || originOf(origin) !== origin) return;
    await this.store.noteFormOrigin(account.id, origin, this.clock(), FORM_ORIGINS_KEPT);
  }

  formOrigins(account: Account): Promise<FormOrigin[]> {
    return this.store.formOrigins(account.id);
  }

  forgetFormOrigin(account: Account, origin: string): Promise<void> {
    return this.store.forgetFormOrigin(account.id, origin);
  }

  countMembers(account: Account): Promise<Record<string, number>> {
    return this.store.countMembersByStatus(account.id);
  }

  /**
   * The account by name, from memory when it was read less than a second ago: for the keyless
   * checks an integrator's site makes on every page (/session/, /logout/), which would
   * otherwise read the account as often as the session. A setting changed by another process
   * is seen within that second; this process's own changes at once.
   */
  findRecent(name: string): Account | undefined | Promise<Account | undefined> {
    const now = this.clock();
    const kept = this.recent.get(name.toLowerCase());
    // From memory without a promise: the check that follows is the request's only wait.
    if (kept && now - kept.at < RECENT_ACCOUNT_MS && now >= kept.at) return scoped(kept.account);
    return this.readRecent(name, now).then(scoped);
  }

  private async readRecent(name: string, now: number): Promise<Account | undefined> {
    const account = await this.store.findAccountByName(name);
    // Bounded: names asked for that do not exist are kept too, a second each.
    if (this.recent.size >= 10_000) this.recent.clear();
    this.recent.set(name.toLowerCase(), { account, at: now });
    return account;
  }

  async change(name: string, patch: SettingsPatch): Promise<AccountChange> {
    this.recent.delete(name.toLowerCase());
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    const checked = applySettingsPatch(account.settings, patch);
    if (!checked.ok) return { kind: 'invalid', setting: checked.setting, reason: checked.reason };
    if (!(await this.store.updateAccountSettings(account.id, checked.settings))) return { kind: 'not-found' };
    this.recent.delete(name.toLowerCase());
    return { kind: 'ok', account: { ...account, settings: checked.settings } };
  }

  /** The layout of the account's member pages: its own (read once a second at most), or the built-in one. */
  async pageTemplate(account: Account): Promise<PageTemplate> {
    const now = this.clock();
    const known = this.layouts.get(account.id);
    if (known && now - known.at < RECENT_ACCOUNT_MS) return known.template;
    const template = pageTemplateOf(await this.store.findPageTemplate(account.id));
    if (this.layouts.size >= 10_000) this.layouts.clear();
    this.layouts.set(account.id, { template, at: now });
    return template;
  }

  /** Sets the account's layout (checked), or (undefined) the built-in one again. */
  async setPageTemplate(name: string, text: string | undefined): Promise<{ kind: 'set' } | { kind: 'not-found' } | { kind: 'invalid'; reason: string }> {
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    if (text !== undefined) {
      const parsed = parsePageTemplate(text);
      if (!parsed.ok) return { kind: 'invalid', reason: parsed.reason };
    }
    await this.store.setPageTemplate(account.id, text);
    this.layouts.delete(account.id);
    return { kind: 'set' };
  }

  /** The account's own layout's text, or the built-in one. */
  async pageTemplateText(account: Account): Promise<string> {
    return (await this.pageLayout(account)).text;
  }

  /** The layout's text in use, and whether it is the account's own. */
  async pageLayout(account: Account): Promise<{ text: string; own: boolean }> {
    const own = await this.store.findPageTemplate(account.id);
    return own === undefined ? { text: DEFAULT_PAGE_TEMPLATE, own: false } : { text: own, own: true };
  }

  /** The account's keys (digests, never keys), oldest first. */
  async keys(name: string): Promise<{ account: Account; keys: ApiKey[] } | undefined> {
    const account = await this.store.findAccountByName(name);
    return account && { account, keys: await this.store.listKeys(account.id) };
  }

  /** Issues a new named key; shown once. */
  async addKey(name: string, keyName: string, options: KeyOptions = {}): Promise<KeyIssue> {
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    const now = this.clock();
    const checked = await this.checkNewKey(account, keyName, options, now);
    if (checked.kind === 'invalid') return checked;
    const apiKey = generateApiKey();
    const key = await this.store.insertKey(account.id, {
      name: keyName,
      digest: digestApiKey(apiKey),
      scope: options.scope ?? 'all',
      createdAt: now,
      expiresAt: checked.expiresAt,
    });
    return { kind: 'issued', key, apiKey };
  }

  /**
   * Replaces the key named `keyName` (default `default`) with a new one of the same name and
   * scope. The old key keeps working for `grace` (a period like `1h`; none: it stops at once),
   * under the name `NAME.retired-ID`, so that deploying the new key is never an outage.
   */
  async rotateKey(name: string, options: { keyName?: string; grace?: string } = {}): Promise<KeyIssue> {
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    const keyName = options.keyName ?? DEFAULT_KEY_NAME;
    const now = this.clock();
    const current = (await this.store.listKeys(account.id)).filter((key) => key.name === keyName && (key.expiresAt === null || key.expiresAt > now));
    if (current.length === 0) return { kind: 'invalid', setting: 'key', reason: `the account has no key named "${keyName}"` };
    let retireAt = now;
    if (options.grace !== undefined) {
      const until = periodFromNow(options.grace, now, account.settings.timeZone);
      if (until === undefined) return { kind: 'invalid', setting: 'grace', reason: 'must be a period like 30m, 1h or 7D (units m h D M Y)' };
      retireAt = until;
    }
    const apiKey = generateApiKey();
    const key = await this.store.replaceKey(
      account.id,
      { name: keyName, digest: digestApiKey(apiKey), scope: current[0]!.scope, createdAt: now, expiresAt: current[0]!.expiresAt },
      current.map((old) => ({ id: old.id, name: `${keyName}.retired-${old.id}`, expiresAt: Math.min(old.expiresAt ?? Infinity, retireAt) })),
    );
    return { kind: 'issued', key, apiKey };
  }

  /** Revokes (deletes) the keys named `keyName`; they stop working at once. */
  async revokeKey(name: string, keyName: string): Promise<{ kind: 'revoked'; count: number } | { kind: 'not-found' } | { kind: 'no-such-key' }> {
    const account = await this.store.findAccountByName(name);
    if (!account) return { kind: 'not-found' };
    const count = await this.store.deleteKeys(account.id, keyName);
    return count === 0 ? { kind: 'no-such-key' } : { kind: 'revoked', count };
  }

  async delete(name: string): Promise<boolean> {
    this.recent.delete(name.toLowerCase());
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

  private async checkNewKey(
    account: Account,
    keyName: string,
    options: KeyOptions,
    now: number,
  ): Promise<{ kind: 'ok'; expiresAt: number | null } | { kind: 'invalid'; setting: string; reason: string }> {
    if (!KEY_NAME.test(keyName)) return { kind: 'invalid', setting: 'key name', reason: 'must be 1 to 64 of a-z 0-9 . _ -' };
    const live = (await this.store.listKeys(account.id)).filter((key) => key.expiresAt === null || key.expiresAt > now);
    if (live.some((key) => key.name === keyName))
      return { kind: 'invalid', setting: 'key name', reason: `the account already has a key named "${keyName}" (rotate it, or revoke it first)` };
    if (live.length >= MAX_KEYS_PER_ACCOUNT)
      return { kind: 'invalid', setting: 'key name', reason: `an account holds at most ${MAX_KEYS_PER_ACCOUNT} keys; revoke one first` };
    if (options.expires === undefined) return { kind: 'ok', expiresAt: null };
    const expiresAt = periodFromNow(options.expires, now, account.settings.timeZone);
    if (expiresAt === undefined || expiresAt <= now)
      return { kind: 'invalid', setting: 'expires', reason: 'must be a period like 30m, 12h or 7D (units m h D M Y)' };
    return { kind: 'ok', expiresAt };
  }

  /** Writes down a key's use, at most once a minute per key, off the request's path. */
  private noteUse(key: ApiKey, now: number): void {
    const last = Math.max(this.touched.get(key.id) ?? 0, key.lastUsedAt ?? 0);
    if (now - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(key.id, now);
    if (this.touched.size > 10_000) this.touched.clear();
    this.store.touchKey(key.id, now).catch(() => this.touched.delete(key.id));
  }
}

/** The instant a period like `7D` after `now` ends, in the zone; undefined for a malformed period. */
function periodFromNow(text: string, now: number, timeZone: string): number | undefined {
  const period = parsePeriod(text);
  return period && addPeriods(now, period.count, period.unit, timeZone);
}
