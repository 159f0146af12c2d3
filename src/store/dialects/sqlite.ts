import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';
import type { EngineConnection } from './dialect.js';

/**
 * The embedded engine: one file, WAL journal with synchronous=FULL so that an acknowledged
 * write survives a crash of the process or of the machine.
 */
export function openSqlite(path: string): EngineConnection {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = openFile(path);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    engine: 'sqlite',
    db,
    classifyError: classifySqliteError,
    close: () => db.destroy(),
  };
}

function openFile(path: string): SqliteDatabase.Database {
  const database = new SqliteDatabase(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  // Other processes (the command line) may hold the write lock for a moment.
  database.pragma('busy_timeout = 5000');
  return database;
}

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB)/;

export function classifySqliteError(error: unknown): StoreErrorKind | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique-violation';
  if (UNAVAILABLE.test(code)) return 'unavailable';
  return undefined;
}
