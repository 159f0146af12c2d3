import { Kysely, sql, type CompiledQuery, type Dialect, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';
import type { RateLimiterOptions } from '../../auth/request-limits.js';
import type { PoolStats } from '../../observability/metrics.js';

export type Engine = 'sqlite' | 'postgres';

/** A read snapshot's reader, when a standby may serve it (EngineConnection.readSnapshot). */
export interface SnapshotOptions {
  /** The account whose data it reads: a standby serves it only if it has this account's writes. */
  readonly account?: number;
}

/** Reads inside one read-only snapshot: every query sees the same state of the store. */
export interface SnapshotReader {
  all<R>(query: CompiledQuery<R>): Promise<R[]>;
  /**
   * The rows of `query` in chunks of at most `chunkSize`, read from a database cursor: the
   * next chunk is fetched only when the consumer asks for it, so memory stays flat.
   */
  stream<R>(query: CompiledQuery<R>, chunkSize: number): AsyncIterable<R[]>;
}

/** `= key`, or `in (keys…)`: the right-hand side of SearchSql.memberIs's comparison. */
export function equalsOneOf(keys: string | readonly string[]): RawBuilder<unknown> {
  return typeof keys === 'string' ? sql`= ${keys}` : sql`in (${sql.join(keys)})`;
}

/**
 * Above every string that begins with a prefix, in byte order: the prefix followed by the
 * highest code point (UTF-8 compares as code points do).
 */
export const prefixEnd = (prefix: string) => `${prefix}\u{10FFFF}`;

/**
 * How each engine finds members by folded text. Substrings: case-sensitive conditions over
 * folded text, served by each engine's trigram index; the text is already folded, and `%` and
 * `_` in it are plain characters. Whole logins and addresses: served by the index of each,
 * wherever the engine keeps it. A search's cost and time depend on the searching account's
 * data only.
 */
export interface SearchSql {
  /** Members (aliased `m`) of the account whose `column` contains `text`. */
  memberContains(accountId: number, column: 'login_key' | 'email_key', text: string): RawBuilder<SqlBool>;
  /**
   * Members (of the table or alias `table`, `m` unless told) of the account whose folded
   * `column` is `key`, or one of `keys` (at least one): the index of logins (unique per
   * account) or of addresses finds them.
   */
  memberIs(accountId: number, column: 'login_key' | 'email_key', keys: string | readonly string[], table?: string): RawBuilder<SqlBool>;
  /**
   * Where those two indexes are: on `members` itself (SQLite), or on `member_search`
   * (PostgreSQL, migration 024), which an order by login or address then reads.
   */
  readonly keyTable: 'members' | 'member_search';
  /**
   * The ids of the account's first `limit` members, in byte order of `column`, whose folded
   * `column` begins with `prefix` (already folded): one range of an index on each engine
   * (PostgreSQL's migration 028), its cost bounded by `limit`.
   */
  idsStartingWith(accountId: number, column: 'login_key' | 'email_key', prefix: string, limit: number): RawBuilder<{ id: number }>;
  /** Profile field rows (aliased `f`) of the account whose folded value contains `text`. */
  fieldContains(accountId: number, text: string): RawBuilder<SqlBool>;
  /**
   * The member's profile fields of these names, as one JSON object (null when it has none);
   * the member's id is `m.id` unless told.
   */
  profileObject(names: readonly string[], memberId?: string): RawBuilder<unknown>;
}

/**
 * Locks held until the transaction that takes them ends, where writers run side by side
 * (PostgreSQL's transaction-scoped advisory locks). Absent where one writer runs transactions
 * one after the other (SQLite), which needs none.
 */
export interface TransactionLocks {
  /** The SQL expression, for a SELECT, that takes the lock of these keys (one 64-bit, or two 32-bit), shared or exclusive. */
  lock(mode: 'shared' | 'exclusive', ...keys: ReadonlyArray<number | RawBuilder<unknown>>): RawBuilder<unknown>;
}

/** What a transaction needs of an engine (a writer procedure: see EngineConnection.transact). */
export interface WriterConnection {
  readonly engine: Engine;
  /**
   * The engine itself. Inside a writer procedure: its transaction's connection. Outside one,
   * for migrations, maintenance and tests only: the store's repositories never see it
   * (StoreConnection), so that every write of the service takes the one path.
   */
  readonly db: Kysely<Database>;
  readonly search: SearchSql;
  /**
   * Present where a long list of ids is best sent as one array parameter (PostgreSQL:
   * `id = any($1)`): there, a chunk's ten thousand ids as as many parameters cost about 6 ms to
   * parse and bind in every statement that names them. Absent: an IN list (SQLite binds in its
   * writer's own thread, a copy).
   */
  readonly anyOf?: (ids: readonly number[]) => RawBuilder<number>;
  /** Present when writers run side by side: then a transaction locks what it reads to change. */
  readonly transactionLocks?: TransactionLocks;
  /**
   * True where each statement is a round trip and a WITH may write (PostgreSQL): writes that
   * depend on one another's rows are best one statement. Absent: several statements in a
   * transaction cost nothing more (SQLite's writer, in its own thread).
   */
  readonly writesInOneStatement?: boolean;
}

/**
 * A transaction of the store, run where the writer is (EngineConnection.transact): a function
 * given the writer's connection and arguments that survive a trip between threads (structured
 * clone: no functions, no class instances), answering such a value. Every one is listed in
 * store/writer-procedures.ts, where SQLite's writer thread finds it by its name.
 */
export interface WriterProcedure<A extends unknown[], R> {
  /** Its name in store/writer-procedures.ts. */
  readonly name: string;
  readonly run: (connection: WriterConnection, ...args: A) => Promise<R>;
  /**
   * Whether a call may take long (its cost grows with the data, not with what it was given):
   * on SQLite such a call is committed on its own, never in a group with short ones, which
   * would otherwise wait for it to be answered (sqlite.ts: GroupCommit).
   */
  readonly long?: (...args: A) => boolean;
}

/** A writer procedure (list it in store/writer-procedures.ts). */
export function writerProcedure<A extends unknown[], R>(
  name: string,
  run: (connection: WriterConnection, ...args: A) => Promise<R>,
  long?: NoInfer<(...args: A) => boolean>,
): WriterProcedure<A, R> {
  return { name, run, long };
}

/** What the one store implementation needs from an engine: connections, search SQL, error triage. */
export interface EngineConnection extends WriterConnection {
  /**
   * Builds queries, compiled for this engine, to hand to a write (StoreConnection.write):
   * running one from it throws.
   */
  readonly build: Kysely<Database>;
  /**
   * Short reads outside any transaction (a member by login, an account and its keys). On
   * SQLite a connection of its own, so that they go on while the writer is held by a long
   * transaction; on PostgreSQL the same pool as `db`.
   */
  readonly reads: Kysely<Database>;
  /**
   * A short read asked on every request (an account and its keys, a login's member and counts,
   * a session check), compiled once by the caller (store/hot-reads.ts) and run with new
   * parameters: on PostgreSQL a named prepared statement (parsed and planned once per
   * connection), on SQLite the read connection's cached statement, answered at once (no
   * promise: better-sqlite3 is synchronous). Each is a few look-ups by key, comparing by
   * equality, bounded by what the request asks; each name is one statement.
   */
  hotRead<R>(name: string, query: CompiledQuery<R>, parameters: readonly unknown[]): R[] | Promise<R[]>;
  /**
   * Present where a hot read is a round trip (PostgreSQL): the space-separated keys of one
   * text parameter as a set of rows (alias it: `... as asked(key)`), for a read of many keys at once (CoalescedReads).
   * Its plan costs the same whatever the number of keys, so a prepared statement keeps the
   * one plan it made; an array's length is seen by the planner, which then plans a small
   * batch's statement again at every run (measured: three times PostgreSQL's CPU per session
   * check).
   */
  readonly splitKeys?: (keys: Expression<string>) => RawBuilder<unknown>;
  /**
   * Runs a writer procedure: the one way the store writes (StoreConnection.write is a
   * procedure too). On SQLite, inside the writer's own thread with a connection of that
   * thread, committed together with the procedures that queued meanwhile (sqlite.ts:
   * GroupCommit): the transaction is one message there and its answer one back, so the one
   * writer is held for its SQL alone, never for a trip to the event loop between two
   * statements. On PostgreSQL here, on the pool (`db`), with plain parameterised statements:
   * a transaction there holds only the rows it writes.
   */
  transact<A extends unknown[], R>(procedure: WriterProcedure<A, R>, ...args: A): Promise<R>;
  classifyError(error: unknown): StoreErrorKind | undefined;
  /**
   * Runs `work` in a read-only snapshot on a connection of its own, so that a long read
   * (a list of a million members) neither blocks writers nor sees their changes half-way,
   * yielding what `work` yields. The snapshot is taken when the first item is asked for, and
   * released when the reading ends, however it ends (a consumer that stops early included).
   * On SQLite it is read in a worker thread, never on the event loop. With `account`, on
   * PostgreSQL with standbys, it may be read on a standby that has what that account must
   * see (postgres-replicas.ts); `work` then runs a second time, on the primary, when the
   * standby fails before `work` yielded anything.
   */
  readSnapshot<T>(work: (reader: SnapshotReader) => AsyncGenerator<T>, options?: SnapshotOptions): AsyncGenerator<T>;
  /**
   * Keeps the planner's statistics current as the data grows (run by the sweep): SQLite's
   * `pragma optimize`; on PostgreSQL an ANALYZE of the members' tables that changed by a tenth
   * since their last one, where autovacuum is off or behind.
   */
  refreshStatistics(): Promise<void>;
  /**
   * Reclaims the deleted rows of tables used as queues (rows written, then deleted within
   * seconds: the event outbox, the counters' deltas) once one holds more than a few thousand,
   * so that the polls and reads of those tables never wade through dead versions. On
   * PostgreSQL a VACUUM of each such table, whether autovacuum is on, off or behind (its
   * default thresholds wait for a fifth of a table to be dead, and a queue is mostly dead);
   * nothing on SQLite, which reuses a deleted row's space at once. Answers the tables
   * vacuumed.
   */
  vacuumQueues(tables: readonly string[]): Promise<string[]>;
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

/** A query builder that compiles for one engine and runs nothing (EngineConnection.build). */
export function queryBuilder(parts: Pick<Dialect, 'createAdapter' | 'createQueryCompiler' | 'createIntrospector'>): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      ...parts,
      createDriver: () => ({
        init: async () => {},
        acquireConnection: () => Promise.reject(new Error('this builds queries, and runs none: hand them to StoreConnection.write')),
        beginTransaction: async () => {},
        commitTransaction: async () => {},
        rollbackTransaction: async () => {},
        releaseConnection: async () => {},
        destroy: async () => {},
      }),
    },
  });
}
