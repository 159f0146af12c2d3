import type { AccountStore } from '../accounts/account-store.js';
import type { MemberHousekeeping, MemberStore } from '../members/member-store.js';
import { AccountRepository } from './account-repository.js';
import { connect } from './connect.js';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { EngineConnection, Engine, PoolStats, RateLimiterOptions } from './dialects/dialect.js';
import { translateError } from './errors.js';
import { MemberHousekeepingRepository, MemberRepository } from './member-repository.js';
import { migrateToLatest } from './migrations/index.js';

/** The service's one store: the same SQL over SQLite or PostgreSQL. */
export interface Store {
  readonly engine: Engine;
  readonly accounts: AccountStore;
  readonly members: MemberStore;
  readonly housekeeping: MemberHousekeeping;
  /** A secret the service keeps for itself, made by `create` on first use and kept forever. */
  secret(name: string, create: () => string): Promise<string>;
  migrate(): Promise<string[]>;
  /** An online copy of the store into a file; undefined for engines with their own tools. */
  readonly backup: ((path: string) => Promise<void>) | undefined;
  /** Request limiters whose counts every server on this store shares (see the dialects). */
  rateLimiter(options: RateLimiterOptions): RateLimiterAbstract;
  /** Throws (StoreUnavailable) unless the store answers now. */
  ping(): Promise<void>;
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export function openStore(databaseUrl: string): Store {
  return storeOver(connect(databaseUrl));
}

export function storeOver(connection: EngineConnection): Store {
  const { db } = connection;
  const guard = <T extends object>(target: T) => translatingErrors(target, connection.classifyError);
  return {
    engine: connection.engine,
    accounts: guard(new AccountRepository(db)),
    members: guard(new MemberRepository(connection)),
    housekeeping: guard(new MemberHousekeepingRepository(connection)),
    secret: (name, create) =>
      guard({
        async secret() {
          await db.insertInto('settings').values({ name, value: create() }).onConflict((oc) => oc.column('name').doNothing()).execute();
          const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
          return row.value;
        },
      }).secret(),
    migrate: () => migrateToLatest(connection),
    backup: connection.backup,
    rateLimiter: (options) => connection.rateLimiter(options),
    ping: () => guard({ ping: () => connection.ping() }).ping(),
    poolStats: () => connection.poolStats(),
    close: () => connection.close(),
  };
}

/**
 * Wraps every method of a repository so that driver errors leave it as the store's own
 * error classes (UniqueViolation, StoreUnavailable), whichever engine is underneath.
 */
function translatingErrors<T extends object>(target: T, classify: EngineConnection['classifyError']): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          return await value.apply(object, args);
        } catch (error) {
          throw translateError(classify, error);
        }
      };
    },
  });
}
