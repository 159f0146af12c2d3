/**
 * Deferred writes on PostgreSQL (deferred-write.ts): a transaction's write whose result nobody
 * reads (its events, appended to the outbox; the lock an update takes on the members it is
 * about to read) waits, and travels to the server with the transaction's next statement (its
 * COMMIT, or the read after the lock), as one simple query: one round trip less per write.
 * A round trip is what an update of one member spends most of its time on here (each is a
 * write to the socket and a wake-up of the server process: about 0.3 ms of the event loop on
 * this project's benchmark machine, for statements that take a tenth of that).
 *
 * The simple protocol takes no parameters, so the write's values are written into its SQL as
 * literals, with pg's own escaping (`escapeLiteral`), and only when every value is a number, a
 * boolean, null, or a string without a NUL character, and the statement has no quoted text of
 * its own (and the same of the statement it travels with); anything else is sent as it is,
 * before that statement, in a trip of its own. An error in the write ends the simple query
 * before the statement after it, so the transaction fails as a whole (and is rolled back), as
 * it would have with the write sent at once.
 */
import pg from 'pg';
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { DEFERRED_WRITE } from './deferred-write.js';

type Query = { text: string; values: readonly unknown[] };

/** The pool as Kysely sees it: each client it hands out defers a transaction's deferred writes. */
export function deferringPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let deferring = wrapped.get(client);
      if (!deferring) wrapped.set(client, (deferring = deferringClient(client)));
      return deferring;
    },
    end: () => pool.end(),
  };
}

function deferringClient(client: pg.PoolClient): PostgresPoolClient {
  let inTransaction = false;
  let deferred: Query[] = [];
  const send = async (writes: Query[]) => {
    for (const write of writes) await client.query(write.text, [...write.values]);
  };
  const run = async <R>(text: string, values: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> => {
    if (text === 'begin' || text.startsWith('start transaction')) inTransaction = true;
    else if (inTransaction && text.startsWith(DEFERRED_WRITE)) {
      deferred.push({ text, values });
      return { command: 'INSERT', rowCount: 0, rows: [] };
    } else if (text === 'rollback') {
      inTransaction = false;
      deferred = [];
    } else if (text === 'commit') inTransaction = false;
    const writes = deferred.splice(0);
    if (writes.length > 0) {
      const inline = [...writes, { text, values }].map(inlined);
      if (inline.every((sql) => sql !== undefined)) {
        // One simple query: the writes, then this statement (a COMMIT, or the read after a
        // lock), whose result is the last one; each statement of it has a snapshot of its own
        // under READ COMMITTED, so a read sees what a lock among the writes waited for.
        const results = (await client.query(inline.join(';\n'))) as unknown as Array<PostgresQueryResult<R>>;
        return results.at(-1)!;
      }
      await send(writes);
    }
    return (await client.query(text, [...values])) as unknown as PostgresQueryResult<R>;
  };
  return {
    query: ((text: string | PostgresCursor<unknown>, values?: ReadonlyArray<unknown>) => {
      // The store's Kysely reads no cursors (streams read from snapshots of their own).
      if (typeof text !== 'string') throw new Error('no cursor on a connection that defers writes');
      return run(text, values ?? []);
    }) as PostgresPoolClient['query'],
    release() {
      inTransaction = false;
      deferred = [];
      client.release();
    },
  };
}

/** The write with its values as literals, or undefined when one of them cannot safely be. */
export function inlined({ text, values }: Query): string | undefined {
  if (text.includes("'")) return undefined;
  const literals: string[] = [];
  for (const value of values) {
    if (value === null || value === undefined) literals.push('null');
    else if (typeof value === 'number' && Number.isFinite(value)) literals.push(String(value));
    else if (typeof value === 'boolean') literals.push(String(value));
    else if (typeof value === 'string' && !value.includes('\0')) literals.push(pg.escapeLiteral(value));
    else return undefined;
  }
  let complete = true;
  const sql = text.replace(/\$(\d+)/g, (_, n: string) => {
    const literal = literals[Number(n) - 1];
    if (literal === undefined) complete = false;
    return literal ?? '';
  });
  return complete ? sql : undefined;
}
