import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';
import type { EngineConnection } from './dialect.js';

export interface PostgresOptions {
  /** Most connections the pool opens. */
  poolSize?: number;
}

const INT8_OID = 20;

/**
 * PostgreSQL through a pg pool. int8 values (ids, instants in milliseconds) come back as
 * numbers: they stay far below 2^53.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): EngineConnection {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // Fail fast when the server is gone, so that clients get a 503 instead of a hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30000,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server emits here; without a listener the process would die.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    engine: 'postgres',
    db,
    classifyError: classifyPostgresError,
    close: () => db.destroy(),
  };
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed/i;

export function classifyPostgresError(error: unknown): StoreErrorKind | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '23505') return 'unique-violation';
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return 'unavailable';
    // 08: connection exception; 53: insufficient resources; 57P: operator intervention.
    if (/^(08|53|57P)/.test(code)) return 'unavailable';
  }
  if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return 'unavailable';
  return undefined;
}
