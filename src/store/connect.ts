import type { EngineConnection } from './dialects/dialect.js';
import { isPostgresUrl, sqlitePathOf } from './dialects/location.js';
import { openPostgres } from './dialects/postgres.js';
import { openSqlite } from './dialects/sqlite.js';

export interface ConnectOptions {
  /** PostgreSQL: connections open at most. */
  readonly poolSize?: number;
  /** PostgreSQL: standbys that may serve an account's snapshots (postgres-replicas.ts), and how far behind they may be. */
  readonly replicaUrls?: readonly string[];
  readonly replicaMaxLagMs?: number;
  /** Read snapshots at once (SQLite: each in a reader thread of its own). */
  readonly maxReaders?: number;
  /** Whether member changes write their events (EVENTS; on unless false). */
  readonly events?: boolean;
  /**
   * Whether a store that is not there is made (a new SQLite file; default true). False: a
   * missing one is StoreNotFound, so that a command run in the wrong folder makes no stray
   * store. (A PostgreSQL database is made by its own tools either way.)
   */
  readonly create?: boolean;
}

/** A `postgres://` (or `postgresql://`) URL selects PostgreSQL; anything else is a SQLite file. */
export function connect(databaseUrl: string, options: ConnectOptions = {}): EngineConnection {
  if (isPostgresUrl(databaseUrl))
    return openPostgres(databaseUrl, { poolSize: options.poolSize, replicaUrls: options.replicaUrls, replicaMaxLagMs: options.replicaMaxLagMs });
  return openSqlite(sqlitePathOf(databaseUrl), { maxReaders: options.maxReaders, create: options.create });
}
