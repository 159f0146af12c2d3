import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-cli-transfer-'));

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

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
  } finally {
    await database.drop();
  }
});
