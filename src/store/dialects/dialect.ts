import type { CompiledQuery, Kysely, RawBuilder, SqlBool } from 'kysely';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';

export type Engine = 'sqlite' | 'postgres';

/** Reads inside one read-only snapshot: every query sees the same state of the store. */
export interface SnapshotReader {
  all<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * The rows of `query` in chunks of at most `chunkSize`, read from a database cursor: the
   * next chunk is fetched only when the consumer asks for it, so memory stays flat.
   */
  stream<R>(query: CompiledQuery<R>, chunkSize: number): AsyncIterable<R[]>;
}

/**
 * Case-sensitive substring conditions over folded text, served by each engine's trigram
 * index. The text is already folded; `%` and `_` in it are plain characters.
 */
export interface SearchSql {
  /** Members (aliased `m`) whose `column` contains `text`. */
  memberContains(column: 'login_key' | 'email_key', text: string): RawBuilder<SqlBool>;
  /** Profile field rows (aliased `f`) whose folded value contains `text`. */
  fieldContains(text: string): RawBuilder<SqlBool>;
}

/** What the one store implementation needs from an engine: connections, search SQL, error triage. */
export interface EngineConnection {
  readonly engine: Engine;
  readonly db: Kysely<Database>;
  readonly search: SearchSql;
  classifyError(error: unknown): StoreErrorKind | undefined;
  /**
   * Runs `work` in a read-only snapshot on a connection of its own, so that a long read
   * (a list of a million members) neither blocks writers nor sees their changes half-way.
   */
  readSnapshot<T>(work: (reader: SnapshotReader) => Promise<T>): Promise<T>;
  /** Keeps the planner's statistics current as the data grows (run periodically). */
  refreshStatistics(): Promise<void>;
  /**
   * Runs `work` only if no other process using this store is running work under the same
   * name, and answers undefined without running it otherwise. On PostgreSQL this is a
   * session advisory lock, so several servers on one database elect one worker.
   */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined>;
  /** After members were inserted with ids of their own: new members get ids above them. */
  syncMemberIds(): Promise<void>;
  /**
   * Copies the database, while it is in use, to a file that is itself a working store.
   * Undefined where the engine has its own tools for this (pg_dump).
   */
  readonly backup?: (path: string) => Promise<void>;
  /**
   * A request limiter (rate-limiter-flexible) counting where every server on this store sees
   * the same counts: in the store's `rate_limits` table on PostgreSQL, in memory on SQLite
   * (one server per file).
   */
  rateLimiter(options: RateLimiterOptions): RateLimiterAbstract;
  /** Throws unless the store answers a trivial query now. */
  ping(): Promise<void>;
  /** Connections: open, idle, and requests waiting for one. */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

export interface RateLimiterOptions {
  /** Tells this limiter's keys from another's. */
  readonly keyPrefix: string;
  /** What may be used per `duration`. */
  readonly points: number;
  /** Seconds. */
  readonly duration: number;
}
