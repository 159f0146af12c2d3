/**
 * The rejects file of an import on a full disk (Linux's /dev/full answers every write with
 * ENOSPC): its write() or close() rejects with the error; nothing is thrown where nobody
 * listens (an uncaught exception would end the server).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RejectsFile, type ReadRow } from '../../src/import-export/files.js';

const row = (line: number): ReadRow => ({ line, values: new Map(), original: { login: `member${line}`, email: 'x'.repeat(200) }, offset: 0 });

describe.runIf(existsSync('/dev/full'))('a rejects file on a full disk', () => {
  for (const format of ['csv', 'jsonl'] as const) {
    it(`rejects with ENOSPC, a ${format} file of one row or of many, rather than crashing the process`, async () => {
      const one = new RejectsFile('/dev/full', format, () => ['login', 'email']);
      await one.write(row(2), 'invalid email');
      await expect(one.close()).rejects.toMatchObject({ code: 'ENOSPC' });

      // Many rows: the stream fills, and its error (not a 'drain' that never comes) ends the wait.
      const many = new RejectsFile('/dev/full', format, () => ['login', 'email']);
      const written = (async () => {
        for (let line = 2; line < 5000; line++) await many.write(row(line), 'invalid email');
      })();
      await expect(written).rejects.toMatchObject({ code: 'ENOSPC' });
      await expect(many.close()).rejects.toMatchObject({ code: 'ENOSPC' });
    });
  }
});
