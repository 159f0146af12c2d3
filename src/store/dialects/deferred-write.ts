/**
 * A write in a transaction whose result nobody reads (an outbox row: the events of a change).
 * On SQLite it travels
 * to the writer's thread with the transaction's next statement, often its COMMIT, instead of
 * in a message of its own (sqlite.ts); an error in it fails that next statement, so the
 * transaction still fails as a whole. Outside a transaction, inside a writer procedure (already
 * in the writer's thread), and on PostgreSQL (whose statements are always sent as they come,
 * their parameters bound by the server), it runs at once: the comment that marks it is only a
 * comment to the engine.
 */
import { CompiledQuery } from 'kysely';

export const DEFERRED_WRITE = '/* deferred */ ';

export function deferredWrite(query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(DEFERRED_WRITE + query.sql, [...query.parameters]);
}
