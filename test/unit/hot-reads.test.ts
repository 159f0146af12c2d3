/** Reads compiled once (src/store/hot-reads.ts): a value of each run is a parameter, never part of the text. */
import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { hotRead } from '../../src/store/hot-reads.js';
import type { Database } from '../../src/store/schema.js';

// Kysely compiling only: no connection is ever made.
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (kysely) => new SqliteIntrospector(kysely),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

describe('a hot read', () => {
  it('binds each run to its values, in the places of the slots, beside the constants', () => {
    const read = hotRead<unknown, { name: string; id: number }>('t', (v) =>
      db.selectFrom('accounts').selectAll().where('name_key', '=', v.name).where('created_at', '>', 5).where('id', '=', v.id),
    );
    const sent: unknown[][] = [];
    const connection = { hotRead: (_name: string, _query: unknown, parameters: readonly unknown[]) => (sent.push([...parameters]), []) };
    read.run(connection, { name: 'a', id: 1 });
    read.run(connection, { name: 'b', id: 2 });
    expect(sent).toEqual([
      ['a', 5, 1],
      ['b', 5, 2],
    ]);
  });

  it('is refused when it reads a value while it is built', () => {
    expect(() =>
      hotRead<unknown, { name: string }>('t', (v) =>
        // The name written into another value: every run would compare with the first's text.
        db.selectFrom('accounts').selectAll().where('name_key', '=', `${v.name}-key`),
      ),
    ).toThrow(/the slot name is a parameter/);
  });

  it('is refused when a value it reads is not a parameter of its statement', () => {
    expect(() =>
      hotRead<unknown, { name: string; limit: number }>('t', (v) =>
        // The limit looked at, not bound: every run would have the first's.
        db.selectFrom('accounts').selectAll().where('name_key', '=', v.name).limit(sql.lit(typeof v.limit === 'number' ? v.limit : 10)),
      ),
    ).toThrow(/hot read t: limit not a parameter/);
  });
});
