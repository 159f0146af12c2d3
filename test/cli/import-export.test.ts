import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, exitOf, hasScript, runCli, type CliResult } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-cli-transfer-'));

/** `member-api ARGS` under umask 022, as a login shell usually has it (files it makes would be 644). */
function runUnderUmask(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', 'umask 022 && exec "$@"', 'sh', process.execPath, BIN, ...args],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

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
        expect(imported.stdout).toMatch(
          /^3 rows read in [\d.]+ s \(\d+ rows\/s\)\n {2}imported +2 +\(new members\)\n {2}updated +0\n {2}rejected +1 +rows written to .*members\.csv\.rejected\.csv\n +1 {2}missing email/,
        );
        expect(await runCli(['import', csv, '--account', 'nobody'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('no account "nobody"') });

        const exported = await runCli(['export', '--account', 'first', '--format', 'jsonl'], env);
        expect(exported.code).toBe(0);
        const lines = exported.stdout
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
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
          expect((await runCli(['account', 'list'], { DATABASE_URL: target })).stdout).toMatch(/^user +created\nkept +\S+\n$/);
        } else {
          expect(backup.code).toBe(1);
          expect(backup.stderr).toMatch(/pg_dump/);
          expect(existsSync(target)).toBe(false);
        }
      } finally {
        await database.drop();
      }
    });

    it("shows a file's control characters as visible escapes in the import's errors and summary, never to the terminal", async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      const here = mkdtempSync(join(dir, `${engine}-terminal-`));
      const CONTROLS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
      try {
        expect((await runCli(['account', 'create', 'shop', '--json'], env)).code).toBe(0);
        // A header naming no column: the error quotes it.
        const header = join(here, 'header.csv');
        writeFileSync(header, 'login,email,\x1b]0;pwned\x07\u202ecity\nann,ann@example.com,Paris\n');
        const refused = await runCli(['import', header, '--account', 'shop'], env);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          'member-api: column "\\x1b]0;pwned\\x07\\u202ecity" is neither a member column nor a valid profile field name (rename it with --map "SOURCE=TARGET", or drop it with --map "SOURCE=")\n',
        );
        // A record the parser cannot split: its reason quotes the character after the quote.
        const broken = join(here, 'broken.csv');
        writeFileSync(broken, 'login,email,password\nann,ann@example.com,ann-password\n"bob"\x1b[2K,bob@example.com,bob-password\n');
        const summary = await runCli(['import', broken, '--account', 'shop'], env);
        expect(summary.code).toBe(0);
        expect(summary.stdout).not.toMatch(CONTROLS);
        expect(summary.stdout).toMatch(/ {2}unreadable CSV: Invalid Closing Quote: got "\\x1b" at line 3/);
      } finally {
        await database.drop();
      }
    });

    it('writes exports, rejects files and backups as new files only their owner reads, never over a file or through a link', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      const here = mkdtempSync(join(dir, `${engine}-private-`));
      const victim = join(here, 'victim.txt');
      writeFileSync(victim, 'untouched\n');
      const link = (name: string) => {
        symlinkSync(victim, join(here, name));
        return join(here, name);
      };
      const refusal = (what: string, path: string, choose: string) =>
        `member-api: ${what} "${path}" already exists (a file or a link): remove it or choose ${choose}; it is never written over\n`;
      try {
        expect((await runUnderUmask(['account', 'create', 'files', '--json'], env)).code).toBe(0);
        // The rejects file holds the plain passwords of the rows it rejects.
        const csv = join(here, 'members.csv');
        writeFileSync(csv, 'login,email,password\nann,ann@example.com,ann-password\nno-email,,plain-secret-password\n');
        expect(await runUnderUmask(['import', csv, '--account', 'files'], env)).toMatchObject({ code: 0, stdout: expect.stringMatching(/imported +1 /) });
        expect(readFileSync(`${csv}.rejected.csv`, 'utf8')).toContain('plain-secret-password');
        expect(modeOf(`${csv}.rejected.csv`)).toBe(0o600);
        // A rejects file named with --rejects that is already there, or a link in its place,
        // stops the import before it writes anything.
        const again = join(here, 'again.csv');
        writeFileSync(again, 'login,email,password\nbea,bea@example.com,bea-password\nno-email,,plain-secret-password\n');
        const linked = link('rejects.csv');
        expect(await runUnderUmask(['import', again, '--account', 'files', '--rejects', linked], env)).toMatchObject({
          code: 1,
          stderr: refusal('the rejects file', linked, 'another name with --rejects FILE'),
        });
        expect(await runUnderUmask(['import', again, '--account', 'files', '--rejects', `${csv}.rejected.csv`], env)).toMatchObject({
          code: 1,
          stderr: refusal('the rejects file', `${csv}.rejected.csv`, 'another name with --rejects FILE'),
        });
        expect(JSON.parse((await runCli(['member', 'find', 'bea', '--account', 'files', '--json'], env)).stdout)).toEqual([]);
        // The same file run again: the earlier run's rejects are kept, the new ones go beside them.
        const rerun = await runUnderUmask(['import', csv, '--account', 'files'], env);
        expect(rerun).toMatchObject({ code: 0, stdout: expect.stringContaining(`rows written to ${csv}.rejected.1.csv`) });
        expect(readFileSync(`${csv}.rejected.csv`, 'utf8')).toContain('plain-secret-password');
        expect(modeOf(`${csv}.rejected.1.csv`)).toBe(0o600);
        // A device keeps nothing, and is written to as it is.
        expect(await runUnderUmask(['import', again, '--account', 'files', '--rejects', '/dev/null'], env)).toMatchObject({
          code: 0,
          stdout: expect.stringMatching(/imported +1 /),
        });

        // The export holds the password hashes.
        const exported = join(here, 'export.csv');
        expect((await runUnderUmask(['export', '--account', 'files', '--output', exported], env)).code).toBe(0);
        expect(readFileSync(exported, 'utf8')).toContain('$argon2id$');
        expect(modeOf(exported)).toBe(0o600);
        const before = readFileSync(exported, 'utf8');
        expect(await runUnderUmask(['export', '--account', 'files', '--output', exported], env)).toMatchObject({
          code: 1,
          stderr: refusal('the export file', exported, 'another name for --output'),
        });
        expect(readFileSync(exported, 'utf8')).toBe(before);
        const exportLink = link('export-link.csv');
        expect(await runUnderUmask(['export', '--account', 'files', '--output', exportLink], env)).toMatchObject({
          code: 1,
          stderr: refusal('the export file', exportLink, 'another name for --output'),
        });
        // A link to nowhere is refused too: nothing is made where it points.
        const nowhere = join(here, 'nowhere.csv');
        symlinkSync(join(here, 'made-through-a-link.csv'), nowhere);
        expect((await runUnderUmask(['export', '--account', 'files', '--output', nowhere], env)).code).toBe(1);
        expect(existsSync(join(here, 'made-through-a-link.csv'))).toBe(false);

        if (engine === 'sqlite') {
          expect(modeOf(database.url)).toBe(0o600);
          const backup = join(here, 'backup.db');
          expect(await runUnderUmask(['backup', backup], env)).toMatchObject({ code: 0, stdout: `backed up to ${backup}\n` });
          expect(modeOf(backup)).toBe(0o600);
          expect((await runCli(['account', 'list'], { DATABASE_URL: backup })).stdout).toMatch(/^user +created\nfiles +\S+\n$/);
          expect(await runUnderUmask(['backup', backup], env)).toMatchObject({ code: 1, stderr: refusal('the backup file', backup, 'another name') });
          const backupLink = link('backup-link.db');
          expect(await runUnderUmask(['backup', backupLink], env)).toMatchObject({ code: 1, stderr: refusal('the backup file', backupLink, 'another name') });
          expect(lstatSync(backupLink).isSymbolicLink()).toBe(true);
        }
        expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
        expect(modeOf(victim)).toBe(0o644);
      } finally {
        await database.drop();
      }
    });
  });
}

// The store's file is SQLite's alone.
it('makes a new SQLite store, and the -wal and -shm files SQLite adds beside it, only their owner reads', async () => {
  const database = await createTestDatabase('sqlite');
  // `serve` keeps the store open, so its -wal and -shm files are there to look at.
  const child = spawn('sh', ['-c', 'umask 022 && exec "$@"', 'sh', process.execPath, BIN, 'serve'], {
    env: { ...process.env, DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'warn', DEMO_KEY_FILE: join(dir, 'private-store-demo-key') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const deadline = Date.now() + 30_000;
    while (!/listening on/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect([database.url, `${database.url}-wal`, `${database.url}-shm`].map(modeOf)).toEqual([0o600, 0o600, 0o600]);
  } finally {
    child.kill('SIGTERM');
    await exitOf(child);
    await database.drop();
  }
});

// The bar is the command line's, the same on either engine.
it.skipIf(!hasScript())('shows a progress bar on a terminal, and none when the output is not one', async () => {
  const database = await createTestDatabase('sqlite');
  const env = { ...process.env, DATABASE_URL: database.url };
  try {
    expect((await runCli(['account', 'create', 'bar', '--json'], { DATABASE_URL: database.url })).code).toBe(0);
    const csv = join(dir, 'bar.csv');
    writeFileSync(
      csv,
      `login,email,password_hash\n${Array.from({ length: 1500 }, (_, i) => `b${i},b${i}@example.com,{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M=`).join('\n')}\n`,
    );
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

describe('member-api import: its rejects file', () => {
  it('keeps the file’s own columns when the first record after the header cannot be read', async () => {
    const database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.url };
    try {
      expect((await runCli(['account', 'create', 'early', '--json'], env)).code).toBe(0);
      const file = join(dir, 'early-error.csv');
      writeFileSync(file, 'login,email,password,city\n"a"b,a@example.com,a-password-1,Oslo\nok,ok@example.com,ok-password-1,Rome\n');
      expect((await runCli(['import', file, '--account', 'early'], env)).stdout).toMatch(/rejected +2 /);
      const rejects = readFileSync(`${file}.rejected.csv`, 'utf8').split('\n');
      expect(rejects[0]).toBe('login,email,password,city,_line,_reason,_text');
      expect(rejects[1]).toMatch(/^,,,,2,"unreadable CSV: Invalid Closing Quote/);
    } finally {
      await database.drop();
    }
  });
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
      expect(await runCli(['import', folder, '--account', 'shop'], env)).toMatchObject({
        code: 1,
        stderr: `member-api: "${folder}" is a folder, not a file to import\n`,
      });

      const nologin = join(dir, 'nologin.csv');
      writeFileSync(nologin, 'username,email,password\nann,ann@example.com,ann-password\n');
      const refused = await runCli(['import', nologin, '--account', 'shop'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        'member-api: the header has no login column, which every row needs (its columns: username, email, password); name the one that holds logins with --map "SOURCE=login"\n',
      );
      expect(existsSync(`${nologin}.rejected.csv`)).toBe(false);
      // Mapped, the same file imports.
      expect(await runCli(['import', nologin, '--account', 'shop', '--map', 'username=login'], env)).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/imported +1 /),
      });

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
