/**
 * The console's words live in its part of the catalog (src/messages/console.ts), and only
 * there: a key no console file asks for is dead text, and a key without words would show an
 * empty label.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONSOLE_EN } from '../../src/messages/console.js';

const CONSOLE_DIR = fileURLToPath(new URL('../../src/console/', import.meta.url));

/** Every TypeScript file of the console (its views, its sections, the rest), read whole. */
function consoleSources(): string {
  return readdirSync(CONSOLE_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(join(CONSOLE_DIR, file), 'utf8'))
    .join('\n');
}

describe("the console's catalog", () => {
  it('has no key that the console does not use', () => {
    const sources = consoleSources();
    const unused = Object.keys(CONSOLE_EN).filter((key) => !sources.includes(`'${key}'`) && !sources.includes(`"${key}"`));
    expect(unused).toEqual([]);
  });

  it('has words for every key', () => {
    const empty = Object.entries(CONSOLE_EN)
      .filter(([, text]) => text.trim() === '')
      .map(([key]) => key);
    expect(empty).toEqual([]);
  });
});
