import type { EngineConnection } from './dialects/dialect.js';
import { openPostgres } from './dialects/postgres.js';
import { openSqlite } from './dialects/sqlite.js';

/** A `postgres://` (or `postgresql://`) URL selects PostgreSQL; anything else is a SQLite file. */
export function connect(databaseUrl: string): EngineConnection {
  if (/^postgres(ql)?:\/\//i.test(databaseUrl)) return openPostgres(databaseUrl);
  return openSqlite(databaseUrl.replace(/^(sqlite|file):(\/\/)?/i, ''));
}
