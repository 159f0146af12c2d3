/** Which statements the PostgreSQL pool sends as named (prepared) statements. */
import { describe, expect, it } from 'vitest';
import { StatementNames } from '../../src/store/dialects/postgres-prepared.js';

describe('StatementNames', () => {
  it('names a text from its third use on, always by the same name, and a different text by another', () => {
    const names = new StatementNames();
    const text = 'select * from members where id = $1';
    expect(names.nameOf(text, 1)).toBeUndefined();
    expect(names.nameOf(text, 1)).toBeUndefined();
    const name = names.nameOf(text, 1);
    expect(name).toMatch(/^m_[A-Za-z0-9_-]{20}$/);
    expect(names.nameOf(text, 1)).toBe(name);
    const other = 'select * from members where login = $1';
    for (let i = 0; i < 3; i++) names.nameOf(other, 1);
    expect(names.nameOf(other, 1)).not.toBe(name);
    expect(names.size).toBe(2);
  });

  it('never names a text without parameters, with too many or too long, and stops naming at its bound', () => {
    const names = new StatementNames();
    const many = `select 1 where 1 in (${Array.from({ length: 200 }, (_, i) => `$${i + 1}`).join(', ')})`;
    for (let i = 0; i < 5; i++) expect(names.nameOf(many, 200)).toBeUndefined();
    const long = `select '${'x'.repeat(10_000)}' where $1`;
    for (let i = 0; i < 5; i++) expect(names.nameOf(long, 1)).toBeUndefined();
    for (let i = 0; i < 5; i++) expect(names.nameOf('commit', 0)).toBeUndefined();
    // Its rows depend on the value: planned for each one.
    for (const ranged of [
      'select id from members where exp_time_at <= $1',
      'select 1 where at > cast($1 as bigint)',
      'select id from members where login like $1',
      // A range of another column than the key, even one whose name ends in id.
      'select id from events where "account_id" = $1 and "member_id" >= $2',
      'select "id" from "members" where "id" > $1 and "exp_time_at" <= $2',
    ]) {
      for (let i = 0; i < 5; i++) expect(names.nameOf(ranged, 1)).toBeUndefined();
    }
    // A range of the primary key is one whatever the value, a comparison written value first
    // only filters the rows found otherwise, and `<>` compares no order: named as any other.
    for (const keyed of [
      'select "id" from "members" where ("account_id" = $1 and "login_key" = $2) and "id" > $3 order by "id" limit $4',
      'update "members" set "city" = $1 where "m"."id" >= $2 and id <= cast($3 as bigint)',
      'update "members" set "login_count" = login_count + 1 where "id" = $1 and ("exp_time_at" is null or $2 < "exp_time_at")',
      'select "id" from "members" where "account_id" = $1 and "status" <> $2',
    ]) {
      const results = [0, 1, 2].map(() => names.nameOf(keyed, 3));
      expect(results.slice(0, 2)).toEqual([undefined, undefined]);
      expect(results[2]).toMatch(/^m_/);
    }
    for (let n = 0; n < 400; n++) for (let i = 0; i < 3; i++) names.nameOf(`select ${n} where $1`, 1);
    expect(names.size).toBe(400);
    for (let i = 0; i < 5; i++) expect(names.nameOf('select 400 where $1', 1)).toBeUndefined();
    // A text named already keeps its name.
    expect(names.nameOf('select 0 where $1', 1)).toMatch(/^m_/);
  });
});
