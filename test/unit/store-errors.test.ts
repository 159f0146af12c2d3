/** Driver errors sorted at the store's edge: which are a uniqueness rule broken, which an outage. */
import { describe, expect, it } from 'vitest';
import { classifyPostgresError } from '../../src/store/dialects/postgres.js';
import { classifySqliteError } from '../../src/store/dialects/sqlite.js';

describe('driver error triage', () => {
  it('recognises SQLite uniqueness and outage codes', () => {
    expect(classifySqliteError({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe('unique-violation');
    expect(classifySqliteError({ code: 'SQLITE_BUSY' })).toBe('unavailable');
    expect(classifySqliteError({ code: 'SQLITE_IOERR_WRITE' })).toBe('unavailable');
    expect(classifySqliteError({ code: 'SQLITE_CONSTRAINT_CHECK' })).toBeUndefined();
    expect(classifySqliteError(new Error('x'))).toBeUndefined();
  });

  it('recognises PostgreSQL uniqueness and connection failures', () => {
    expect(classifyPostgresError({ code: '23505' })).toBe('unique-violation');
    expect(classifyPostgresError({ code: 'ECONNREFUSED' })).toBe('unavailable');
    expect(classifyPostgresError({ code: '57P01' })).toBe('unavailable');
    expect(classifyPostgresError({ code: '08006' })).toBe('unavailable');
    // A read-only server: a primary restarted read-only while a failover promotes another.
    expect(classifyPostgresError({ code: '25006' })).toBe('unavailable');
    expect(classifyPostgresError(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(classifyPostgresError({ code: '42P01' })).toBeUndefined();
    expect(classifyPostgresError(null)).toBeUndefined();
  });
});
