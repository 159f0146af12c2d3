import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { Kysely, sql, SqliteDialect, type CompiledQuery, type SqliteDatabase as KyselySqliteDatabase } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';
import type { EngineConnection, SearchSql, SnapshotReader } from './dialect.js';

/** Reader connections kept open between snapshots; more are opened when needed. */
const IDLE_READERS = 4;

/**
 * The embedded engine: one file, WAL journal with synchronous=FULL so that an acknowledged
 * write survives a crash of the process or of the machine. Writes go through one connection
 * (SQLite has one writer); long reads get read-only connections of their own, which WAL lets
 * run beside the writer.
 */
export function openSqlite(path: string): EngineConnection {
  if (path === ':memory:') throw new Error('SQLite needs a file: long reads use connections of their own');
  mkdirSync(dirname(path), { recursive: true });
  const database = openFile(path, false);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  const idleReaders: SqliteDatabase.Database[] = [];
  let readersInUse = 0;
  const running = new Set<string>();
  return {
    engine: 'sqlite',
    db,
    classifyError: classifySqliteError,
    search: sqliteSearch,
    async readSnapshot(work) {
      const reader = idleReaders.pop() ?? openFile(path, true);
      readersInUse++;
      // A read transaction takes its snapshot at its first read: take it now.
      reader.exec('BEGIN');
      reader.prepare('select 1 from sqlite_schema limit 1').get();
      let ok = false;
      try {
        const result = await work(snapshotReader(reader));
        ok = true;
        return result;
      } finally {
        try {
          reader.exec('COMMIT');
        } catch {
          // A cursor left open (a stream abandoned half-way): closing the connection ends it.
          ok = false;
        }
        readersInUse--;
        if (ok && idleReaders.length < IDLE_READERS) idleReaders.push(reader);
        else reader.close();
      }
    },
    async refreshStatistics() {
      // Re-analyses the tables whose size changed enough to matter; bounded by analysis_limit.
      database.pragma('optimize');
    },
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
      await database.backup(target);
    },
    rateLimiter: (options) => new RateLimiterMemory(options),
    async ping() {
      database.prepare('select 1').get();
    },
    // The writer, plus the readers open for snapshots; nothing ever waits for a connection.
    poolStats: () => ({
      total: 1 + idleReaders.length + readersInUse,
      idle: (database.inTransaction ? 0 : 1) + idleReaders.length,
      waiting: 0,
    }),
    async close() {
      for (const reader of idleReaders.splice(0)) reader.close();
      await db.destroy();
    },
  };
}

/** Prepared statements kept per connection, by SQL text (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The connection as Kysely sees it, with its statements prepared once: Kysely prepares every
 * query it runs, and preparing costs more than running most of ours (a login runs six).
 * A cached statement still iterating a result (`busy`) is never handed out twice.
 */
function withStatementCache(database: SqliteDatabase.Database): KyselySqliteDatabase {
  const cache = new Map<string, SqliteDatabase.Statement>();
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

function openFile(path: string, readonly: boolean): SqliteDatabase.Database {
  const database = new SqliteDatabase(path, { readonly });
  if (!readonly) {
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    // Without statistics SQLite may scan a whole account where an index finds a handful of
    // rows. Analyse what was never analysed, reading at most 1000 rows per index.
    database.pragma('analysis_limit = 1000');
    database.pragma('optimize = 0x10002');
  }
  database.pragma('foreign_keys = ON');
  // Another process (the command line) may hold the write lock for a moment.
  database.pragma('busy_timeout = 5000');
  return database;
}

/** Reader connections are reused: so are their statements. */
const readerStatements = new WeakMap<SqliteDatabase.Database, ReturnType<typeof withStatementCache>>();

function snapshotReader(database: SqliteDatabase.Database): SnapshotReader {
  let statements = readerStatements.get(database);
  if (!statements) readerStatements.set(database, (statements = withStatementCache(database)));
  const cached = (source: string) => statements.prepare(source) as SqliteDatabase.Statement;
  return {
    async all<R>(query: CompiledQuery<R>) {
      return cached(query.sql).all(...(query.parameters as unknown[])) as R[];
    },
    async *stream<R>(query: CompiledQuery<R>, chunkSize: number) {
      const rows = cached(query.sql).iterate(...(query.parameters as unknown[])) as IterableIterator<R>;
      try {
        for (;;) {
          const chunk: R[] = [];
          for (let next = rows.next(); !next.done; next = rows.next()) {
            chunk.push(next.value);
            if (chunk.length === chunkSize) break;
          }
          if (chunk.length > 0) yield chunk;
          if (chunk.length < chunkSize) return;
          // The driver is synchronous: give the event loop a turn between chunks.
          await nextTurn();
        }
      } finally {
        rows.return?.();
      }
    },
  };
}

/** FTS5's trigram index needs three characters; shorter texts are found by a scan. */
const TRIGRAM = 3;
const FTS_COLUMN = { login_key: 'login', email_key: 'email' } as const;

/** An FTS5 phrase: the text in double quotes, inner quotes doubled; nothing else is special. */
function phrase(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

const sqliteSearch: SearchSql = {
  memberContains(column, text) {
    if ([...text].length < TRIGRAM) return sql`instr(${sql.ref(`m.${column}`)}, ${text}) > 0`;
    return sql`m.id in (select rowid from members_fts where members_fts match ${`{${FTS_COLUMN[column]}} : ${phrase(text)}`})`;
  },
  fieldContains(text) {
    if ([...text].length < TRIGRAM) return sql`instr(coalesce(f.value_key, f.value), ${text}) > 0`;
    return sql`f.rowid in (select rowid from member_fields_fts where member_fields_fts match ${phrase(text)})`;
  },
};

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB)/;

export function classifySqliteError(error: unknown): StoreErrorKind | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique-violation';
  if (UNAVAILABLE.test(code)) return 'unavailable';
  return undefined;
}
