import { describe, expect, it } from 'vitest';
import { inlined } from '../../src/store/dialects/postgres-deferred-writes.js';

describe('a deferred write inlined into the simple query that carries its COMMIT (PostgreSQL)', () => {
  it('writes each value as a literal, strings escaped by pg (quotes doubled, backslashes in E-strings)', () => {
    const sql = inlined({ text: 'insert into t (a, b, c, d, e) values ($1, $2, $3, $4, $5)', values: [7, "it's", 'a\\b', null, true] });
    expect(sql).toBe(`insert into t (a, b, c, d, e) values (7, 'it''s',  E'a\\\\b', null, true)`);
  });

  it('reads $10 as the tenth value, not the first followed by a zero', () => {
    const values = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(inlined({ text: 'values ($1, $10)', values })).toBe('values (1, 10)');
  });

  it('refuses what it cannot write safely: a NUL character, a non-finite number, an object, quoted text in the statement, a missing value', () => {
    expect(inlined({ text: 'values ($1)', values: ['a\0b'] })).toBeUndefined();
    expect(inlined({ text: 'values ($1)', values: [Number.NaN] })).toBeUndefined();
    expect(inlined({ text: 'values ($1)', values: [Buffer.from('x')] })).toBeUndefined();
    expect(inlined({ text: "values ($1, 'x')", values: [1] })).toBeUndefined();
    expect(inlined({ text: 'values ($1, $2)', values: [1] })).toBeUndefined();
  });
});
