/**
 * Prometheus metrics (prom-client): requests and their latency per endpoint and outcome,
 * login outcomes, the store's connections, the password-hashing queue and the background
 * jobs' rounds, plus the process
 * figures prom-client collects by default (CPU, memory, event-loop lag). Each server has a
 * registry of its own, so that tests can build several in one process.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HashingGateStats } from '../auth/hashing-gate.js';

/** How a request ended: the seed's result word for answers with one, else the HTTP status class. */
export type RequestOutcome = 'OK' | 'FAIL' | 'ERROR' | 'client_error' | 'server_error' | 'other';

export type LoginOutcome = 'ok' | 'fail' | 'locked' | 'suspended';

/** A store's connections: open, idle, and requests waiting for one (what the store reports). */
export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  /** SQLite's writer: the group commits since start, and the writes (writer procedures) they carried. */
  readonly groupCommits?: { readonly commits: number; readonly writes: number };
  /**
   * PostgreSQL with standbys: snapshots with an account read on a standby or on the primary
   * since start, and each standby's lag in seconds (undefined when it did not answer).
   */
  readonly replicas?: {
    readonly reads: { readonly replica: number; readonly primary: number };
    readonly standbys: ReadonlyArray<{ readonly name: string; readonly lagSeconds: number | undefined }>;
  };
}

/** The figures of one account's move from its upstream (upstream/links-service.ts's LinkStatus). */
export interface LinkFigures {
  readonly account: string;
  readonly migrated: number;
  readonly passwordsCaptured: number;
  readonly waiting: number;
  readonly lastSync: number | null;
  readonly upstreamErrors: number;
  readonly mirrorPending: number;
}

export interface MetricSources {
  readonly hashing: () => HashingGateStats;
  readonly store: () => PoolStats;
  /** Read at each scrape; none when absent. */
  readonly links?: () => Promise<readonly LinkFigures[]>;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'endpoint' | 'outcome'>;
  private readonly logins: Counter<'outcome'>;
  private readonly upstreamCalls: Counter<'call' | 'outcome'>;
  private readonly credentialsInUrl: Counter<'endpoint'>;
  private readonly jobRounds: Histogram<'job' | 'outcome'>;
  private readonly storeUnavailable: Counter<'outcome'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'member_api_' });
    this.requests = new Histogram({
      name: 'member_api_request_duration_seconds',
      help: 'HTTP requests by endpoint and outcome (OK/FAIL/ERROR as answered, or the status class), and their latency',
      labelNames: ['endpoint', 'outcome'],
      // Hashing puts logins at tens of milliseconds; a list of a million takes seconds.
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.logins = new Counter({
      name: 'member_api_logins_total',
      help: '/login/ answers by outcome: ok, fail (wrong login or password), locked (too many failures), suspended',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['ok', 'fail', 'locked', 'suspended'] as const) this.logins.inc({ outcome }, 0);
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge('member_api_store_connections', 'store connections open', () => sources.store().total);
    gauge('member_api_store_connections_idle', 'store connections open and idle', () => sources.store().idle);
    gauge('member_api_store_waiting', 'requests waiting for a store connection', () => sources.store().waiting);
    gauge('member_api_hashing_running', 'password hashes running now', () => sources.hashing().running);
    gauge('member_api_hashing_waiting', 'password hashes waiting for a slot', () => sources.hashing().waiting);
    this.credentialsInUrl = new Counter({
      name: 'member_api_credentials_in_url_total',
      help: "requests that carried a key, a password or a session in the URL's query string (GET, as code written for the hosted original sends), by endpoint: the code to fix before `account set --get-writes off`",
      labelNames: ['endpoint'],
      registers,
    });
    this.upstreamCalls = new Counter({
      name: 'member_api_upstream_calls_total',
      help: 'calls to linked upstreams: call login (ok, fail, error: no answer in time or a transport error, skipped: not called while paused after 3 errors in a row) or mirror (sent, retry, dropped)',
      labelNames: ['call', 'outcome'],
      registers,
    });
    this.jobRounds = new Histogram({
      name: 'member_api_job_round_seconds',
      help: "rounds of the background jobs (sweep, fold, mirror, webhooks, mail) by outcome: ok, failed (logged; tried again at the next interval), skipped (another server held the job's lock), busy (its interval came while its previous round still ran)",
      labelNames: ['job', 'outcome'],
      buckets: [0.001, 0.01, 0.1, 1, 10, 60],
      registers,
    });
    this.storeUnavailable = new Counter({
      name: 'member_api_store_unavailable_total',
      help: 'requests answered 503 because the store did not answer or took no writes (a failover), by outcome: refused (nothing was done), unknown (the connection was lost at the COMMIT: the change may or may not have been made)',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['refused', 'unknown'] as const) this.storeUnavailable.inc({ outcome }, 0);
    if (sources.links) this.linkGauges(sources.links, registers);
    const counter = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    counter(
      'member_api_store_group_commits_total',
      "SQLite: commits of the writer's groups of updates (each one fsync; 0 on PostgreSQL)",
      () => sources.store().groupCommits?.commits ?? 0,
    );
    counter(
      'member_api_store_grouped_writes_total',
      'SQLite: updates committed in those groups (divided by the commits: updates per fsync)',
      () => sources.store().groupCommits?.writes ?? 0,
    );
    new Counter({
      name: 'member_api_replica_reads_total',
      help: "PostgreSQL with standbys (DATABASE_REPLICA_URLS): reads that a standby could serve (lists, exports, the console's member pages), by target: replica, or primary (no standby had what the account must see, or none answered)",
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        const reads = sources.store().replicas?.reads;
        if (!reads) return;
        this.inc({ target: 'replica' }, reads.replica);
        this.inc({ target: 'primary' }, reads.primary);
      },
    });
    new Gauge({
      name: 'member_api_replica_lag_seconds',
      help: 'PostgreSQL with standbys: how far each standby is behind the primary (NaN when it does not answer); one further behind than REPLICA_MAX_LAG_MS serves no read',
      labelNames: ['replica'],
      registers,
      collect() {
        this.reset();
        for (const standby of sources.store().replicas?.standbys ?? []) this.set({ replica: standby.name }, standby.lagSeconds ?? Number.NaN);
      },
    });
    new Counter({
      name: 'member_api_hashing_refused_total',
      help: 'requests refused (503) because password hashing was at capacity',
      registers,
      collect() {
        this.reset();
        this.inc(sources.hashing().refused);
      },
    });
  }

  observeRequest(endpoint: string, outcome: RequestOutcome, seconds: number): void {
    this.requests.observe({ endpoint, outcome }, seconds);
  }

  countCredentialsInUrl(endpoint: string): void {
    this.credentialsInUrl.inc({ endpoint });
  }

  observeJobRound(job: string, outcome: 'ok' | 'failed' | 'skipped' | 'busy', seconds: number): void {
    this.jobRounds.observe({ job, outcome }, seconds);
  }

  countUpstreamCall(call: 'login' | 'mirror', outcome: string): void {
    this.upstreamCalls.inc({ call, outcome });
  }

  /** The figures of `account link-status`, per linked account, read from the store at each scrape. */
  private linkGauges(read: () => Promise<readonly LinkFigures[]>, registers: Registry[]): void {
    let pending: Promise<readonly LinkFigures[]> | undefined;
    // One read of the store per scrape, however many gauges ask.
    const figures = () => (pending ??= read().finally(() => setTimeout(() => (pending = undefined), 0)));
    const gauge = (name: string, help: string, value: (figures: LinkFigures) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['account'],
        registers,
        async collect() {
          this.reset();
          for (const link of await figures()) {
            const v = value(link);
            if (v !== null) this.set({ account: link.account }, v);
          }
        },
      });
    gauge('member_api_upstream_members_migrated', 'members written by migrate-members (new and updated, all runs)', (f) => f.migrated);
    gauge('member_api_upstream_passwords_captured', 'passwords taken over from the upstream at a login', (f) => f.passwordsCaptured);
    gauge('member_api_upstream_members_waiting', 'members (not Deleted) whose password is still at the upstream', (f) => f.waiting);
    gauge('member_api_upstream_last_sync_timestamp_seconds', 'when the last finished migrate-members run began', (f) =>
      f.lastSync === null ? null : f.lastSync / 1000,
    );
    gauge('member_api_upstream_errors', 'calls to the upstream that failed (logins, syncs, mirrored writes)', (f) => f.upstreamErrors);
    gauge('member_api_upstream_mirror_pending', 'writes waiting to be mirrored to the upstream', (f) => f.mirrorPending);
  }

  countStoreUnavailable(outcome: 'refused' | 'unknown'): void {
    this.storeUnavailable.inc({ outcome });
  }

  countLogin(outcome: LoginOutcome): void {
    this.logins.inc({ outcome });
  }

  /** The text exposition format, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The outcome of an answer: the `result` word at the start of a JSON answer, else the status class. */
export function outcomeOf(statusCode: number, payload: unknown): RequestOutcome {
  if (typeof payload === 'string') {
    const result = /^\{"result":"(OK|FAIL|ERROR)"/.exec(payload);
    if (result) return result[1] as RequestOutcome;
  }
  if (statusCode >= 500) return 'server_error';
  if (statusCode >= 400) return 'client_error';
  // A streamed list (its body is not a string here) starts with the members, not a result.
  return statusCode === 200 ? 'OK' : 'other';
}
