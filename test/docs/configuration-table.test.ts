/**
 * The environment-variable table of docs/configuration.md and the schema in src/config.ts
 * list the same variables, and a default the table shows as one literal value is the one
 * loadConfig fills in.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, SCHEMA } from '../../src/config.js';

const PAGE = 'docs/configuration.md';
const SECTION = '## Environment variables';

interface Row {
  readonly name: string;
  readonly defaultCell: string;
}

/** The rows of the first table under SECTION: the variable (its first column, in backticks) and its default cell. */
function tableRows(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const start = lines.indexOf(SECTION);
  if (start === -1) throw new Error(`${PAGE} has no "${SECTION}" heading`);
  const rows: Row[] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('#')) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
    const name = /^`([A-Z0-9_]+)`$/.exec(cells[0] ?? '')?.[1];
    if (name) rows.push({ name, defaultCell: cells[1] ?? '' });
  }
  return rows;
}

/** `DATABASE_URL` → `databaseUrl`: the field of Config that holds a variable. */
const fieldOf = (name: string) => name.toLowerCase().replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** Whether a default shown as a literal is the value loadConfig holds (`on`/`true` for true, `off`/`false` for false). */
function sameDefault(shown: string, value: unknown): boolean {
  if (typeof value === 'boolean') return value ? shown === 'on' || shown === 'true' : shown === 'off' || shown === 'false';
  return String(value) === shown;
}

describe(`the environment variables of ${PAGE}`, () => {
  const rows = tableRows(readFileSync(new URL(`../../${PAGE}`, import.meta.url), 'utf8'));
  const documented = rows.map((row) => row.name);
  const declared = Object.keys(SCHEMA.properties);

  it('are read from a table', () => {
    expect(rows.length).toBeGreaterThan(0);
  });

  it('include every variable of the schema in src/config.ts', () => {
    const undocumented = declared.filter((name) => !documented.includes(name));
    expect(undocumented, `in the schema (src/config.ts) but not in the table of ${PAGE}: ${undocumented.join(', ')}`).toEqual([]);
  });

  it('are all in the schema in src/config.ts', () => {
    const unknown = documented.filter((name) => !declared.includes(name));
    expect(unknown, `in the table of ${PAGE} but not in the schema (src/config.ts): ${unknown.join(', ')}`).toEqual([]);
  });

  it('are each documented once', () => {
    const repeated = documented.filter((name, index) => documented.indexOf(name) !== index);
    expect(repeated, `more than one row of ${PAGE} for: ${repeated.join(', ')}`).toEqual([]);
  });

  it('show the defaults loadConfig fills in', () => {
    const config = loadConfig({}) as unknown as Record<string, unknown>;
    const wrong: string[] = [];
    for (const { name, defaultCell } of rows) {
      // Only a default shown as one literal (`8080`, `on`) is compared; one described in words depends on the machine or another variable.
      const literal = /^`([^`]*)`$/.exec(defaultCell)?.[1];
      if (literal === undefined) continue;
      const field = fieldOf(name);
      if (!(field in config)) wrong.push(`${name}: the table shows the default ${literal}, but the configuration has no field ${field}`);
      else if (!sameDefault(literal, config[field]))
        wrong.push(`${name}: the table shows the default ${literal}, loadConfig fills in ${JSON.stringify(config[field])}`);
    }
    expect(wrong).toEqual([]);
  });
});
