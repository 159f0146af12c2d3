import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, hasScript, runCli } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-cli-transfer-'));

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`member-api import, export, backup [${engine}]`, () => {
    it('imports a file, exports it, and moves it to another account through a pipe', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      try {
        for (const name of ['first', 'second']) expect((await runCli(['account', 'create', name, '--json'], env)).code).toBe(0);
        const csv = join(dir, `${engine}-members.csv`);
        writeFileSync(csv, 'login,email,password,city\nann,ann@example.com,ann-password,Paris\nbob,bob@example.com,bob-password,Oslo\nbad,,x,\n');
        const imported = await runCli(['import', csv, '--account', 'first'], env);
        expect(imported.code).toBe(0);
        expect(imported.stdout).toMatch(/^3 rows read in [\d.]+ s \(\d+ rows\/s\)\n {2}imported +2 +\(new members\)\n {2}updated +0\n {2}rejected +1 +rows written to .*members\.csv\.rejected\.csv\n +1 {2}missing email/);
        expect(await runCli(['import', csv, '--account', 'nobody'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('no account "nobody"') });

        const exported = await runCli(['export', '--account', 'first', '--format', 'jsonl'], env);
        expect(exported.code).toBe(0);
        const lines = exported.stdout.trim().split('\n').map((line) => JSON.parse(line));
        expect(lines.map((l) => [l.login, l.city, l.password_hash.slice(0, 10)])).toEqual([
          ['ann', 'Paris', '$argon2id$'],
          ['bob', 'Oslo', '$argon2id$'],
        ]);

        // The documented move: export | import -, here between two accounts of one store.
        const piped = execFileSync('sh', ['-c', `node ${BIN} export --account first | node ${BIN} import - --account second --json`], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
        });
        expect(JSON.parse(piped)).toMatchObject({ read: 2, imported: 2, rejected: 0 });
        const second = await runCli(['export', '--account', 'second'], env);
        expect(second.stdout.split('\n')[0]).toMatch(/^id,login,email,password_hash,status,.*,city$/);
        expect(second.stdout).toContain(',ann,ann@example.com,"$argon2id$v=19$m=19456,t=2,p=1$');
      } finally {
        await database.drop();
      }
    });

    it(engine === 'sqlite' ? 'backs up the store into a file that is itself a working store' : 'points to pg_dump for backups', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      try {
        expect((await runCli(['account', 'create', 'kept', '--json'], env)).code).toBe(0);
        const target = join(dir, `${engine}-backup.db`);
        const backup = await runCli(['backup', target], env);
        if (engine === 'sqlite') {
          expect(backup).toMatchObject({ code: 0, stdout: `backed up to ${target}\n` });
          expect((await runCli(['account', 'list'], { DATABASE_URL: target })).stdout).toBe('kept\n');
        } else {
          expect(backup.code).toBe(1);
          expect(backup.stderr).toMatch(/pg_dump/);
          expect(existsSync(target)).toBe(false);
        }
      } finally {
        await database.drop();
      }
    });
  });
}

// The bar is the command line's, the same on either engine.
it.skipIf(!hasScript())('shows a progress bar on a terminal, and none when the output is not one', async () => {
  const database = await createTestDatabase('sqlite');
  const env = { ...process.env, DATABASE_URL: database.url };
  try {
    expect((await runCli(['account', 'create', 'bar', '--json'], { DATABASE_URL: database.url })).code).toBe(0);
    const csv = join(dir, 'bar.csv');
    writeFileSync(csv, `login,email,password_hash\n${Array.from({ length: 1500 }, (_, i) => `b${i},b${i}@example.com,{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=`).join('\n')}\n`);
    // util-linux's script(1) runs the command on a pseudo-terminal.
    const onTerminal = execFileSync('script', ['-qec', `node ${BIN} import ${csv} --account bar`, '/dev/null'], { env, encoding: 'utf8' });
    expect(onTerminal).toMatch(/importing \[=+\] 100% \| 1500 rows/);
    const piped = await runCli(['import', csv, '--account', 'bar'], { DATABASE_URL: database.url });
    expect(piped.stderr).toBe('');
    expect(piped.stdout).toMatch(/^1500 rows read/);

    // Plain passwords are hashed (the slow part): the bar moves with each, not only when a
    // batch of a thousand is written, nor with the bytes read ahead of the rows handled.
    const plain = join(dir, 'plain.csv');
    writeFileSync(plain, `login,email,password\n${Array.from({ length: 400 }, (_, i) => `p${i},p${i}@example.com,password-${i}-long`).join('\n')}\n`);
    const slow = execFileSync('script', ['-qec', `node ${BIN} import ${plain} --account bar`, '/dev/null'], { env, encoding: 'utf8' });
    const shown = new Set([...slow.matchAll(/\] (\d+)% \|/g)].map((match) => Number(match[1])));
    expect([...shown].filter((percent) => percent > 0 && percent < 100).length).toBeGreaterThanOrEqual(4);
    expect(slow).toMatch(/100% \| 400 rows/);
  } finally {
    await database.drop();
  }
});

describe('member-api import: what stops it before it starts', () => {
  it('names a missing file, a folder and a header without logins in one line, and a dry run writes no rejects file', async () => {
    const database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.url };
    try {
      expect((await runCli(['account', 'create', 'shop', '--json'], env)).code).toBe(0);
      const missing = await runCli(['import', join(dir, 'nofile.csv'), '--account', 'shop'], env);
      expect(missing).toMatchObject({ code: 1, stderr: `member-api: no file "${join(dir, 'nofile.csv')}" (check the path; - reads standard input)\n` });
      const folder = join(dir, 'folder.csv');
      mkdirSync(folder, { recursive: true });
      expect(await runCli(['import', folder, '--account', 'shop'], env)).toMatchObject({ code: 1, stderr: `member-api: "${folder}" is a folder, not a file to import\n` });

      const nologin = join(dir, 'nologin.csv');
      writeFileSync(nologin, 'username,email,password\nann,ann@example.com,ann-password\n');
      const refused = await runCli(['import', nologin, '--account', 'shop'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe('member-api: the header has no login column, which every row needs (its columns: username, email, password); name the one that holds logins with --map "SOURCE=login"\n');
      expect(existsSync(`${nologin}.rejected.csv`)).toBe(false);
      // Mapped, the same file imports.
      expect(await runCli(['import', nologin, '--account', 'shop', '--map', 'username=login'], env)).toMatchObject({ code: 0, stdout: expect.stringMatching(/imported +1 /) });

      const bad = join(dir, 'dry.csv');
      writeFileSync(bad, 'login,email,password\nok,ok@example.com,ok-password\nno email,,x-password\n');
      const dry = await runCli(['import', bad, '--account', 'shop', '--dry-run'], env);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(/^dry run \(nothing written\): 2 rows read/);
      expect(dry.stdout).toMatch(/rejected +1\n +1 {2}invalid login/);
      expect(existsSync(`${bad}.rejected.csv`)).toBe(false);
    } finally {
      await database.drop();
    }
  });
});
