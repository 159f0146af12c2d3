/**
 * A write in a transaction whose result nobody reads (an outbox row: the events of a change).
 * On SQLite it travels to the writer thread with the transaction's next statement, usually
 * its COMMIT, instead of a round trip of its own while the one writer is held (an update of
 * one member is a few statements, and each trip counts); an error in it fails that next
 * statement, so the transaction still fails as a whole. On PostgreSQL it runs at once (the
 * comment that marks it is only a comment there).
 */
import { CompiledQuery } from 'kysely';

export const DEFERRED_WRITE = '/* deferred */ ';

export function deferredWrite(query: CompiledQuery): CompiledQuery {
  return CompiledQuery.raw(DEFERRED_WRITE + query.sql, [...query.parameters]);
}
