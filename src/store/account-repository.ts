import type { Kysely, Selectable } from 'kysely';
import type { Account, AccountSettings } from '../accounts/account.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { AccountTable, Database } from './schema.js';

/** The one row-to-domain conversion for accounts. */
export function toAccount(row: Selectable<AccountTable>): Account {
  return {
    id: row.id,
    name: row.name,
    apiKeyDigest: row.api_key_digest,
    createdAt: row.created_at,
    settings: {
      okUrl: row.ok_url,
      failUrl: row.fail_url,
      minPasswordLength: row.min_password_length,
      timeZone: row.time_zone,
      lockout: {
        threshold: row.lockout_threshold,
        stepSeconds: row.lockout_step_seconds,
        maxSeconds: row.lockout_max_seconds,
        resetSeconds: row.lockout_reset_seconds,
      },
      rateLimitPerMinute: row.rate_limit_per_minute,
    },
  };
}

function settingsRow(settings: AccountSettings) {
  return {
    ok_url: settings.okUrl,
    fail_url: settings.failUrl,
    min_password_length: settings.minPasswordLength,
    time_zone: settings.timeZone,
    lockout_threshold: settings.lockout.threshold,
    lockout_step_seconds: settings.lockout.stepSeconds,
    lockout_max_seconds: settings.lockout.maxSeconds,
    lockout_reset_seconds: settings.lockout.resetSeconds,
    rate_limit_per_minute: settings.rateLimitPerMinute,
  };
}

export class AccountRepository implements AccountStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insertAccount(account: { name: string; apiKeyDigest: string; settings: AccountSettings; createdAt: number }): Promise<Account> {
    const row = await this.db
      .insertInto('accounts')
      .values({ name: account.name, api_key_digest: account.apiKeyDigest, created_at: account.createdAt, ...settingsRow(account.settings) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toAccount(row);
  }

  async findAccountByName(name: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toAccount(row);
  }

  async listAccounts(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('name').execute();
    return rows.map(toAccount);
  }

  async countAccounts(): Promise<number> {
    const { count } = await this.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
    return Number(count);
  }

  async updateAccountSettings(accountId: number, settings: AccountSettings): Promise<boolean> {
    const result = await this.db.updateTable('accounts').set(settingsRow(settings)).where('id', '=', accountId).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async setApiKeyDigest(accountId: number, apiKeyDigest: string): Promise<boolean> {
    const result = await this.db.updateTable('accounts').set({ api_key_digest: apiKeyDigest }).where('id', '=', accountId).executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async deleteAccount(accountId: number): Promise<boolean> {
    // Children first, in one transaction: tables without a foreign key to accounts would
    // otherwise keep orphans, and a cascade through a million members is no faster.
    return this.db.transaction().execute(async (trx) => {
      // The counters after the members: deleting them moves the counters.
      for (const table of ['sessions', 'login_throttle', 'login_events', 'member_fields', 'members', 'member_counts', 'member_count_deltas'] as const) {
        await trx.deleteFrom(table).where('account_id', '=', accountId).execute();
      }
      const result = await trx.deleteFrom('accounts').where('id', '=', accountId).executeTakeFirst();
      return result.numDeletedRows > 0n;
    });
  }

  async countMembersByStatus(accountId: number): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('members')
      .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
      .where('account_id', '=', accountId)
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
  }
}
