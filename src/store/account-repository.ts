import type { Insertable, Selectable } from 'kysely';
import { Repository, type StoreConnection } from './writes.js';
import { hotRead } from './hot-reads.js';
import type { Account, AccountSettings, ApiKey, KeyScope } from '../accounts/account.js';
import type { AccountStore, FormOrigin, KeyRetirement, NewApiKey } from '../accounts/account-store.js';
import { ACCOUNT_SETTINGS, settingsOfRow, settingsRow as settingsColumns } from '../accounts/account-settings.js';
import type { AccountTable, ApiKeyTable } from './schema.js';

/** The one row-to-domain conversion for accounts (the settings' columns are ACCOUNT_SETTINGS's). */
export function toAccount(row: Selectable<AccountTable>): Account {
  return { id: row.id, name: row.name, createdAt: row.created_at, settings: settingsOfRow(row as unknown as Record<string, unknown>) };
}

/** The settings' columns of a row, as Kysely types them. */
function settingsRow(settings: AccountSettings): Omit<Insertable<AccountTable>, 'name' | 'name_key' | 'created_at'> {
  return settingsColumns(settings) as unknown as Omit<Insertable<AccountTable>, 'name' | 'name_key' | 'created_at'>;
}

function toApiKey(row: Selectable<ApiKeyTable>): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    digest: row.digest,
    scope: row.scope as KeyScope,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}

/** A key's columns but its account's. */
function keyColumns(key: NewApiKey) {
  return { name: key.name, digest: key.digest, scope: key.scope, created_at: key.createdAt, expires_at: key.expiresAt };
}

/** An account's name as every look-up compares it: the original's names keep their capitals, and `Demo` is `demo`. */
export const nameKey = (name: string): string => name.toLowerCase();

const ACCOUNT_COLUMNS = ['id', 'name', 'created_at', ...ACCOUNT_SETTINGS.map((spec) => spec.column)] as Array<keyof AccountTable>;

/** An account's row joined to each of its keys' (a row with null key columns when it has none). */
type AccountWithKeyRow = Selectable<AccountTable> & {
  key_id: number | null;
  key_name: string | null;
  key_digest: string | null;
  key_scope: string | null;
  key_created_at: number | null;
  key_expires_at: number | null;
  key_last_used_at: number | null;
};

/** The account reads of every request (by its name; with its keys), compiled once (hot-reads.ts). */
function accountReads({ reads }: StoreConnection) {
  return {
    byName: hotRead<Selectable<AccountTable>, { nameKey: string }>('account_by_name', (v) => reads.selectFrom('accounts').selectAll().where('name_key', '=', v.nameKey)),
    withKeys: hotRead<AccountWithKeyRow, { nameKey: string }>('account_with_keys', (v) =>
      reads
        .selectFrom('accounts as a')
        .leftJoin('api_keys as k', 'k.account_id', 'a.id')
        .select(ACCOUNT_COLUMNS.map((column) => `a.${column}` as const))
        .select([
          'k.id as key_id',
          'k.name as key_name',
          'k.digest as key_digest',
          'k.scope as key_scope',
          'k.created_at as key_created_at',
          'k.expires_at as key_expires_at',
          'k.last_used_at as key_last_used_at',
        ])
        .where('a.name_key', '=', v.nameKey)
        .$castTo<AccountWithKeyRow>(),
    ),
  };
}

export class AccountRepository extends Repository implements AccountStore {
  private readonly hot = accountReads(this.connection);

  async insertAccount(account: { name: string; settings: AccountSettings; createdAt: number }, key: NewApiKey): Promise<Account> {
    const { build } = this;
    const [inserted] = await this.connection.writeAll([
      build
        .insertInto('accounts')
        .values({ name: account.name, name_key: nameKey(account.name), created_at: account.createdAt, ...settingsRow(account.settings) })
        .returningAll(),
      // Its first key, by the account's name (unique): the id is not known before the insert.
      build
        .insertInto('api_keys')
        .values({ ...keyColumns(key), account_id: build.selectFrom('accounts').select('id').where('name_key', '=', nameKey(account.name)) }),
    ]);
    return toAccount(inserted!.rows[0] as Selectable<AccountTable>);
  }

  async findAccountByName(name: string): Promise<Account | undefined> {
    const [row] = await this.hot.byName.run(this.connection, { nameKey: nameKey(name) });
    return row && toAccount(row);
  }

  async findAccountById(id: number): Promise<Account | undefined> {
    const row = await this.reads.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  async findAccountWithKeys(name: string): Promise<{ account: Account; keys: ApiKey[] } | undefined> {
    const rows = await this.hot.withKeys.run(this.connection, { nameKey: nameKey(name) });
    const first = rows[0];
    if (!first) return undefined;
    const account = toAccount(first);
    const keys = rows.flatMap((row) =>
      row.key_id === null
        ? []
        : [
            toApiKey({
              id: row.key_id,
              account_id: account.id,
              name: row.key_name!,
              digest: row.key_digest!,
              scope: row.key_scope!,
              created_at: row.key_created_at!,
              expires_at: row.key_expires_at,
              last_used_at: row.key_last_used_at,
            }),
          ],
    );
    return { account, keys };
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.reads.selectFrom('accounts').selectAll().orderBy('name').execute();
    return rows.map(toAccount);
  }

  async countAccounts(): Promise<number> {
    const { count } = await this.reads
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  async updateAccountSettings(accountId: number, settings: AccountSettings): Promise<boolean> {
    const result = await this.connection.write(this.build.updateTable('accounts').set(settingsRow(settings)).where('id', '=', accountId));
    return result.numAffectedRows! > 0n;
  }

  async deleteAccount(accountId: number): Promise<boolean> {
    // Children first, in one transaction: tables without a foreign key to accounts would
    // otherwise keep orphans, and a cascade through a million members is no faster.
    // The counters after what they count: deleting members and fields moves them.
    const children = [
      'sessions',
      'login_failures',
      'login_events',
      'member_fields',
      'members',
      'member_counts',
      'member_count_deltas',
      'account_usage',
      'account_usage_deltas',
      'api_keys',
      'activity_counts',
      'form_origins',
    ] as const;
    const results = await this.connection.writeAll(
      [
        ...children.map((table) => this.build.deleteFrom(table).where('account_id', '=', accountId)),
        this.build.deleteFrom('accounts').where('id', '=', accountId),
      ],
      { long: true },
    );
    return results.at(-1)!.numAffectedRows! > 0n;
  }

  async noteFormOrigin(accountId: number, origin: string, at: number, limit: number): Promise<void> {
    const { build } = this;
    const noted = await this.reads
      .selectFrom('form_origins')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    const known = Number(noted?.count ?? 0) >= limit;
    const add = build.insertInto('form_origins').values({ account_id: accountId, origin, last_at: at });
    await this.connection.write(
      known
        ? build
            .updateTable('form_origins')
            .set((eb) => ({ posts: eb('posts', '+', 1), last_at: at }))
            .where('account_id', '=', accountId)
            .where('origin', '=', origin)
        : add.onConflict((oc) => oc.columns(['account_id', 'origin']).doUpdateSet((eb) => ({ posts: eb('form_origins.posts', '+', 1), last_at: at }))),
    );
  }

  async formOrigins(accountId: number): Promise<FormOrigin[]> {
    const rows = await this.reads.selectFrom('form_origins').selectAll().where('account_id', '=', accountId).orderBy('last_at', 'desc').execute();
    return rows.map((row) => ({ origin: row.origin, posts: Number(row.posts), lastAt: Number(row.last_at) }));
  }

  async forgetFormOrigin(accountId: number, origin: string): Promise<void> {
    await this.connection.write(this.build.deleteFrom('form_origins').where('account_id', '=', accountId).where('origin', '=', origin));
  }

  async findPageTemplate(accountId: number): Promise<string | undefined> {
    const row = await this.reads
      .selectFrom('page_templates')
      .select('text')
      .where('account_id', '=', accountId)
      .where('name', '=', 'layout')
      .executeTakeFirst();
    return row?.text;
  }

  async setPageTemplate(accountId: number, text: string | undefined): Promise<void> {
    await this.connection.write(
      text === undefined
        ? this.build.deleteFrom('page_templates').where('account_id', '=', accountId).where('name', '=', 'layout')
        : this.build
            .insertInto('page_templates')
            .values({ account_id: accountId, name: 'layout', text })
            .onConflict((oc) => oc.columns(['account_id', 'name']).doUpdateSet({ text })),
    );
  }

  async countMembersByStatus(accountId: number): Promise<Record<string, number>> {
    // Over every member of the account: read apart.
    const rows = await this.connection.readApart(
      this.build
        .selectFrom('members')
        .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
        .where('account_id', '=', accountId)
        .groupBy('status'),
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
  }

  async listKeys(accountId: number): Promise<ApiKey[]> {
    const rows = await this.reads.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
    return rows.map(toApiKey);
  }

  async insertKey(accountId: number, key: NewApiKey): Promise<ApiKey> {
    const { rows } = await this.connection.write(
      this.build
        .insertInto('api_keys')
        .values({ ...keyColumns(key), account_id: accountId })
        .returningAll(),
    );
    return toApiKey(rows[0]!);
  }

  async replaceKey(accountId: number, key: NewApiKey, retire: ReadonlyArray<KeyRetirement>): Promise<ApiKey> {
    const retired = retire.map((old) =>
      this.build.updateTable('api_keys').set({ name: old.name, expires_at: old.expiresAt }).where('account_id', '=', accountId).where('id', '=', old.id),
    );
    const inserted = this.build
      .insertInto('api_keys')
      .values({ ...keyColumns(key), account_id: accountId })
      .returningAll();
    const results = await this.connection.writeAll([...retired, inserted]);
    return toApiKey(results.at(-1)!.rows[0] as Selectable<ApiKeyTable>);
  }

  async deleteKeys(accountId: number, name: string): Promise<number> {
    const result = await this.connection.write(this.build.deleteFrom('api_keys').where('account_id', '=', accountId).where('name', '=', name));
    return Number(result.numAffectedRows);
  }

  async touchKey(keyId: number, at: number): Promise<void> {
    await this.connection.write(this.build.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId));
  }
}
