/**
 * Configuration is read once from the environment (and a `.env` file beside the program, if
 * there is one), validated against one JSON schema with env-schema (ajv), and frozen. Every
 * refusal names the variable and says what it must be. Every variable is documented in the
 * table of docs/configuration.md (test/docs/configuration-table.test.ts holds them together).
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseEnv } from 'node:util';
import { envSchema } from 'env-schema';
import ipaddr from 'ipaddr.js';
import { QUEUE_PER_SLOT } from './auth/hashing-gate.js';
import { maskPassword, trimTrailing } from './common/text.js';

export interface Config {
  /** `postgres://…` selects PostgreSQL; anything else is a SQLite file path. */
  readonly databaseUrl: string;
  readonly port: number;
  readonly host: string;
  /**
   * Base of the links the service hands out (verify_url), without a trailing slash.
   * Undefined: the address the server listens on.
   */
  readonly publicUrl: string | undefined;
  readonly logLevel: string;
  /** Deleted members are purged this long after their deletion, which frees their login. */
  readonly deletedRetentionDays: number;
  /** How often due expirations are written down and old records purged. 0 disables the sweep. */
  readonly sweepIntervalSeconds: number;
  /** Sessions handed out by /login/ are kept this long. */
  readonly sessionRetentionDays: number;
  /** Login attempts recorded with an IP are kept this long. */
  readonly loginEventRetentionDays: number;
  /** Events (the change feed's) are kept this long. */
  readonly eventRetentionDays: number;
  /** Largest request body accepted, in bytes. */
  readonly bodyLimitBytes: number;
  /** Most parameters one request may carry. */
  readonly maxParameters: number;
  /** Failed API-key attempts one client address may make per window before it gets 429. */
  readonly keyFailureLimit: number;
  readonly keyFailureWindowSeconds: number;
  /** How long a client may take to send its whole request, in milliseconds (then 408). */
  readonly requestTimeoutMs: number;
  /** Passed to Fastify's `trustProxy`: false, true, a hop count or a list of addresses. */
  readonly trustProxy: boolean | number | string;
  /** Password hashes run at once (default: one per core). */
  readonly hashConcurrency: number;
  /** Password hashes that may wait for a slot; more are refused with 503 (default: 32 per slot). */
  readonly hashQueue: number;
  /** Port of the Prometheus endpoint (GET /metrics); undefined: metrics are off. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** Where the demo account's key is written when the server is not started from a terminal. */
  readonly demoKeyFile: string;
  /** Lists read at once, in all and per account (each holds a read snapshot while its client reads). */
  readonly maxConcurrentLists: number;
  readonly maxConcurrentListsPerAccount: number;
  /** A list whose client takes nothing for this long is cut off, in milliseconds. */
  readonly responseStallTimeoutMs: number;
  /** PostgreSQL connections each server opens at most (to the primary, and to each standby). */
  readonly databasePoolSize: number;
  /** PostgreSQL standbys that serve lists, exports and the console's member pages when they have what the reader must see. */
  readonly databaseReplicaUrls: readonly string[];
  /** A standby further behind the primary than this, in milliseconds, serves no read. */
  readonly replicaMaxLagMs: number;
  /** How long a list waits for a free slot before it is refused with 503, in milliseconds. */
  readonly listSlotWaitMs: number;
  /** Webhooks may go to loopback and private addresses (tests, a receiver on the same network). */
  readonly webhooksAllowPrivateAddresses: boolean;
  /** Whether member changes write events (the feed and the webhooks read them). */
  readonly events: boolean;
  /** The operator's console at /admin/. */
  readonly admin: boolean;
  /** Largest file an operator may upload to the console's import, in bytes (then 413). */
  readonly importUploadLimitBytes: number;
  /** How long `serve` waits at start for a store that does not answer (a database starting, a failover), trying again with backoff. */
  readonly storeWaitSeconds: number;
  /** Stripe's API (a local fake in tests, a staging proxy). */
  readonly stripeApiUrl: string;
  /** Where PayPal's notifications (IPN) are posted back to be confirmed. */
  readonly paypalIpnUrl: string;
}

export class ConfigError extends Error {}

export const DEFAULT_DATABASE_PATH = './data/members.db';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A whole number between two bounds; `why` is what the refusal says it must be. */
const whole = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum, why: `a whole number from ${minimum} to ${maximum}` });

/**
 * The variables. `why` says what each must be (the refusal quotes it); defaults that depend on
 * the machine or on another variable are filled in by loadConfig.
 */
const VARIABLES: Record<string, Record<string, unknown> & { why: string }> = {
  DATABASE_URL: {
    type: 'string',
    // A postgres:// URL, or a path: a name with another scheme (mysql://…) is a mistake, not a file.
    pattern: '^(postgres(ql)?://.+|(sqlite|file):.+|(?![A-Za-z][A-Za-z0-9+.-]*://).+)$',
    why: 'a postgres:// URL or a SQLite file path (other databases are not supported)',
  },
  PORT: whole(0, 65535),
  HOST: { type: 'string', minLength: 1, why: 'an address or a host name to listen on' },
  PUBLIC_URL: { type: 'string', pattern: '^https?://[^\\s]+$', why: 'an absolute http(s) URL' },
  LOG_LEVEL: { type: 'string', enum: LOG_LEVELS, why: `one of ${LOG_LEVELS.join(', ')}` },
  DELETED_RETENTION_DAYS: whole(0, 36500),
  SWEEP_INTERVAL_SECONDS: whole(0, 86400),
  SESSION_RETENTION_DAYS: whole(1, 36500),
  LOGIN_EVENT_RETENTION_DAYS: whole(1, 36500),
  EVENT_RETENTION_DAYS: whole(1, 36500),
  WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: { type: 'string', enum: ['true', 'false'], why: 'true or false' },
  EVENTS: { type: 'string', enum: ['on', 'off'], why: 'on or off' },
  ADMIN: { type: 'string', enum: ['on', 'off'], why: 'on or off' },
  IMPORT_UPLOAD_LIMIT_BYTES: whole(1024, 64 * 1024 * 1024 * 1024),
  STORE_WAIT_SECONDS: whole(0, 3600),
  STRIPE_API_URL: { type: 'string', pattern: '^https?://[^\\s]+$', why: 'an absolute http(s) URL' },
  PAYPAL_IPN_URL: { type: 'string', pattern: '^https?://[^\\s]+$', why: 'an absolute http(s) URL' },
  BODY_LIMIT_BYTES: whole(1024, 1024 * 1024 * 1024),
  MAX_PARAMETERS: whole(10, 100000),
  KEY_FAILURE_LIMIT: whole(1, 1_000_000),
  KEY_FAILURE_WINDOW_SECONDS: whole(1, 86400),
  REQUEST_TIMEOUT_MS: whole(100, 600_000),
  TRUST_PROXY: { type: 'string', why: 'true, false, a hop count, or addresses and CIDR ranges separated by commas' },
  HASH_CONCURRENCY: whole(1, 1024),
  HASH_QUEUE: whole(0, 1_000_000),
  METRICS_PORT: whole(0, 65535),
  METRICS_HOST: { type: 'string', minLength: 1, why: 'an address to listen on' },
  DEMO_KEY_FILE: { type: 'string', minLength: 1, why: 'a file path' },
  MAX_CONCURRENT_LISTS: whole(1, 10_000),
  MAX_CONCURRENT_LISTS_PER_ACCOUNT: whole(1, 10_000),
  RESPONSE_STALL_TIMEOUT_MS: whole(100, 3_600_000),
  DATABASE_POOL_SIZE: whole(2, 10_000),
  DATABASE_REPLICA_URLS: { type: 'string', pattern: '^postgres(ql)?://[^,\\s]+(,postgres(ql)?://[^,\\s]+)*$', why: 'postgres:// URLs separated by commas' },
  REPLICA_MAX_LAG_MS: whole(0, 3_600_000),
  LIST_SLOT_WAIT_MS: whole(0, 60_000),
};

export const SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(Object.entries(VARIABLES).map(([name, { why: _why, ...rule }]) => [name, rule])),
};

/**
 * Reads and checks the configuration. Without an argument: the process's environment, over a
 * `.env` file in the working directory when there is one (the environment wins). With one:
 * exactly those variables (tests, tools). An empty variable counts as not set.
 */
export function loadConfig(env?: Record<string, string | undefined>): Config {
  const source = env ?? { ...readDotEnv(), ...process.env };
  const given = Object.fromEntries(Object.entries(source).filter(([name, value]) => name in VARIABLES && value !== undefined && value !== ''));
  let raw: Record<string, unknown>;
  try {
    raw = envSchema({ schema: SCHEMA, data: given, env: false, dotenv: false }) as Record<string, unknown>;
  } catch (error) {
    throw refusal(error, given);
  }
  const get = <T>(name: string, fallback: T): T => (raw[name] === undefined ? fallback : (raw[name] as T));

  const hashConcurrency = get('HASH_CONCURRENCY', availableParallelism());
  const databaseUrl = get('DATABASE_URL', DEFAULT_DATABASE_PATH);
  if (raw.DATABASE_REPLICA_URLS !== undefined && !/^postgres(ql)?:/i.test(databaseUrl)) {
    throw new ConfigError('DATABASE_REPLICA_URLS needs a PostgreSQL DATABASE_URL (standbys of its primary)');
  }
  const publicUrl = get<string | undefined>('PUBLIC_URL', undefined);
  if (publicUrl !== undefined && !isHttpUrl(publicUrl)) throw new ConfigError(`PUBLIC_URL must be ${VARIABLES.PUBLIC_URL!.why}, got "${publicUrl}"`);
  return Object.freeze({
    databaseUrl,
    port: get('PORT', 8080),
    host: get('HOST', '127.0.0.1'),
    publicUrl: publicUrl && trimTrailing(publicUrl, '/'),
    logLevel: get('LOG_LEVEL', 'info'),
    deletedRetentionDays: get('DELETED_RETENTION_DAYS', 30),
    sweepIntervalSeconds: get('SWEEP_INTERVAL_SECONDS', 60),
    sessionRetentionDays: get('SESSION_RETENTION_DAYS', 366),
    loginEventRetentionDays: get('LOGIN_EVENT_RETENTION_DAYS', 90),
    eventRetentionDays: get('EVENT_RETENTION_DAYS', 90),
    events: get<string>('EVENTS', 'on') === 'on',
    admin: get<string>('ADMIN', 'on') === 'on',
    importUploadLimitBytes: get('IMPORT_UPLOAD_LIMIT_BYTES', 512 * 1024 * 1024),
    storeWaitSeconds: get('STORE_WAIT_SECONDS', 60),
    stripeApiUrl: trimTrailing(get('STRIPE_API_URL', 'https://api.stripe.com'), '/'),
    paypalIpnUrl: get('PAYPAL_IPN_URL', 'https://ipnpb.paypal.com/cgi-bin/webscr'),
    webhooksAllowPrivateAddresses: get<string>('WEBHOOKS_ALLOW_PRIVATE_ADDRESSES', 'false') === 'true',
    bodyLimitBytes: get('BODY_LIMIT_BYTES', 8 * 1024 * 1024),
    maxParameters: get('MAX_PARAMETERS', 1000),
    keyFailureLimit: get('KEY_FAILURE_LIMIT', 30),
    keyFailureWindowSeconds: get('KEY_FAILURE_WINDOW_SECONDS', 300),
    requestTimeoutMs: get('REQUEST_TIMEOUT_MS', 30_000),
    trustProxy: trustProxy(get<string | undefined>('TRUST_PROXY', undefined)),
    hashConcurrency,
    hashQueue: get('HASH_QUEUE', QUEUE_PER_SLOT * hashConcurrency),
    metricsPort: get<number | undefined>('METRICS_PORT', undefined),
    metricsHost: get('METRICS_HOST', '127.0.0.1'),
    // Beside a SQLite file; in the working directory for PostgreSQL.
    demoKeyFile: get(
      'DEMO_KEY_FILE',
      /^postgres(ql)?:/i.test(databaseUrl) ? 'demo-api-key' : join(dirname(databaseUrl.replace(/^(sqlite|file):(\/\/)?/i, '')), 'demo-api-key'),
    ),
    maxConcurrentLists: get('MAX_CONCURRENT_LISTS', 12),
    maxConcurrentListsPerAccount: get('MAX_CONCURRENT_LISTS_PER_ACCOUNT', 3),
    responseStallTimeoutMs: get('RESPONSE_STALL_TIMEOUT_MS', 30_000),
    databasePoolSize: get('DATABASE_POOL_SIZE', 20),
    databaseReplicaUrls: Object.freeze(get('DATABASE_REPLICA_URLS', '').split(',').filter(Boolean)),
    replicaMaxLagMs: get('REPLICA_MAX_LAG_MS', 1000),
    listSlotWaitMs: get('LIST_SLOT_WAIT_MS', 250),
  });
}

/** The variables of a `.env` file in the working directory, when there is one (Node's own parser). */
function readDotEnv(): Record<string, string> {
  let text: string;
  try {
    text = readFileSync('.env', 'utf8');
  } catch {
    return {};
  }
  return parseEnv(text) as Record<string, string>;
}

/** The schema's first complaint, as one line naming the variable, what it must be, and what it was. */
function refusal(error: unknown, values: Record<string, string | undefined>): ConfigError {
  const first = (error as { errors?: Array<{ instancePath: string }> }).errors?.[0];
  const name = first?.instancePath.replace(/^\//, '');
  const rule = name ? VARIABLES[name] : undefined;
  if (!name || !rule) return new ConfigError(error instanceof Error ? error.message : String(error));
  // A URL's password is never shown (DATABASE_URL's, say).
  return new ConfigError(`${name} must be ${rule.why}, got "${maskPassword(values[name] ?? '')}"`);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Fastify's `trustProxy`: true/false, a hop count, or proxy addresses and CIDR ranges (each checked). */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  for (const entry of raw.split(',').map((part) => part.trim())) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : isIP(entry) !== 0;
    if (!valid) throw new ConfigError(`TRUST_PROXY must be ${VARIABLES.TRUST_PROXY!.why}; "${entry}" is none of these`);
  }
  return raw;
}
