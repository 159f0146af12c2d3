/**
 * The configuration as a new user meets it: every refusal is one line naming the variable and
 * why; a `.env` file is read; a port in use says which variable chose it; --version answers.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A port something already listens on, and how to let it go. */
async function takenPort(): Promise<{ port: number; close: () => void }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, close: () => server.close() };
}

describe('configuration', () => {
  it('prints its version', async () => {
    const result = await runCli(['--version']);
    expect(result.stdout.trim()).toBe(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  });

  it('refuses a database it does not support, naming DATABASE_URL, and creates no file', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: 'mysql://root@localhost/members' }, dir);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'member-api: DATABASE_URL must be a postgres:// URL or a SQLite file path (other databases are not supported), got "mysql://root@localhost/members"',
    );
    expect(existsSync(join(dir, 'mysql:'))).toBe(false);
  });

  it('never prints a DATABASE_URL’s password: one that is not percent-encoded is named as the problem, masked, at every command and at start', async () => {
    for (const command of [['account', 'list'], ['serve'], ['migrate']]) {
      const result = await runCli(command, { DATABASE_URL: 'postgres://app:hunter#2/x?@127.0.0.1:1/members', PORT: '0' }, dir);
      expect(result.code, command.join(' ')).toBe(1);
      expect(result.stderr + result.stdout).not.toMatch(/hunter|#2\/x/);
      expect(result.stderr).toContain('write it percent-encoded (%2F %3F %23 %40), as in postgres://app:****@127.0.0.1:1/members');
    }
    const other = await runCli(['migrate'], { DATABASE_URL: 'mysql://root:hunter2@localhost/members' }, dir);
    expect(other.stderr).toContain('got "mysql://root:****@localhost/members"');
  });

  it('names the variable of a TRUST_PROXY that is no address', async () => {
    const result = await runCli(['migrate'], { TRUST_PROXY: 'maybe', DATABASE_URL: join(dir, 'tp.db') });
    expect(result.stderr.trim()).toBe(
      'member-api: TRUST_PROXY must be true, false, a hop count, or addresses and CIDR ranges separated by commas; "maybe" is none of these',
    );
  });

  it('names the SQLite file it cannot open or make', async () => {
    const underAFile = await runCli(['migrate'], { DATABASE_URL: '/etc/hostname/members.db' });
    expect(underAFile.code).toBe(1);
    expect(underAFile.stderr).toMatch(/^member-api: cannot create the folder of the SQLite file \/etc\/hostname\/members\.db: /);
    const aFolder = await runCli(['migrate'], { DATABASE_URL: dir });
    expect(aFolder.code).toBe(1);
    expect(aFolder.stderr).toContain(`cannot open the SQLite file ${dir}`);
  });

  it('reads a .env file in the working directory; the environment wins over it', async () => {
    const here = mkdtempSync(join(dir, 'dotenv-'));
    writeFileSync(join(here, '.env'), `# a comment\nDATABASE_URL=${join(here, 'from-dotenv.db')}\nLOG_LEVEL=warn\n`);
    expect((await runCli(['migrate'], {}, here)).code).toBe(0);
    expect(existsSync(join(here, 'from-dotenv.db'))).toBe(true);
    expect((await runCli(['migrate'], { DATABASE_URL: join(here, 'from-env.db') }, here)).code).toBe(0);
    expect(existsSync(join(here, 'from-env.db'))).toBe(true);
    writeFileSync(join(here, '.env'), 'PORT=eighty\n');
    expect((await runCli(['migrate'], { DATABASE_URL: join(here, 'x.db') }, here)).stderr.trim()).toBe(
      'member-api: PORT must be a whole number from 0 to 65535, got "eighty"',
    );
  });

  it('says which variable chose a port that is in use: PORT or METRICS_PORT', async () => {
    const taken = await takenPort();
    try {
      const api = await runCli(['serve'], { DATABASE_URL: join(dir, 'ports.db'), PORT: String(taken.port) });
      expect(api.code).toBe(1);
      // The first start of an empty store also says where the demo key went; the refusal is last.
      expect(api.stderr.trim().split('\n').at(-1)).toBe(`member-api: PORT=${taken.port} on HOST=127.0.0.1 is in use by another program`);
      const server = await startServe({ DATABASE_URL: join(dir, 'ports.db'), METRICS_PORT: String(taken.port) }).catch((error: Error) => error);
      expect(String(server)).toContain(`METRICS_PORT=${taken.port} on METRICS_HOST=127.0.0.1 is in use by another program`);
      if (!(server instanceof Error)) await exitOf(server.child);
    } finally {
      taken.close();
    }
  });
});
