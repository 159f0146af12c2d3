import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { connect } from '../../src/store/connect.js';
import type { Database } from '../../src/store/schema.js';
import type { TestDatabase } from './engines.js';

/**
 * Reads tables the API has no reader for (sessions, login events) over a connection of its
 * own, as an operator would with a SQL shell: on SQLite a plain read-only connection (the
 * store's own are worker threads, slower to start than a query takes).
 */
export async function peek<T>(database: TestDatabase, query: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (database.engine === 'sqlite') {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(database.url, { readonly: true }) }) });
    try {
      return await query(db);
    } finally {
      await db.destroy();
    }
  }
  const connection = connect(database.url);
  try {
    return await query(connection.db);
  } finally {
    await connection.close();
  }
}

/**
 * Changes a table over a connection of its own, as an operator would with a SQL shell: for
 * what a test cannot wait for (a lease that runs out in 40 s moved back by its length).
 */
export async function poke(database: TestDatabase, change: (db: Kysely<Database>) => Promise<unknown>): Promise<void> {
  if (database.engine === 'sqlite') {
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(database.url) }) });
    try {
      await change(db);
    } finally {
      await db.destroy();
    }
    return;
  }
  const connection = connect(database.url);
  try {
    await change(connection.db);
  } finally {
    await connection.close();
  }
}
