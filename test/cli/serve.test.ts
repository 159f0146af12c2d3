import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, exitOf, hasScript, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

async function post(url: string, params: Record<string, string>): Promise<any> {
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(params) });
  return response.json();
}

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`member-api serve [${engine}]`, () => {
    it('creates a demo account on the first start of an empty store, its key written once to a file only its owner reads, never to the output', async () => {
      const database = await createTestDatabase(engine);
      try {
        const first = await startServe({ DATABASE_URL: database.url });
        const key = first.demoKey();
        expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(statSync(first.demoKeyFile).mode & 0o777).toBe(0o600);
        expect(first.output()).not.toContain(key);
        expect(first.output()).toContain(first.demoKeyFile);
        const created = await post(`${first.url}/api2/create/`, { user: 'demo', api_key: key!, _login: 'first', _email: 'f@example.com' });
        expect(created.result).toBe('OK');
        // Without PUBLIC_URL, links point at the address the server actually listens on, and
        // the start says that mails to operators carry paths until it is set.
        expect(created.verify_url.startsWith(`${first.url}/api2/verify/?`)).toBe(true);
        await expect.poll(() => first.output()).toContain('PUBLIC_URL is not set');
        const login = await post(`${first.url}/api2/login/`, { user: 'demo', login: 'first', password: created.password });
        expect(login.result).toBe('OK');
        first.child.kill('SIGTERM');
        expect(await exitOf(first.child)).toBe(0);

        const second = await startServe({ DATABASE_URL: database.url });
        expect(second.output()).not.toMatch(/api_key=|demo-api-key/);
        expect(existsSync(second.demoKeyFile)).toBe(false);
        second.child.kill('SIGINT');
        expect(await exitOf(second.child)).toBe(0);
      } finally {
        await database.drop();
      }
    });

    it('writes the demo key in a new file, replacing a link there without writing through it', async () => {
      const database = await createTestDatabase(engine);
      const folder = mkdtempSync(join(tmpdir(), 'member-api-demo-link-'));
      const victim = join(folder, 'victim');
      writeFileSync(victim, 'not yours\n', { mode: 0o644 });
      const keyFile = join(folder, 'demo-api-key');
      symlinkSync(victim, keyFile);
      try {
        const server = await startServe({ DATABASE_URL: database.url, DEMO_KEY_FILE: keyFile });
        server.child.kill('SIGTERM');
        expect(await exitOf(server.child)).toBe(0);
        expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
        expect(lstatSync(keyFile).isFile()).toBe(true);
        expect(lstatSync(keyFile).mode & 0o777).toBe(0o600);
        expect(readFileSync(keyFile, 'utf8')).toMatch(/^user=demo api_key=[A-Za-z0-9_-]{43}\n$/);
      } finally {
        await database.drop();
      }
    });

    it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
      const database = await createTestDatabase(engine);
      try {
        const server = await startServe({ DATABASE_URL: database.url, LOG_LEVEL: 'debug' });
        const key = server.demoKey();
        const inFlight = Array.from({ length: 16 }, (_, i) =>
          post(`${server.url}/api2/create/`, { user: 'demo', api_key: key, _login: `inflight${i}`, _email: 'f@example.com' }),
        );
        // Signal once the server has received all 16: each hashes a password (tens of
        // milliseconds, on a pool of four threads), so most are still running then.
        const arrived = () => server.output().split('incoming request').length - 1;
        for (let i = 0; arrived() < 16; i++) {
          await new Promise((r) => setTimeout(r, 2));
          if (i === 2000) throw new Error(server.output());
        }
        server.child.kill('SIGTERM');
        const replies = await Promise.all(inFlight);
        expect(replies.map((r) => r.result)).toEqual(Array(16).fill('OK'));
        expect(await exitOf(server.child)).toBe(0);

        const again = await startServe({ DATABASE_URL: database.url });
        for (let i = 0; i < 16; i++) {
          const answer = await post(`${again.url}/api2/login/`, { user: 'demo', login: `inflight${i}`, password: replies[i].password });
          expect(answer.result).toBe('OK');
        }
        again.child.kill('SIGTERM');
        await exitOf(again.child);
      } finally {
        await database.drop();
      }
    });
  });
}

describe('member-api serve: the log an operator reads', () => {
  it('writes nothing but JSON lines on standard output, one per request with its route, account, result, message and duration', async () => {
    const database = await createTestDatabase('sqlite');
    try {
      const server = await startServe({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
      const key = server.demoKey();
      await post(`${server.url}/api2/login/`, { user: 'demo', login: 'nobody', password: 'wrong-password' });
      await post(`${server.url}/api2/create/`, { user: 'demo', api_key: key, _login: 'has space', _email: 'x@example.com' });
      await post(`${server.url}/api2/list/`, { user: 'demo', api_key: 'not-the-key' });
      await fetch(`${server.url}/healthz`);
      server.child.kill('SIGTERM');
      expect(await exitOf(server.child)).toBe(0);

      const lines = server
        .stdout()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, any>);
      expect(lines.find((line) => /listening on http:/.test(line.msg))).toBeDefined();
      const completed = lines.filter((line) => line.msg === 'request completed');
      const byRoute = (route: string) => completed.find((line) => line.route === route)!;
      expect(byRoute('/api2/login/')).toMatchObject({ account: 'demo', result: 'FAIL', message: 'wrong login or password', res: { statusCode: 200 } });
      expect(byRoute('/api2/create/')).toMatchObject({ account: 'demo', result: 'ERROR', message: expect.stringMatching(/^invalid parameter: _login/) });
      expect(byRoute('/api2/list/')).toMatchObject({ account: 'demo', result: 'ERROR', message: 'wrong api key' });
      // Health probes come every few seconds: they are not logged.
      expect(completed.find((line) => line.route === '/healthz')).toBeUndefined();
      for (const line of completed) expect(line.responseTime).toBeTypeOf('number');
      // The key sent with the create is nowhere in the log.
      expect(server.stdout()).not.toContain(key);
    } finally {
      await database.drop();
    }
  });

  it.skipIf(!hasScript())('writes readable lines (pino-pretty) when standard output is a terminal', () => {
    const folder = mkdtempSync(join(tmpdir(), 'member-api-tty-'));
    const env = { ...process.env, PORT: '0', DATABASE_URL: join(folder, 'tty.db'), DEMO_KEY_FILE: join(folder, 'key') };
    const shown = execFileSync('script', ['-qec', `timeout -s INT 5 node ${BIN} serve; true`, '/dev/null'], { env, encoding: 'utf8' });
    expect(shown).toMatch(/INFO.*member-api listening on http:/);
    expect(shown).not.toMatch(/^\{"level"/m);
  });
});
