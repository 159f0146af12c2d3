/**
 * The store's one write path. A repository reads with `reads` (or in a snapshot) and writes in
 * one of two ways, both a whole transaction handed to the engine at once:
 * - `write(query)` / `writeAll(queries)`: statements whose values are known before the first
 *   runs (built with `build`), run in order as one transaction;
 * - `transact(procedure, ...args)`: a transaction whose later statements depend on what its
 *   earlier ones found, written as a writer procedure (dialects/dialect.ts: WriterProcedure).
 * Both are writer procedures: on SQLite one message to the writer's thread, committed in a
 * group with the others that queued meanwhile; on PostgreSQL parameterised statements on the
 * pool. Repositories are given a StoreConnection, which has no `db`: there is no other way to
 * write.
 */
import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './schema.js';
import { writerProcedure, type EngineConnection, type SnapshotOptions, type SnapshotReader } from './dialects/dialect.js';

export interface StoreConnection extends Omit<EngineConnection, 'db'> {
  /**
   * Runs one statement (built with `build`) as a transaction of its own, where the writer is.
   * `long`: its cost grows with the data (WriterProcedure.long).
   */
  write<R>(query: Compilable<R>, options?: { long?: boolean }): Promise<QueryResult<R>>;
  /**
   * Runs these statements in order as one transaction: all of them, or none. Answers each
   * one's result. `long`: their cost grows with the data (WriterProcedure.long).
   */
  writeAll(queries: ReadonlyArray<Compilable<unknown> | CompiledQuery>, options?: { long?: boolean }): Promise<Array<QueryResult<unknown>>>;
  /**
   * A read whose cost grows with the data (a count over every member), run in a read
   * snapshot of its own (EngineConnection.readSnapshot: on SQLite a reader thread, never the
   * event loop).
   */
  readApart<R>(query: Compilable<R>): Promise<R[]>;
}

/** A statement as it travels to the writer: its SQL and its parameters, nothing else. */
interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/** The writer procedure behind write and writeAll. */
export const statementsProcedure = writerProcedure(
  'statements',
  async ({ db }, statements: readonly Statement[], _long?: boolean): Promise<Array<QueryResult<unknown>>> => {
    const run = (executor: typeof db, statement: Statement) => executor.executeQuery(CompiledQuery.raw(statement.sql, [...statement.parameters]));
    // One statement is a transaction of its own (on SQLite, a savepoint of the writer's group).
    if (statements.length === 1) return [await run(db, statements[0]!)];
    return db.transaction().execute(async (trx) => {
      const results = [];
      for (const statement of statements) results.push(await run(trx, statement));
      return results;
    });
  },
  (_statements, long) => long === true,
);

/** The connection as the repositories see it: the engine's, without `db`, with write and writeAll. */
export function storeConnection(engine: EngineConnection): StoreConnection {
  const statementsOf = (queries: ReadonlyArray<Compilable<unknown> | CompiledQuery>): Statement[] =>
    queries.map((query) => {
      const { sql, parameters } = 'compile' in query ? query.compile() : query;
      return { sql, parameters };
    });
  const connection: StoreConnection & { db?: unknown } = {
    ...engine,
    async write<R>(query: Compilable<R>, options?: { long?: boolean }) {
      const [result] = await engine.transact(statementsProcedure, statementsOf([query]), options?.long);
      return result as QueryResult<R>;
    },
    writeAll: (queries, options) => engine.transact(statementsProcedure, statementsOf(queries), options?.long),
    readApart<R>(query: Compilable<R>) {
      const compiled = query.compile();
      return inSnapshot(engine, (reader) => reader.all(compiled));
    },
  };
  delete connection.db;
  return connection;
}

/** Runs `work` in a read snapshot (EngineConnection.readSnapshot) and answers what it answers. */
export async function inSnapshot<T>(
  connection: Pick<EngineConnection, 'readSnapshot'>,
  work: (reader: SnapshotReader) => Promise<T>,
  options?: SnapshotOptions,
): Promise<T> {
  for await (const result of connection.readSnapshot(async function* (reader) {
    yield await work(reader);
  }, options))
    return result;
  throw new Error('the snapshot ended without an answer');
}

/** What every repository starts from: the store's connection, its short reads and its query builder. */
export abstract class Repository {
  /** Short reads outside any transaction (see EngineConnection.reads). */
  protected readonly reads: Kysely<Database>;
  /** Builds the queries handed to write and writeAll. */
  protected readonly build: Kysely<Database>;

  constructor(protected readonly connection: StoreConnection) {
    this.reads = connection.reads;
    this.build = connection.build;
  }
}
