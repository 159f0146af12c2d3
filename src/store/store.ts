import type { AccountStore } from '../accounts/account-store.js';
import type { MemberTransferStore } from '../import-export/member-transfer-store.js';
import type { LoginRecords } from '../members/login-records.js';
import type { MemberStore } from '../members/member-store.js';
import type { Housekeeping } from '../upkeep/housekeeping.js';
import type { UpstreamLinkStore } from '../upstream/upstream-link.js';
import { AccountRepository } from './account-repository.js';
import { connect, type ConnectOptions } from './connect.js';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { EngineConnection, Engine } from './dialects/dialect.js';
import type { RateLimiterOptions } from '../auth/request-limits.js';
import type { PoolStats } from '../observability/metrics.js';
import type { Config } from '../config.js';
import { translateError } from './errors.js';
import { storeConnection } from './writes.js';
import { HousekeepingRepository } from './housekeeping-repository.js';
import { LoginRecordsRepository } from './login-records-repository.js';
import { MemberTransferRepository } from './member-import-export.js';
import { MemberRepository } from './member-repository.js';
import { migrateToLatest } from './migrations/index.js';
import { UpstreamRepository } from './upstream-repository.js';
import { EventRepository } from './event-repository.js';
import type { EventStore } from '../events/events-store.js';
import { WebhookRepository } from './webhook-repository.js';
import type { WebhookStore } from '../webhooks/webhook.js';
import { OperatorRepository } from './operator-repository.js';
import { SessionRepository } from './session-repository.js';
import type { SessionStore } from '../members/sessions.js';
import { ResetRepository } from './reset-repository.js';
import type { ResetLinkStore } from '../members/password-resets.js';
import { MailRepository } from './mail-repository.js';
import type { MailStore } from '../mail/mail.js';
import type { OperatorStore } from '../operators/operator.js';
import type { OverviewStore } from '../accounts/overview.js';
import { OverviewRepository } from './overview-repository.js';
import { BillingRepository } from './billing-repository.js';
import type { BillingStore } from '../billing/billing-store.js';

/**
 * The service's one store: the same SQL over SQLite or PostgreSQL, in repositories along the
 * seams of its users: accounts, members (the API's member services), the login records (the
 * login service), transfer (the import and the export), housekeeping (the sweep). Driver
 * errors leave every one of them as the store's own (UniqueViolation, StoreUnavailable).
 */
export interface Store {
  readonly engine: Engine;
  readonly accounts: AccountStore;
  readonly members: MemberStore;
  readonly logins: LoginRecords;
  /** The sessions /login/ hands out, for /session/ and /logout/. */
  readonly sessions: SessionStore;
  /** Password reset links. */
  readonly resets: ResetLinkStore;
  /** The mail outbox and the accounts' mail templates. */
  readonly mail: MailStore;
  readonly transfer: MemberTransferStore;
  readonly housekeeping: Housekeeping;
  /** Links to upstream services, the capture of passwords, the mirrored writes. */
  readonly upstream: UpstreamLinkStore;
  /** The events, for the change feed (written by the member repositories, in their transactions). */
  readonly events: EventStore;
  /** Webhook endpoints and their deliveries. */
  readonly webhooks: WebhookStore;
  /** The console's operators, their links and sessions. */
  readonly operators: OperatorStore;
  /** The console's overview: registrations and logins counted per hour, and its other reads. */
  readonly overview: OverviewStore;
  /** Paid memberships: the providers' connections, plans, checkouts, the notices applied. */
  readonly billing: BillingStore;
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

export function openStore(databaseUrl: string, options: ConnectOptions = {}): Store {
  return storeOver(connect(databaseUrl, options), { events: options.events ?? true });
}

/**
 * Opens the store the configuration names, sized for it, and brings its schema up to date.
 * `create: false` answers StoreNotFound for a store that is not there.
 */
export async function openConfiguredStore(config: Config, options: { readonly create?: boolean } = {}): Promise<Store> {
  const store = openStore(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    replicaUrls: config.databaseReplicaUrls,
    replicaMaxLagMs: config.replicaMaxLagMs,
    // A reader for every list that may run, and two to spare (an export, a count).
    maxReaders: config.maxConcurrentLists + 2,
    events: config.events,
    create: options.create,
  });
  try {
    await store.migrate();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

export function storeOver(engine: EngineConnection, options: { events: boolean } = { events: true }): Store {
  // The repositories see the store's connection, whose only writes are whole transactions (writes.ts).
  const connection = storeConnection(engine);
  const guard = <T extends object>(target: T) => translatingErrors(target, connection.classifyError);
  const overview = new OverviewRepository(connection);
  return {
    engine: connection.engine,
    accounts: guard(new AccountRepository(connection)),
    members: guard(new MemberRepository(connection, options.events)),
    logins: guard(new LoginRecordsRepository(connection, options.events)),
    sessions: guard(new SessionRepository(connection)),
    resets: guard(new ResetRepository(connection)),
    mail: guard(new MailRepository(connection)),
    transfer: guard(new MemberTransferRepository(connection, options.events)),
    housekeeping: guard(new HousekeepingRepository(connection, options.events)),
    upstream: guard(new UpstreamRepository(connection)),
    events: guard(new EventRepository(connection)),
    webhooks: guard(new WebhookRepository(connection)),
    operators: guard(new OperatorRepository(connection)),
    overview: guard(overview),
    billing: guard(new BillingRepository(connection)),
    secret: (name, create) =>
      guard({
        async secret() {
          const kept = connection.reads.selectFrom('settings').select('value').where('name', '=', name);
          // Read first: a command that only reads writes nothing.
          const row = await kept.executeTakeFirst();
          if (row) return row.value;
          // Another server may make it meanwhile: the first one made is the one kept.
          await connection.write(
            connection.build
              .insertInto('settings')
              .values({ name, value: create() })
              .onConflict((oc) => oc.column('name').doNothing()),
          );
          return (await kept.executeTakeFirstOrThrow()).value;
        },
      }).secret(),
    migrate: () => migrateToLatest(engine),
    backup: connection.backup,
    rateLimiter: (options) => connection.rateLimiter(options),
    ping: () => guard({ ping: () => connection.ping() }).ping(),
    poolStats: () => connection.poolStats(),
    async close() {
      // The activity counts held in memory are written first.
      await overview.flush().catch(() => {});
      await connection.close();
    },
  };
}

/**
 * Wraps every method of a repository so that driver errors leave it as the store's own
 * error classes (UniqueViolation, StoreUnavailable), whichever engine is underneath: those
 * of a promise it answers, and those met while reading an async iterable it answers (a list).
 */
function translatingErrors<T extends object>(target: T, classify: EngineConnection['classifyError']): T {
  const translate = (error: unknown) => translateError(classify, error);
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = value.apply(object, args);
        } catch (error) {
          throw translate(error);
        }
        if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(translate(error)));
        if (isAsyncIterable(result)) return translatingIteration(result, translate);
        return result;
      };
    },
  });
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> & object {
  return typeof value === 'object' && value !== null && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

/** The iterable with errors of its iterators' steps translated; its other properties as they are. */
function translatingIteration<T extends AsyncIterable<unknown> & object>(iterable: T, translate: (error: unknown) => unknown): T {
  return new Proxy(iterable, {
    get(object, property, receiver) {
      if (property !== Symbol.asyncIterator) return Reflect.get(object, property, receiver);
      return () => {
        const iterator = object[Symbol.asyncIterator]();
        const step =
          (method: 'next' | 'return' | 'throw') =>
          async (...args: unknown[]) => {
            try {
              return await (iterator[method] as (...a: unknown[]) => Promise<IteratorResult<unknown>>).apply(iterator, args);
            } catch (error) {
              throw translate(error);
            }
          };
        return {
          next: step('next'),
          return: iterator.return ? step('return') : undefined,
          throw: iterator.throw ? step('throw') : undefined,
          [Symbol.asyncIterator]() {
            return this;
          },
        };
      };
    },
  });
}
