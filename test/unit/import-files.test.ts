/**
 * Reading an import file (files.ts) at its edges: a line or a record over 1 MiB is refused
 * without holding the event loop (a JSON Lines line is rejected, the lines after it read; a
 * CSV record stops the file with a clear reason, as a quote left open would take the rest of it).
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINE_TOO_LONG, readColumns, readImportFile, type FileFormat, type ReadRow } from '../../src/import-export/files.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-files-test-'));
let files = 0;
function file(name: string, text: string): string {
  const path = join(dir, `${files++}-${name}`);
  writeFileSync(path, text);
  return path;
}

async function read(path: string, format: FileFormat, mapping: ReadonlyMap<string, string> = new Map()): Promise<ReadRow[]> {
  const rows: ReadRow[] = [];
  for await (const row of readImportFile(path, format, mapping).rows) rows.push(row);
  return rows;
}

const LONG = 'x'.repeat(2 * 1024 * 1024);

describe('an import file with a line over 1 MiB', () => {
  it('JSON Lines: the line is rejected as too long, the lines around it read, the offsets right', async () => {
    const lines = ['{"login":"ann"}', `{"login":"long","note":"${LONG}"}`, '{"login":"bob"}\r', '{"login":"cid"}'];
    const path = file('long.jsonl', lines.join('\n'));
    const started = performance.now();
    const rows = await read(path, 'jsonl');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(rows.map((row) => [row.line, row.values.get('login'), row.unreadable])).toEqual([
      [1, 'ann', undefined],
      [2, undefined, LINE_TOO_LONG],
      [3, 'bob', undefined],
      [4, 'cid', undefined],
    ]);
    expect(rows.at(-1)!.offset).toBe(Buffer.byteLength(lines.join('\n')));
    expect(rows[1]!.original).toBe('');
    // Its columns are read from the lines that can be.
    expect(await readColumns(path, 'jsonl')).toEqual(['login']);
    await expect(readColumns(file('first.jsonl', `{"login":"${LONG}"}\n{"login":"ann"}\n`), 'jsonl')).rejects.toThrow(
      'the file is not JSON Lines: its first line is over 1 MiB',
    );
  });

  it('CSV: the file stops at the record with a clear reason, the rows before it read', async () => {
    const path = file('long.csv', `login,note\nann,a\nlong,${LONG}\nbob,b\n`);
    const rows: ReadRow[] = [];
    const reading = (async () => {
      for await (const row of readImportFile(path, 'csv', new Map()).rows) rows.push(row);
    })();
    await expect(reading).rejects.toThrow('the record at line 3 is over 1 MiB (a quote left open?): the file is read no further');
    expect(rows.map((row) => row.values.get('login'))).toEqual(['ann']);
    // A quote left open takes the rest of the file: the same.
    const open = file('open.csv', `login,note\nann,"a\n${Array.from({ length: 30_000 }, (_, i) => `m${i},${'y'.repeat(40)}`).join('\n')}\n`);
    await expect(read(open, 'csv')).rejects.toThrow('is over 1 MiB');
    await expect(readColumns(file('header.csv', `login,${LONG}\nann,a\n`), 'csv')).rejects.toThrow('the header is over 1 MiB');
  });
});

describe.runIf(existsSync('/proc/self/fd'))('a run stopped before the end of its file', () => {
  const open = () => readdirSync('/proc/self/fd').length;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  for (const format of ['jsonl', 'csv'] as const) {
    it(`closes the ${format} file when the reader is closed`, async () => {
      const text =
        format === 'csv'
          ? `login\n${Array.from({ length: 50_000 }, (_, i) => `m${i}`).join('\n')}\n`
          : Array.from({ length: 50_000 }, (_, i) => `{"login":"m${i}"}`).join('\n');
      const path = file(`stopped.${format}`, text);
      await settle();
      const before = open();
      const reader = readImportFile(path, format, new Map());
      // One row read, and no more asked for: the iterator is left as a stopped run leaves it.
      const first = await reader.rows[Symbol.asyncIterator]().next();
      expect(first.value).toMatchObject({ line: format === 'csv' ? 2 : 1 });
      await settle();
      expect(open()).toBe(before + 1);
      reader.close();
      await settle();
      expect(open()).toBe(before);
    });
  }
});
