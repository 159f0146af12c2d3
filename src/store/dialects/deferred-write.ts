/**
 * A write in a transaction whose result nobody reads (an outbox row: the events of a change;
 * on PostgreSQL, the lock an update takes on the members it then reads). It travels with the
 * transaction's next statement, often its COMMIT, instead of a round trip of its own: on
 * SQLite to the writer's thread (sqlite.ts), on PostgreSQL to the server, in one simple query
 * with that statement (postgres-deferred-writes.ts). An error in it fails that
 * next statement, so the transaction still fails as a whole. Outside a transaction, and inside
 * a writer procedure on SQLite (already in the writer's thread), it runs at once: the comment
 * that marks it is only a comment to the engine.
 */
import { CompiledQuery } from 'kysely';

export const DEFERRED_WRITE = '/* deferred */ ';

export function deferredWrite(query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(DEFERRED_WRITE + query.sql, [...query.parameters]);
}
