/**
 * The embedded engine: one file, WAL journal with synchronous=FULL so that an acknowledged
 * write survives a crash of the process or of the machine.
 *
 * better-sqlite3 is synchronous, so a connection whose statements may take long lives in a
 * worker thread of its own (sqlite-worker.ts), driven through Kysely by the small driver
 * below: the writer (SQLite has one) and a pool of readers for snapshots (long lists and
 * exports), which WAL lets run beside the writer. Short reads outside transactions (index
 * look-ups bounded by what they ask) run on a read-only connection on the event loop, so that
 * they neither wait for the writer's long transactions nor pay a thread hop.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  sql,
  SqliteDialect,
  type SqliteDatabase as KyselySqliteDatabase,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { createPrivateFileIfMissing } from '../../common/private-file.js';
import { StoreNotFound } from '../../common/store-errors.js';
import { describeSqliteStore } from './location.js';
import { WorkerError, WorkerPool, type WorkerSession } from '../../common/worker-pool.js';
import type { StoreErrorKind } from '../errors.js';
import type { Database } from '../schema.js';
import { queryBuilder, type EngineConnection, type SnapshotReader } from './dialect.js';
import { sqliteSearch } from './sqlite-search.js';
import type { ProcedureCall, ProcedureOutcome, SqliteChunk, SqliteRequest, SqliteRun } from './sqlite-worker.js';

export interface SqliteOptions {
  /** Snapshots read at once, each in a worker thread of its own (more wait for one). */
  maxReaders?: number;
  /** Whether a missing file is made (a new store; default true), or is StoreNotFound. */
  create?: boolean;
}

const DEFAULT_MAX_READERS = 16;

type Session = WorkerSession<SqliteRequest, unknown>;

function workerUrl(): URL {
  return new URL(`./sqlite-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
}

export function openSqlite(path: string, options: SqliteOptions = {}): EngineConnection {
  if (path === ':memory:') throw new Error('SQLite needs a file: its connections live in worker threads of their own');
  // Neither the file nor its folder is made for a caller that only uses a store that exists.
  if (options.create === false && !existsSync(path)) throw new StoreNotFound(describeSqliteStore(path));
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new Error(`cannot create the folder of the SQLite file ${path}: ${(error as Error).message}`, { cause: error });
  }
  // A new store is made here, empty and only its owner's (better-sqlite3 would make it with the
  // umask's mode, 644 under 022): SQLite gives its -wal and -shm files the database file's mode.
  try {
    createPrivateFileIfMissing(path);
  } catch (error) {
    throw new Error(`cannot create the SQLite file ${path}: ${(error as Error).message} (may this user write to its folder?)`, { cause: error });
  }
  const connections = new WorkerPool<SqliteRequest, unknown>(workerUrl(), 1);
  const readers = new WorkerPool<SqliteRequest, unknown>(workerUrl(), options.maxReaders ?? DEFAULT_MAX_READERS);
  // One reader ready before the first list asks for it.
  readers.warm(1);
  const writer = new WorkerConnection(async () => {
    const session = await connections.checkout();
    try {
      await session.call({ op: 'open', path, readonly: false });
    } catch (error) {
      await session.release(true);
      // SQLite says only "unable to open database file": say which, and why it may be.
      throw new Error(`cannot open the SQLite file ${path}: ${(error as Error).message} (does the folder exist, and may this user write to it?)`, {
        cause: error,
      });
    }
    return session;
  });
  // Statement by statement, for migrations and tests (the service's writes are procedures: transact).
  const db = new Kysely<Database>({ dialect: workerDialect(writer) });
  const groupCommit = new GroupCommit(writer);
  // Short reads (a member by login, an account's keys) are index look-ups whose cost is
  // bounded by what they ask: they run here, on a read-only connection of their own, so that
  // they neither wait for the writer's long transactions nor pay a thread hop. Opened after the
  // writer (it makes the file, and its WAL, exist).
  let shortReads: BetterSqlite3.Database | undefined;
  const hotStatements = new Map<string, BetterSqlite3.Statement>();
  const reads = new Kysely<Database>({
    dialect: new SqliteDialect({
      database: async () => {
        await writer.ready();
        shortReads = new BetterSqlite3(path, { readonly: true });
        shortReads.pragma('busy_timeout = 5000');
        return withStatementCache(shortReads);
      },
    }),
  });
  const running = new Set<string>();
  return {
    engine: 'sqlite',
    db,
    reads,
    hotRead<R>(name: string, query: CompiledQuery<R>, parameters: readonly unknown[]): R[] | Promise<R[]> {
      // Straight on the read connection's prepared statement, once it is open: no driver
      // queue to wait in (a read, synchronous, on a connection no transaction ever holds).
      if (!shortReads) return reads.executeQuery<R>({ ...query, parameters }).then((result) => [...result.rows]);
      // Its own statement by name, not the LRU cache of Kysely's reads (which reorders on
      // every use): /session/ read 50–51% of the bare route through it, 52–58% without.
      let statement = hotStatements.get(name);
      if (!statement) hotStatements.set(name, (statement = shortReads.prepare(query.sql)));
      else if (statement.source !== query.sql) throw new Error(`hot read ${name}: another statement has that name`);
      return statement.all(...parameters) as R[];
    },
    classifyError: classifySqliteError,
    search: sqliteSearch,
    build: queryBuilder({
      createAdapter: () => new SqliteAdapter(),
      createQueryCompiler: () => new SqliteQueryCompiler(),
      createIntrospector: (db) => new SqliteIntrospector(db),
    }),
    // Run in the writer's thread, committed with the others that wait meanwhile (see GroupCommit).
    transact: (procedure, ...args) => groupCommit.run({ name: procedure.name, args }, procedure.long?.(...args) ?? false) as Promise<never>,
    async *readSnapshot(work) {
      await writer.ready();
      const session = await readers.checkout();
      let broken = true;
      try {
        // Opened (once per reader), begun, and its snapshot taken (at a first read), in one trip.
        await session.call({ op: 'snapshot', path });
        yield* work(snapshotReader(session));
        broken = false;
      } finally {
        // Asked for in order after whatever the worker is doing; the next user's requests
        // queue behind it. A snapshot that failed half-way ends its worker instead.
        if (broken) void session.release(true);
        else {
          void session.call({ op: 'end' }).catch(() => {});
          void session.release();
        }
      }
    },
    async refreshStatistics() {
      // Re-analyses the tables whose size changed enough to matter; bounded by analysis_limit.
      await writer.exclusive({ op: 'run', sql: 'pragma optimize', params: [] });
    },
    // A deleted row's space is reused at once: there are no dead versions to reclaim.
    vacuumQueues: async () => [],
    // One process owns a SQLite file's server: a lock within the process is enough.
    exclusively: (name, work) => {
      if (running.has(name)) return Promise.resolve(undefined);
      running.add(name);
      return work().finally(() => running.delete(name));
    },
    // AUTOINCREMENT keeps its counter above the largest id ever inserted, given or not.
    syncMemberIds: async () => {},
    // SQLite's online backup: pages are copied in steps, writers carry on meanwhile.
    async backup(target) {
      await writer.exclusive({ op: 'backup', path: target });
    },
    rateLimiter: (limits) => new RateLimiterMemory(limits),
    async ping() {
      await sql`select 1`.execute(reads);
    },
    // The writer and the short-read connection, plus the readers open for snapshots.
    poolStats: () => {
      const stats = readers.stats();
      return {
        total: 2 + stats.started,
        idle: stats.idle + (writer.busy ? 0 : 1) + (shortReads?.inTransaction ? 0 : 1),
        waiting: stats.waiting,
        groupCommits: { ...groupCommit.stats },
      };
    },
    async close() {
      await Promise.all([db.destroy(), reads.destroy()]);
      await Promise.all([readers.close(), connections.close()]);
    },
  };
}

/**
 * One connection in a worker, opened on first use, to one user at a time (SQLite has one
 * writer; Kysely runs a transaction's statements on the connection it acquired).
 */
class WorkerConnection {
  private session: Promise<Session> | undefined;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  busy = false;

  constructor(private readonly open: () => Promise<Session>) {}

  /** Resolves once the connection is open. */
  async ready(): Promise<void> {
    await this.connection();
  }

  /** Sends a request as the connection's current holder (the driver's connection does so). */
  async call(request: SqliteRequest): Promise<unknown> {
    return (await this.connection()).call(request);
  }

  /** Sends a request when the connection is free: never inside another user's transaction. */
  async exclusive(request: SqliteRequest): Promise<unknown> {
    const release = await this.acquire();
    try {
      return await this.call(request);
    } finally {
      release();
    }
  }

  /** Waits for the connection to be free, and holds it until `release` is called. */
  async acquire(): Promise<() => void> {
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.busy = true;
    return () => {
      this.busy = false;
      release();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    await (await session?.catch(() => undefined))?.release(true);
  }

  private connection(): Promise<Session> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    this.session ??= this.open();
    return this.session;
  }
}

/** Procedures per group: a bound on how long the first of them waits for the group's COMMIT. */
const GROUP_LIMIT = 64;

/**
 * Writer procedures, sent to the writer's thread in groups (sqlite-worker.ts: runGroup): one
 * message and one COMMIT for every procedure that asked while the writer was busy. A group
 * leaves when the writer is free, with whatever has queued by then: under no load a group of
 * one, at once; under load, each commit's fsync serves several requests. A call that may take
 * long (an update of every member) goes in a group of its own, so that no short update is
 * held back until it ends: as before, a short one waits for it only if it came later.
 */
class GroupCommit {
  private waiting: Array<{ call: ProcedureCall; long: boolean; resolve: (value: unknown) => void; reject: (error: Error) => void }> = [];
  /** A group is waiting for the writer (it takes every call queued by the time it has it). */
  private forming = false;
  /** Groups sent and committed (or failed as one), and the procedures they carried. */
  readonly stats = { commits: 0, writes: 0 };

  constructor(private readonly writer: WorkerConnection) {}

  /** Runs the call in the next group; a `long` one in a group of its own (WriterProcedure.long). */
  run(call: ProcedureCall, long: boolean): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ call, long, resolve, reject });
      if (!this.forming) void this.send();
    });
  }

  private async send(): Promise<void> {
    this.forming = true;
    const release = await this.writer.acquire().finally(() => (this.forming = false));
    if (this.waiting.length === 0) return release();
    // The short calls at the head of the queue, or the long one there, alone.
    let size = 1;
    if (!this.waiting[0]!.long) while (size < GROUP_LIMIT && size < this.waiting.length && !this.waiting[size]!.long) size += 1;
    const group = this.waiting.splice(0, size);
    // More than one group's worth: the next waits its turn for the writer.
    if (this.waiting.length > 0) void this.send();
    this.stats.commits += 1;
    this.stats.writes += group.length;
    try {
      const outcomes = (await this.writer.call({ op: 'procedures', calls: group.map((entry) => entry.call) })) as ProcedureOutcome[];
      group.forEach((entry, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) entry.resolve(outcome.value);
        else entry.reject(new WorkerError(outcome.error.message, outcome.error.code));
      });
    } catch (error) {
      for (const entry of group) entry.reject(error as Error);
    } finally {
      release();
    }
  }
}

/**
 * Kysely's SQLite dialect, its driver swapped for one that sends each statement to a worker:
 * EngineConnection.db, for the migrations, the bench's seeding and tests. The service writes
 * through writer procedures (transact), each one message.
 */
function workerDialect(connection: WorkerConnection): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WorkerDriver(connection),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
}

class WorkerDriver implements Driver {
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();

  constructor(private readonly connection: WorkerConnection) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.connection.acquire();
    const connection = new KyselyConnection(this.connection);
    this.releases.set(connection, release);
    return connection;
  }

  /** BEGIN travels with the transaction's first statement: one trip less per transaction. */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as KyselyConnection).beginWithNext = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as KyselyConnection).end('commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as KyselyConnection).end('rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.releases.get(connection)?.();
  }

  async destroy(): Promise<void> {
    await this.connection.close();
  }
}

class KyselyConnection implements DatabaseConnection {
  /** A BEGIN asked for and not sent yet. */
  beginWithNext = false;

  constructor(private readonly connection: WorkerConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = (await this.connection.call({ op: 'run', sql: query.sql, params: [...query.parameters], begin: this.takeBegin() })) as SqliteRun;
    return {
      rows: (result.rows ?? []) as R[],
      numAffectedRows: result.changes === undefined ? undefined : BigInt(result.changes),
      insertId: result.lastInsertRowid === undefined ? undefined : BigInt(result.lastInsertRowid),
    };
  }

  /** COMMIT or ROLLBACK; nothing at all for a transaction that never ran a statement. */
  async end(statement: 'commit' | 'rollback'): Promise<void> {
    if (this.takeBegin()) return;
    await this.connection.call({ op: 'run', sql: statement, params: [] });
  }

  /** Whether a BEGIN is still to be sent (it goes with the statement being sent now). */
  private takeBegin(): boolean {
    const begin = this.beginWithNext;
    this.beginWithNext = false;
    return begin;
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('stream from a read snapshot (EngineConnection.readSnapshot), not from this connection');
  }
}

/** Prepared statements kept per connection, by SQL text (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The short-read connection as Kysely sees it, with its statements prepared once: Kysely
 * prepares every query it runs, and preparing costs more than running most of ours.
 */
function withStatementCache(database: BetterSqlite3.Database): KyselySqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(source: string) {
      const cached = cache.get(source);
      if (cached && !cached.busy) {
        cache.delete(source);
        cache.set(source, cached);
        return cached;
      }
      const statement = database.prepare(source);
      if (!cached) {
        cache.set(source, statement);
        if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      return statement;
    },
  };
}

/** A snapshot's reads, asked of its worker. The next chunk of a stream is asked for before this one is handed on. */
function snapshotReader(session: Session): SnapshotReader {
  return {
    async all<R>(query: CompiledQuery<R>) {
      return ((await session.call({ op: 'run', sql: query.sql, params: [...query.parameters] })) as SqliteRun).rows as R[];
    },
    async *stream<R>(query: CompiledQuery<R>, chunkSize: number) {
      // The next chunk is read ahead while this one is used. A list left half-way (its client
      // gone) never awaits it, and its worker is ended under it (readSnapshot): that failure is
      // no one's to report, and unhandled it would end the process.
      const ahead = (request: SqliteRequest) => {
        const chunk = session.call(request) as Promise<SqliteChunk>;
        chunk.catch(() => {});
        return chunk;
      };
      let pending = ahead({ op: 'stream', sql: query.sql, params: [...query.parameters], size: chunkSize });
      let columns: string[] = [];
      for (;;) {
        const chunk = await pending;
        if (!chunk.done) pending = ahead({ op: 'next', size: chunkSize });
        columns = chunk.columns ?? columns;
        if (chunk.rows.length > 0) yield chunk.rows.map((values) => objectOf(columns, values)) as R[];
        if (chunk.done) return;
      }
    },
  };
}

function objectOf(columns: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i];
  return row;
}

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB)/;

export function classifySqliteError(error: unknown): StoreErrorKind | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique-violation';
  if (UNAVAILABLE.test(code)) return 'unavailable';
  return undefined;
}
