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
import type { DatabaseConnection } from 'kysely';
import { serveRequests, workerErrorOf, type WorkerErrorMessage } from '../../common/worker-pool.js';
import { accountTrigrams } from './sqlite-trigrams.js';
import type { WriterConnection } from './dialect.js';
import type { Database } from '../schema.js';

export type SqliteRequest =
  | { op: 'open'; path: string; readonly: boolean }
  /** Runs one statement (after a BEGIN when `begin`); a statement that returns rows answers them. */
  | { op: 'run'; sql: string; params: unknown[]; begin?: boolean }
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
   * Runs writer procedures (dialect.ts: WriterProcedure) here, on this connection, in one
   * transaction committed once (group commit), and answers how each ended.
   */
  | { op: 'procedures'; calls: ProcedureCall[] };

/** A writer procedure to run, by its name in store/writer-procedures.ts, with its arguments. */
export interface ProcedureCall {
  readonly name: string;
  readonly args: unknown[];
}

/** How one procedure of a group ended: its value, or its error (and then none of its writes stay). */
export type ProcedureOutcome = { ok: true; value: unknown } | { ok: false; error: WorkerErrorMessage };

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

/**
 * This connection as a writer procedure sees it: Kysely over it, with the statement cache,
 * whose transactions are savepoints of the group's transaction (runGroup): a procedure's
 * commit keeps its writes for the group's COMMIT, its rollback undoes them alone. `open`
 * counts the savepoints a procedure has begun and not ended. Loaded with the first group
 * (only the writer runs them), with the list of procedures: the readers never load Kysely.
 */
interface ProcedureRunner {
  readonly connection: WriterConnection;
  readonly procedures: ReadonlyMap<string, Procedure>;
  readonly savepoints: { open: number };
}
let runner: Promise<ProcedureRunner> | undefined;

async function procedureRunner(): Promise<ProcedureRunner> {
  const [{ Kysely, SqliteDialect, SqliteDriver, CompiledQuery }, { sqliteSearch }, { WRITER_PROCEDURES }] = await Promise.all([
    import('kysely'),
    import('./sqlite-search.js'),
    import('../writer-procedures.js'),
  ]);
  const savepoints = { open: 0 };
  const raw = (connection: DatabaseConnection, sql: string) => connection.executeQuery(CompiledQuery.raw(sql));
  class SavepointDriver extends SqliteDriver {
    override async beginTransaction(connection: DatabaseConnection): Promise<void> {
      await raw(connection, `savepoint procedure_${++savepoints.open}`);
    }
    override async commitTransaction(connection: DatabaseConnection): Promise<void> {
      await raw(connection, `release procedure_${savepoints.open--}`);
    }
    override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
      await raw(connection, `rollback to procedure_${savepoints.open}`);
      await raw(connection, `release procedure_${savepoints.open--}`);
    }
  }
  const database = { prepare, close: () => {} };
  const dialect = new (class extends SqliteDialect {
    override createDriver() {
      return new SavepointDriver({ database });
    }
  })({ database });
  return {
    connection: { engine: 'sqlite', db: new Kysely<Database>({ dialect }), search: sqliteSearch },
    procedures: new Map(WRITER_PROCEDURES.map((procedure) => [procedure.name, procedure.run as Procedure])),
    savepoints,
  };
}

/**
 * Group commit: the procedures that waited for the writer together run one after the other
 * in one transaction, each within a savepoint, and are committed at once. A commit is an
 * fsync (synchronous=FULL): about 1.3 ms on the benchmark machine, where an update of one
 * member's SQL takes a tenth of that, so under load one fsync now serves every update that
 * queued meanwhile. A procedure that fails (or is refused, and rolls back) leaves nothing and
 * the others are unaffected, as if each had run alone in that order; if the group's
 * transaction itself fails (its COMMIT, or an error such as a full disk that ends it), every
 * procedure of the group fails with that error and none of their writes stays. A procedure's
 * answer is sent only after the COMMIT: what a caller is told has happened is on disk.
 */
async function runGroup(calls: ProcedureCall[]): Promise<ProcedureOutcome[]> {
  const { connection, procedures, savepoints } = await (runner ??= procedureRunner().catch((error: unknown) => {
    // Tried again by the next group.
    runner = undefined;
    throw error;
  }));
  const db = database!;
  const outcomes: ProcedureOutcome[] = [];
  const allFailed = (error: WorkerErrorMessage): ProcedureOutcome[] => calls.map(() => ({ ok: false, error }));
  // IMMEDIATE: the write lock now (waiting up to busy_timeout for the command line's), not at a first write.
  db.exec('BEGIN IMMEDIATE');
  try {
    for (const call of calls) {
      db.exec('SAVEPOINT procedure_call');
      savepoints.open = 0;
      let outcome: ProcedureOutcome;
      try {
        const procedure = procedures.get(call.name);
        if (!procedure) throw new Error(`no writer procedure ${call.name} (list it in store/writer-procedures.ts)`);
        const value = await procedure(connection, ...call.args);
        // A procedure ends the transactions it begins; one that did not is undone, never kept.
        outcome = savepoints.open === 0 ? { ok: true, value } : { ok: false, error: { message: `writer procedure ${call.name} left a transaction open` } };
      } catch (error) {
        outcome = { ok: false, error: workerErrorOf(error) };
      }
      // An error that ended the whole transaction (SQLITE_FULL, an I/O error) ends the group.
      if (!db.inTransaction) return allFailed(outcome.ok ? { message: 'the transaction ended during a writer procedure' } : outcome.error);
      if (!outcome.ok) db.exec('ROLLBACK TO procedure_call');
      db.exec('RELEASE procedure_call');
      outcomes.push(outcome);
    }
    db.exec('COMMIT');
    return outcomes;
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    return allFailed(workerErrorOf(error));
  }
}

serveRequests(async (request: SqliteRequest): Promise<unknown> => {
  switch (request.op) {
    case 'open':
      open(request.path, request.readonly);
      return null;
    case 'run':
      if (request.begin) database!.exec('BEGIN');
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
    case 'procedures':
      return runGroup(request.calls);
  }
});
