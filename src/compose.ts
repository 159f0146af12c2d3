/**
 * The composition root: the one place where the store and the services are built and wired
 * to each other. Everything else receives what it needs as arguments.
 */
import { randomBytes } from 'node:crypto';
import { AccountsService } from './accounts/accounts-service.js';
import { gatedHasher, HashingGate, hashingLimits, type HashingLimits } from './auth/hashing-gate.js';
import { createArgon2Hasher, type PasswordHasher } from './auth/passwords.js';
import { systemClock, type Clock } from './common/clock.js';
import type { Config } from './config.js';
import { LoginService } from './members/login-service.js';
import { MembersService } from './members/members-service.js';
import { Sweeper, type RetentionSettings } from './members/sweeper.js';
import { VerifyLinks } from './members/verify-link.js';
import { openStore, type Store } from './store/store.js';
import { MemberImporter } from './transfer/importer.js';
import { Metrics } from './observability/metrics.js';

export interface Services {
  readonly store: Store;
  readonly accounts: AccountsService;
  readonly members: MembersService;
  readonly logins: LoginService;
  readonly sweeper: Sweeper;
  /** Admits every password hash and verification (its figures are the hashing queue's). */
  readonly hashing: HashingGate;
}

export interface ServiceOptions {
  readonly clock?: Clock;
  readonly hasher?: PasswordHasher;
  readonly retention?: RetentionSettings;
  readonly hashing?: HashingLimits;
}

const DEFAULT_RETENTION: RetentionSettings = { deletedRetentionDays: 30, sessionRetentionDays: 30, loginEventRetentionDays: 90 };

/**
 * Opens the store, brings its schema up to date and builds the services on it. `publicUrl`
 * is the base of the links handed out; it is read when a link is made.
 */
export async function createServices(
  config: Pick<Config, 'databaseUrl'> & Partial<RetentionSettings> & Partial<Pick<Config, 'hashConcurrency' | 'hashQueue'>>,
  publicUrl: () => string,
  options: ServiceOptions = {},
): Promise<Services> {
  const store = openStore(config.databaseUrl);
  try {
    await store.migrate();
    const retention = { ...DEFAULT_RETENTION, ...definedOnly(config) };
    const hashing = config.hashConcurrency === undefined ? undefined : hashingLimits(config.hashConcurrency, config.hashQueue);
    return await servicesOver(store, publicUrl, { retention, hashing, ...options });
  } catch (error) {
    await store.close();
    throw error;
  }
}

export async function servicesOver(store: Store, publicUrl: string | (() => string), options: ServiceOptions = {}): Promise<Services> {
  const clock = options.clock ?? systemClock;
  const hashing = new HashingGate(options.hashing ?? hashingLimits());
  const hasher = gatedHasher(options.hasher ?? createArgon2Hasher(), hashing);
  const macKey = await store.secret('verify-link-key', () => randomBytes(32).toString('base64'));
  const verifyLinks = new VerifyLinks(Buffer.from(macKey, 'base64'), typeof publicUrl === 'string' ? () => publicUrl : publicUrl);
  return {
    store,
    accounts: new AccountsService(store.accounts, clock),
    members: new MembersService(store.members, hasher, verifyLinks, clock),
    logins: new LoginService(store.members, hasher, clock),
    sweeper: new Sweeper(store.housekeeping, clock, options.retention ?? DEFAULT_RETENTION),
    hashing,
  };
}

/**
 * The importer, with password hashing of its own: as many at once as there are cores, and
 * a whole batch may wait (the command line has no clients to turn away).
 */
export function createImporter(store: Store, options: Pick<ServiceOptions, 'clock' | 'hasher'> = {}): MemberImporter {
  const gate = new HashingGate({ ...hashingLimits(), queue: Number.MAX_SAFE_INTEGER });
  return new MemberImporter(store.members, gatedHasher(options.hasher ?? createArgon2Hasher(), gate), options.clock ?? systemClock);
}

/** Prometheus metrics over the services' hashing gate and store pool. */
export function createMetrics(services: Pick<Services, 'hashing' | 'store'>): Metrics {
  return new Metrics({ hashing: () => services.hashing.stats(), store: () => services.store.poolStats() });
}

function definedOnly(config: Partial<RetentionSettings>): Partial<RetentionSettings> {
  const { deletedRetentionDays, sessionRetentionDays, loginEventRetentionDays } = config;
  return Object.fromEntries(
    Object.entries({ deletedRetentionDays, sessionRetentionDays, loginEventRetentionDays }).filter(([, v]) => v !== undefined),
  );
}
