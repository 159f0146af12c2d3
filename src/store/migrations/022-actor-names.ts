import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Who made a change, by name as well as by kind: the API key's name for a request, the file's
 * name for an import, the background job's for the system. Null in the events written before,
 * which keep their kind (and an operator's e-mail).
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  for (const table of ['events', 'event_outbox']) await db.schema.alterTable(table).addColumn('actor_name', 'text').execute();
}
