/**
 * A SQLite connection in a worker thread. better-sqlite3 is synchronous: a statement run on
 * the main thread holds the event loop for as long as it takes (a commit that syncs 60 MB of
 * journal, a count over a million rows, a checkpoint). Every connection of the service lives
 * in a worker like this one, so that no statement, however long, ever stalls the server: the
 * writer, a connection for short reads, and one per read snapshot.
 *
 * Requests come one at a time per connection (the dialect's driver holds a mutex, and a
 * snapshot has one reader).
 */
import SqliteDatabase from 'better-sqlite3';
import { serveRequests } from '../../common/worker-pool.js';
import { accountTrigrams } from './sqlite-trigrams.js';
import type { WriterConnection } from './dialect.js';
import type { Database } from '../schema.js';

export type SqliteRequest =
  | { op: 'open'; path: string; readonly: boolean }
  /**
   * Runs one statement (after a BEGIN when `begin`, and after the `before` statements, whose
   * results nobody waits for); a statement that returns rows answers them.
   */
  | { op: 'run'; sql: string; params: unknown[]; begin?: boolean; before?: Array<{ sql: string; params: unknown[] }> }
  /** Opens the file if this worker has not, begins a read transaction and takes its snapshot. */
  | { op: 'snapshot'; path: string }
  /** Starts reading a statement's rows a chunk at a time. */
  | { op: 'stream'; sql: string; params: unknown[]; size: number }
  | { op: 'next'; size: number }
  /** Ends a read snapshot: the rows being read are let go, the read transaction committed. */
  | { op: 'end' }
  /** SQLite's online backup into a file. */
  | { op: 'backup'; path: string }
  /**
   * Runs a writer procedure (dialect.ts: WriterProcedure) here, on this connection, and
   * answers its value: a transaction of several statements in one message.
   */
  | { op: 'procedure'; module: string; name: string; args: unknown[] };

export interface SqliteRun {
  readonly rows?: unknown[];
  readonly changes?: number;
  readonly lastInsertRowid?: number;
}

/**
 * A chunk of a stream's rows: each row as an array of values (cheaper to pass between threads
 * than objects, whose keys would travel with every row), with the column names on the first.
 */
export interface SqliteChunk {
  readonly columns?: string[];
  readonly rows: unknown[][];
  readonly done: boolean;
}

/** Prepared statements kept, by SQL text (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 256;

let database: SqliteDatabase.Database | undefined;
let openPath: string | undefined;
const statements = new Map<string, SqliteDatabase.Statement>();
let rows: IterableIterator<unknown[]> | undefined;

function open(path: string, readonly: boolean): void {
  database?.close();
  statements.clear();
  database = new SqliteDatabase(path, { readonly });
  openPath = path;
  if (!readonly) {
    database.pragma('journal_mode = WAL');
    // An acknowledged write survives a crash of the process or of the machine.
    database.pragma('synchronous = FULL');
    // Without statistics SQLite may scan a whole account where an index finds a handful of
    // rows. Analyse what was never analysed, reading at most 1000 rows per index.
    database.pragma('analysis_limit = 1000');
    database.pragma('optimize = 0x10002');
  }
  database.pragma('foreign_keys = ON');
  // Another process (the command line) may hold the write lock for a moment.
  database.pragma('busy_timeout = 5000');
  // The search index's triggers call it (see accountTrigrams).
  database.function('account_trigrams', { deterministic: true }, (accountId, text) => accountTrigrams(Number(accountId), String(text ?? '')));
}

/** Kysely prepares every query it runs, and preparing costs more than running most of ours. */
function prepare(source: string): SqliteDatabase.Statement {
  const cached = statements.get(source);
  if (cached && !cached.busy) {
    statements.delete(source);
    statements.set(source, cached);
    return cached;
  }
  const statement = database!.prepare(source);
  if (!cached) {
    statements.set(source, statement);
    if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
  }
  return statement;
}

function run(sql: string, params: unknown[]): SqliteRun {
  // Some errors (a full disk, SQLITE_FULL) end the transaction themselves; a ROLLBACK after
  // them would fail with "no transaction is active" and hide the cause.
  if (sql === 'rollback' && !database!.inTransaction) return { changes: 0 };
  const statement = prepare(sql);
  if (statement.reader) return { rows: statement.all(...params) };
  const { changes, lastInsertRowid } = statement.run(...params);
  return { changes, lastInsertRowid: Number(lastInsertRowid) };
}

function take(size: number, columns?: string[]): SqliteChunk {
  const chunk: unknown[][] = [];
  while (rows && chunk.length < size) {
    const next = rows.next();
    if (next.done) {
      rows = undefined;
      break;
    }
    chunk.push(next.value);
  }
  return columns ? { columns, rows: chunk, done: rows === undefined } : { rows: chunk, done: rows === undefined };
}

function letGo(): void {
  rows?.return?.();
  rows = undefined;
}

type Procedure = (connection: WriterConnection, ...args: unknown[]) => Promise<unknown>;
let procedureConnection: WriterConnection | undefined;

/**
 * This connection as a writer procedure sees it: Kysely over it, with the statement cache.
 * Loaded on the first procedure (only the writer runs them): the readers never load Kysely.
 */
async function connectionForProcedures(): Promise<WriterConnection> {
  if (!procedureConnection) {
    const [{ Kysely, SqliteDialect }, { sqliteSearch }] = await Promise.all([import('kysely'), import('./sqlite-search.js')]);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: { prepare, close: () => {} } }) });
    procedureConnection = { engine: 'sqlite', db, search: sqliteSearch };
  }
  return procedureConnection;
}

/** Procedures found, by module and name: an update runs one, and need not look it up each time. */
const procedures = new Map<string, Procedure>();

async function procedureNamed(module: string, name: string): Promise<Procedure> {
  const key = `${module}#${name}`;
  let procedure = procedures.get(key);
  if (!procedure) {
    const found = ((await import(module)) as Record<string, { run?: Procedure } | undefined>)[name]?.run;
    if (typeof found !== 'function') throw new Error(`no writer procedure ${name} in ${module}`);
    procedures.set(key, (procedure = found));
  }
  return procedure;
}

async function runProcedure(module: string, name: string, args: unknown[]): Promise<unknown> {
  const procedure = await procedureNamed(module, name);
  try {
    return await procedure(await connectionForProcedures(), ...args);
  } finally {
    // A procedure ends its transactions; one that did not is undone, never left open on the writer.
    if (database!.inTransaction) database!.exec('ROLLBACK');
  }
}

serveRequests(async (request: SqliteRequest): Promise<unknown> => {
  switch (request.op) {
    case 'open':
      open(request.path, request.readonly);
      return null;
    case 'run':
      if (request.begin) database!.exec('BEGIN');
      for (const statement of request.before ?? []) run(statement.sql, statement.params);
      return run(request.sql, request.params);
    case 'snapshot':
      if (openPath !== request.path) open(request.path, true);
      // A read transaction takes its snapshot at its first read: take it now.
      database!.exec('BEGIN');
      prepare('select 1 from sqlite_schema limit 1').get();
      return null;
    case 'stream': {
      letGo();
      // A statement of its own (raw mode sticks to a statement): not the one `run` uses.
      const statement = prepare(`${request.sql} `);
      const columns = statement.columns().map((column) => column.name);
      rows = statement.raw(true).iterate(...request.params) as IterableIterator<unknown[]>;
      return take(request.size, columns);
    }
    case 'next':
      return take(request.size);
    case 'end':
      letGo();
      if (database?.inTransaction) database.exec('COMMIT');
      return null;
    case 'backup':
      await database!.backup(request.path);
      return null;
    case 'procedure':
      return runProcedure(request.module, request.name, request.args);
  }
});
