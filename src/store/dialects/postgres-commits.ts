/**
 * A write that loses its PostgreSQL connection (a failover, a restart, a proxy cut): was it
 * made? PostgreSQL rolls back whatever a lost connection had begun, so the answer is "no"
 * until a COMMIT was sent, or a statement outside any transaction (which commits by itself).
 * This driver watches what each writer procedure sends, so that `transact` can run a write
 * that certainly was not made once more on a fresh connection, and answer one that may have
 * been made as such (StoreOutcomeUnknown), never as made and never run twice.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import {
  PostgresAdapter,
  PostgresDriver,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { StoreOutcomeUnknown } from '../../common/store-errors.js';

/** What the running writer procedure has sent so far. */
interface Sent {
  mayHaveCommitted: boolean;
}

const running = new AsyncLocalStorage<Sent>();

function mayHaveCommitted(): void {
  const sent = running.getStore();
  if (sent) sent.mayHaveCommitted = true;
}

/** Called once a write has committed, or may have (read-your-writes on standbys: postgres-replicas.ts). */
export type OnCommitted = () => void;

/** A connection that tells a statement sent outside a transaction from one inside. */
class WatchedConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly committed: OnCommitted,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // A read commits nothing; anything else outside a transaction commits as it runs.
    const commits = !this.inTransaction && query.query.kind !== 'SelectQueryNode';
    if (!commits) return this.inner.executeQuery<R>(query);
    mayHaveCommitted();
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      // Noted even when it failed: a statement whose connection was lost may have committed.
      this.committed();
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Kysely's own PostgreSQL driver, with each connection watched and each COMMIT noted. */
class CommitWatchingDriver implements Driver {
  private readonly inner: PostgresDriver;

  constructor(
    pool: pg.Pool,
    private readonly committed: OnCommitted,
  ) {
    this.inner = new PostgresDriver({ pool });
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new WatchedConnection(await this.inner.acquireConnection(), this.committed);
  }

  async beginTransaction(connection: WatchedConnection, settings: TransactionSettings): Promise<void> {
    connection.inTransaction = true;
    await this.inner.beginTransaction(connection.inner, settings);
  }

  async commitTransaction(connection: WatchedConnection): Promise<void> {
    mayHaveCommitted();
    connection.inTransaction = false;
    try {
      await this.inner.commitTransaction(connection.inner);
    } finally {
      // Noted even when it failed: a COMMIT whose connection was lost may have committed.
      this.committed();
    }
  }

  async rollbackTransaction(connection: WatchedConnection): Promise<void> {
    connection.inTransaction = false;
    await this.inner.rollbackTransaction(connection.inner);
  }

  async savepoint(connection: WatchedConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint(connection.inner, name, compile);
  }

  async rollbackToSavepoint(connection: WatchedConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint(connection.inner, name, compile);
  }

  async releaseSavepoint(connection: WatchedConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint(connection.inner, name, compile);
  }

  releaseConnection(connection: WatchedConnection): Promise<void> {
    return this.inner.releaseConnection(connection.inner as Parameters<PostgresDriver['releaseConnection']>[0]);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** PostgresDialect, its driver watching what may have committed, and telling `committed` what did. */
export function commitWatchingDialect(pool: pg.Pool, committed: OnCommitted = () => {}): Dialect {
  return {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new CommitWatchingDriver(pool, committed),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
}

/**
 * Runs a writer procedure. When its connection is lost (`lost` says which errors are that):
 * if nothing it sent may have committed, it runs once more (a fresh connection: the pool
 * drops a lost one); if something may have, it fails with StoreOutcomeUnknown. Any other
 * error, or a second loss, is thrown as it is.
 */
export async function runWatched<R>(run: () => Promise<R>, lost: (error: unknown) => boolean): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const sent: Sent = { mayHaveCommitted: false };
    try {
      return await running.run(sent, run);
    } catch (error) {
      if (!lost(error)) throw error;
      if (sent.mayHaveCommitted) throw new StoreOutcomeUnknown('the store was lost while a change may have been committing', { cause: error });
      if (attempt === 2) throw error;
    }
  }
}
