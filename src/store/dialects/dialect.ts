import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';

export type Engine = 'sqlite' | 'postgres';

/** What the one store implementation needs from an engine: a connection and error triage. */
export interface EngineConnection {
  readonly engine: Engine;
  readonly db: Kysely<Database>;
  classifyError(error: unknown): StoreErrorKind | undefined;
  close(): Promise<void>;
}
