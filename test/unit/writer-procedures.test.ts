/**
 * SQLite's writer thread runs a writer procedure only if store/writer-procedures.ts lists it
 * (PostgreSQL would run an unlisted one anyway): every one declared in the store is listed, once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WRITER_PROCEDURES } from '../../src/store/writer-procedures.js';

const STORE = new URL('../../src/store/', import.meta.url).pathname;

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

describe('writer procedures', () => {
  it('are each listed once in store/writer-procedures.ts', () => {
    const declared = sources(STORE).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/writerProcedure\(\s*'([^']+)'/g)].map((match) => match[1]!));
    const listed = WRITER_PROCEDURES.map((procedure) => procedure.name);
    expect(declared.length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...declared].sort());
  });
});
