/**
 * Configuration is read once from the environment, validated, and frozen.
 * Every variable is documented in the README's configuration table.
 */
import { availableParallelism } from 'node:os';
import { QUEUE_PER_SLOT } from './auth/hashing-gate.js';

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
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const DEFAULT_DATABASE_PATH = './data/members.db';

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const hashConcurrency = integer(env, 'HASH_CONCURRENCY', availableParallelism(), 1, 1024);
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST', '127.0.0.1');
  const publicUrl = env.PUBLIC_URL ? url(env, 'PUBLIC_URL') : undefined;
  const logLevel = text(env, 'LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return Object.freeze({
    databaseUrl: text(env, 'DATABASE_URL', DEFAULT_DATABASE_PATH),
    port,
    host,
    publicUrl: publicUrl?.replace(/\/+$/, ''),
    logLevel,
    deletedRetentionDays: integer(env, 'DELETED_RETENTION_DAYS', 30, 0, 36500),
    sweepIntervalSeconds: integer(env, 'SWEEP_INTERVAL_SECONDS', 60, 0, 86400),
    sessionRetentionDays: integer(env, 'SESSION_RETENTION_DAYS', 30, 1, 36500),
    loginEventRetentionDays: integer(env, 'LOGIN_EVENT_RETENTION_DAYS', 90, 1, 36500),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxParameters: integer(env, 'MAX_PARAMETERS', 1000, 10, 100000),
    keyFailureLimit: integer(env, 'KEY_FAILURE_LIMIT', 30, 1, 1_000_000),
    keyFailureWindowSeconds: integer(env, 'KEY_FAILURE_WINDOW_SECONDS', 300, 1, 86400),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    hashConcurrency,
    hashQueue: integer(env, 'HASH_QUEUE', QUEUE_PER_SLOT * hashConcurrency, 0, 1_000_000),
    metricsPort: env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 0, 65535) : undefined,
    metricsHost: text(env, 'METRICS_HOST', '127.0.0.1'),
  });
}

function text(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${raw}`);
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string): string {
  const value = text(env, name, '');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  return value;
}

function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}
