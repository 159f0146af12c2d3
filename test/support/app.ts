import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { PassThrough, type Writable } from 'node:stream';
import type { SettingsPatch } from '../../src/accounts/account-rules.js';
import type { Account } from '../../src/accounts/account.js';
import { buildApp } from '../../src/app.js';
import type { HashingLimits } from '../../src/auth/hashing-gate.js';
import { appDependencies, createMetrics, servicesOver, type Services } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/http/logging.js';
import type { Store } from '../../src/store/store.js';
import type { Metrics } from '../../src/observability/metrics.js';
import { describeEachEngine, replicaUrlOf, type TestDatabase } from './engines.js';
import { uniqueName } from './factories.js';

/** A clock that follows real time until a test sets it; reset after every test. */
export class TestClock {
  private fixed: number | undefined;
  readonly now = (): number => this.fixed ?? Date.now();
  set(instant: number | string): void {
    this.fixed = typeof instant === 'string' ? Date.parse(instant) : instant;
  }
  advance(milliseconds: number): void {
    this.fixed = this.now() + milliseconds;
  }
  reset(): void {
    this.fixed = undefined;
  }
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: string;
  readonly json: Record<string, any>;
}

export type Params = Record<string, string> | Array<[string, string]>;

export interface Harness {
  readonly app: FastifyInstance;
  readonly services: Services;
  readonly store: Store;
  readonly database: TestDatabase;
  readonly clock: TestClock;
  readonly metrics: Metrics;
  /** A fresh account, with its key, owned by the calling test. */
  newAccount(settings?: SettingsPatch): Promise<{ user: string; apiKey: string; account: Account }>;
  /** POSTs form-encoded parameters, as `curl -d` does. */
  post(path: string, params: Params): Promise<Reply>;
  request(options: { method?: string; url: string; payload?: string | Buffer; headers?: Record<string, string> }): Promise<Reply>;
}

export interface HarnessOptions {
  readonly bodyLimitBytes?: number;
  readonly maxParameters?: number;
  readonly keyGuessLimits?: { maxFailures: number; windowSeconds: number };
  readonly requestTimeoutMs?: number;
  /** Where log lines go; without it the app does not log. */
  readonly logTo?: Writable;
  /** Password hashing slots and queue (default: the server's defaults). */
  readonly hashing?: HashingLimits;
  /** Any other setting, as the environment would give it. */
  readonly env?: Record<string, string>;
}

export const PUBLIC_URL = 'https://members.example.test';

/** Parameter and answer fields that carry secrets: none of their values may reach a log. */
const SECRET_FIELDS = new Set(['password', '_password', 'api_key', 'session', 'token', 'confirm', 'current', 'delete_password']);
/** Shorter values could turn up in a log by chance; no real secret here is that short. */
const MIN_SECRET_LENGTH = 8;

/** Log text kept for secrets learnt after their line was written (a generated password). */
const RECENT_LOG_CHARS = 1_000_000;

/**
 * Every value sent or answered under a secret name, checked against the log as it is
 * written: a secret found in it is recorded, and the suite fails at its end.
 */
class SecretLedger {
  readonly values = new Set<string>();
  readonly leaked = new Set<string>();
  private readonly recent: string[] = [];
  private recentLength = 0;

  add(value: unknown): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || this.values.has(value)) return;
    // A test that sends the word `password` as a password: the access line's message names the
    // parameter `password` (`unknown parameter: password`), which no check could tell apart.
    if (SECRET_FIELDS.has(value)) return;
    this.values.add(value);
    if (this.recent.some((text) => text.includes(value))) this.leaked.add(value);
  }

  /** Checks a piece of log output against every secret known so far. */
  scan(text: string): void {
    for (const secret of this.values) if (text.includes(secret)) this.leaked.add(secret);
    this.recent.push(text);
    this.recentLength += text.length;
    while (this.recentLength > RECENT_LOG_CHARS && this.recent.length > 1) this.recentLength -= this.recent.shift()!.length;
  }

  fromParams(params: URLSearchParams): void {
    for (const [name, value] of params) if (SECRET_FIELDS.has(name)) this.add(value);
    // The member pages' session check, as the hosted original named it.
    if (params.get('action') === 'session') this.add(params.get('id'));
  }

  /** A member-page session handed out in a cookie. */
  fromCookies(setCookie: string | string[] | number | undefined): void {
    for (const cookie of [setCookie ?? []].flat()) this.add(/^member_[^=]+=([^;]+)/.exec(String(cookie))?.[1]);
  }

  fromReply(json: Record<string, unknown>): void {
    for (const name of SECRET_FIELDS) this.add(json[name]);
    if (typeof json.verify_url === 'string') this.add(new URL(json.verify_url).searchParams.get('code'));
    if (typeof json.reset_url === 'string') this.add(new URL(json.reset_url).searchParams.get('token'));
  }
}

export function formBody(params: Params): string {
  return new URLSearchParams(Array.isArray(params) ? params : Object.entries(params)).toString();
}

function toReply(response: { statusCode: number; headers: Reply['headers']; body: string }): Reply {
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(response.body);
  } catch {
    // Not JSON (the verify page); tests read `body`.
  }
  return { status: response.statusCode, headers: response.headers, body: response.body, json };
}

/**
 * Runs a suite once per engine against the real app: real store, real services, real
 * password hashing; only the clock can be set.
 */
export function describeEachEngineApp(title: string, body: (harness: () => Harness) => void, options: HarnessOptions = {}): void {
  describeEachEngine(title, (context) => {
    let harness: Harness | undefined;
    const secrets = new SecretLedger();
    beforeAll(async () => {
      const logSink = options.logTo ?? new PassThrough();
      logSink.on('data', (chunk: Buffer) => secrets.scan(chunk.toString()));
      const { store, database } = context();
      const clock = new TestClock();
      const config = loadConfig({
        BODY_LIMIT_BYTES: String(options.bodyLimitBytes ?? 8 * 1024 * 1024),
        MAX_PARAMETERS: String(options.maxParameters ?? 1000),
        // Suites send many wrong keys from one address on purpose; the guard has its own test.
        KEY_FAILURE_LIMIT: String(options.keyGuessLimits?.maxFailures ?? 1_000_000),
        KEY_FAILURE_WINDOW_SECONDS: String(options.keyGuessLimits?.windowSeconds ?? 60),
        REQUEST_TIMEOUT_MS: String(options.requestTimeoutMs ?? 30_000),
        ...(options.hashing ? { HASH_CONCURRENCY: String(options.hashing.concurrency), HASH_QUEUE: String(options.hashing.queue) } : {}),
        // The store reads from a standby (TEST_POSTGRES_REPLICA_URL): requests in account scopes.
        ...(replicaUrlOf(database) ? { DATABASE_URL: database.url, DATABASE_REPLICA_URLS: replicaUrlOf(database) } : {}),
        ...options.env,
      });
      const services = await servicesOver(store, { config, publicUrl: PUBLIC_URL, clock: clock.now });
      const metrics = createMetrics(services);
      // Every suite logs at the most detailed level, so that the check below sees everything.
      const app = await buildApp(appDependencies(services, config, { logger: createLogger('trace', logSink), metrics }));
      const request: Harness['request'] = async ({ method = 'POST', url, payload, headers }) => {
        secrets.fromParams(new URLSearchParams(url.split('?')[1] ?? ''));
        if (typeof payload === 'string' && !headers?.['content-type']?.startsWith('application/json')) secrets.fromParams(new URLSearchParams(payload));
        const reply = toReply(await app.inject({ method: method as 'POST', url, payload, headers }));
        secrets.fromReply(reply.json);
        secrets.fromCookies(reply.headers['set-cookie']);
        return reply;
      };
      harness = {
        app,
        services,
        store,
        database,
        clock,
        metrics,
        async newAccount(settings = {}) {
          const created = await services.accounts.create(uniqueName(), settings);
          if (created.kind !== 'created') throw new Error(`account not created: ${created.kind}`);
          secrets.add(created.apiKey);
          return { user: created.account.name, apiKey: created.apiKey, account: created.account };
        },
        post: (path, params) => request({ url: path, payload: formBody(params), headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
        request,
      };
    });
    afterEach(() => harness?.clock.reset());
    afterAll(async () => {
      await harness?.app.close();
      expect([...secrets.leaked], 'secrets found in the log').toEqual([]);
    });
    body(() => {
      if (!harness) throw new Error('harness not ready');
      return harness;
    });
  });
}
