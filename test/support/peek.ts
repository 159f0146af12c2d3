import type { Kysely } from 'kysely';
import { connect } from '../../src/store/connect.js';
import type { Database } from '../../src/store/schema.js';
import type { TestDatabase } from './engines.js';

/**
 * Reads tables the API has no reader for (sessions, login events) over a second connection,
 * as an operator would with a SQL shell.
 */
export async function peek<T>(database: TestDatabase, query: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const connection = connect(database.url);
  try {
    return await query(connection.db);
  } finally {
    await connection.close();
  }
}
