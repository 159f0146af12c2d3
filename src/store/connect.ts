import type { EngineConnection } from './dialects/dialect.js';
import { openPostgres } from './dialects/postgres.js';
import { openSqlite } from './dialects/sqlite.js';

export interface ConnectOptions {
  /** PostgreSQL: connections open at most. */
  readonly poolSize?: number;
  /** Read snapshots at once (SQLite: each in a reader thread of its own). */
  readonly maxReaders?: number;
  /** Whether member changes write their events (EVENTS; on unless false). */
  readonly events?: boolean;
}

/** A `postgres://` (or `postgresql://`) URL selects PostgreSQL; anything else is a SQLite file. */
export function connect(databaseUrl: string, options: ConnectOptions = {}): EngineConnection {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return openPostgres(databaseUrl, { poolSize: options.poolSize });
  return openSqlite(databaseUrl.replace(/^(sqlite|file):(\/\/)?/i, ''), { maxReaders: options.maxReaders });
}
