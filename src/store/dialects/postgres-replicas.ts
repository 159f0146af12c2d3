import pg from 'pg';
import type { PoolStats } from '../../observability/metrics.js';

/**
 * Reads sent to PostgreSQL standbys (DATABASE_REPLICA_URLS) when, and only when, the standby
 * has what the reader must see:
 * - everything this server wrote for the reader's account (read-your-writes): after a write
 *   for an account commits, that account's reads go to the primary until a standby has
 *   replayed the primary's WAL position as read after the commit; a write made outside any
 *   request (a sweep, an import's job) counts for every account;
 * - everything committed on the primary more than `maxLagMs` ago (the lag bound): a standby
 *   further behind, or down, is passed over.
 * The primary's position (`pg_current_wal_lsn()`) is read every POLL_MS; a standby's
 * (`pg_last_wal_replay_lsn()`) is read on the connection that will serve the read, just
 * before its snapshot is taken, so a URL that balances over several standbys (HAProxy's
 * replica port) is judged standby by standby.
 */

/** How often the primary's WAL position is read. */
const POLL_MS = 100;
/** How long a standby that failed to answer is passed over. */
const DOWN_MS = 5000;
/** How long a standby's connection may take to open before it counts as down. */
const CONNECT_TIMEOUT_MS = 1000;
/** How far back positions are kept, to tell a standby's lag (the metric) up to this. */
const LAG_WINDOW_MS = 60_000;

export interface ReplicaOptions {
  readonly urls: readonly string[];
  /** A standby further behind than this serves no read. */
  readonly maxLagMs: number;
  readonly poolSize: number;
  readonly types: pg.CustomTypesConfig;
}

interface Position {
  /** When the reading of the primary's position was sent: every commit acknowledged before it is at or before `lsn`. */
  readonly sentAt: number;
  readonly lsn: bigint;
}

interface Replica {
  readonly name: string;
  readonly pool: pg.Pool;
  downUntil: number;
  lagSeconds: number | undefined;
}

/** `16/B374D848` as a number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

export class ReplicaRouter {
  private readonly positions: Position[] = [];
  private readonly lastWrite = new Map<number, number>();
  /** When a write made outside any request last committed: it holds for every account. */
  private lastUnscopedWrite = -Infinity;
  private readonly replicas: Replica[];
  private readonly reads = { replica: 0, primary: 0 };
  private next = 0;
  private readonly timer: NodeJS.Timeout;
  private polling = false;
  private polls = 0;

  constructor(
    private readonly primary: pg.Pool,
    private readonly options: ReplicaOptions,
  ) {
    this.replicas = options.urls.map((url) => {
      const pool = new pg.Pool({
        connectionString: url,
        max: options.poolSize,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        idleTimeoutMillis: 30_000,
        types: options.types,
      });
      pool.on('error', () => {});
      pool.on('connect', (client) => client.on('error', () => {}));
      const { hostname, port } = new URL(url);
      return { name: `${hostname}:${port || 5432}`, pool, downUntil: 0, lagSeconds: undefined };
    });
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  /**
   * A write just committed for these accounts (undefined: outside any request, so for every
   * account): their reads wait for a standby that has it.
   */
  noteWrites(accounts: ReadonlySet<number> | undefined): void {
    const now = Date.now();
    if (accounts === undefined) this.lastUnscopedWrite = now;
    else for (const account of accounts) this.lastWrite.set(account, now);
  }

  /**
   * A connection to a standby that has all `account` must see, in a read-only snapshot
   * taken now, or undefined: then the primary serves the read.
   */
  async snapshotFor(account: number): Promise<pg.PoolClient | undefined> {
    const lsn = this.required(account);
    if (lsn !== undefined) {
      for (let tried = 0; tried < this.replicas.length; tried++) {
        const replica = this.replicas[this.next++ % this.replicas.length]!;
        if (replica.downUntil > Date.now()) continue;
        const client = await this.fresh(replica, lsn);
        if (client) {
          this.reads.replica++;
          return client;
        }
      }
    }
    this.reads.primary++;
    return undefined;
  }

  /** The read snapshotFor sent to a standby failed there before it answered, and the primary serves it. */
  fellBack(): void {
    this.reads.replica--;
    this.reads.primary++;
  }

  stats(): NonNullable<PoolStats['replicas']> {
    return { reads: { ...this.reads }, standbys: this.replicas.map(({ name, lagSeconds }) => ({ name, lagSeconds })) };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => {})));
  }

  /** The primary's position a standby must have replayed to serve `account` now; undefined: none can. */
  private required(account: number): bigint | undefined {
    const now = Date.now();
    const wrote = this.lastWrite.get(account);
    // A write older than the lag bound is covered by the bound.
    if (wrote !== undefined && wrote < now - this.options.maxLagMs) this.lastWrite.delete(account);
    const after = Math.max(wrote ?? -Infinity, this.lastUnscopedWrite, now - this.options.maxLagMs);
    return this.positions.find((position) => position.sentAt > after)?.lsn;
  }

  /** A connection to `replica` in a snapshot that has `lsn`, or undefined (behind, or down). */
  private async fresh(replica: Replica, lsn: bigint): Promise<pg.PoolClient | undefined> {
    let client: pg.PoolClient | undefined;
    try {
      client = await replica.pool.connect();
      // Replay only moves forward: a snapshot taken after this answer has everything up to lsn.
      const { rows } = await client.query<{ fresh: boolean | null }>('select pg_last_wal_replay_lsn() >= $1::pg_lsn as fresh', [formatLsn(lsn)]);
      if (rows[0]?.fresh !== true) {
        client.release();
        return undefined;
      }
      await client.query('begin isolation level repeatable read read only');
      await client.query('select 1');
      return client;
    } catch {
      client?.release(true);
      replica.downUntil = Date.now() + DOWN_MS;
      replica.lagSeconds = undefined;
      return undefined;
    }
  }

  /** Reads the primary's position; every tenth time, each standby's too, for its lag. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const sentAt = Date.now();
      const { rows } = await this.primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
      this.positions.push({ sentAt, lsn: parseLsn(rows[0]!.lsn) });
      while (this.positions.length > 0 && this.positions[0]!.sentAt < sentAt - LAG_WINDOW_MS) this.positions.shift();
      if (this.polls++ % 10 === 0) await Promise.all(this.replicas.map((replica) => this.measureLag(replica)));
    } catch {
      // No primary (a failover): its positions stop, so that standbys serve nothing until it is back.
    } finally {
      this.polling = false;
    }
  }

  private async measureLag(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn');
      const replayed = rows[0]?.lsn ? parseLsn(rows[0].lsn) : undefined;
      if (replayed === undefined) {
        replica.lagSeconds = undefined;
        return;
      }
      // The newest position it has: it lags by how long ago the primary was there.
      const newest = [...this.positions].reverse().find((position) => position.lsn <= replayed);
      const latest = this.positions.at(-1);
      replica.lagSeconds = latest && newest === latest ? 0 : (Date.now() - (newest?.sentAt ?? Date.now() - LAG_WINDOW_MS)) / 1000;
    } catch {
      replica.lagSeconds = undefined;
    }
  }
}
