/**
 * A client that stops reading a list gives its connection back: lists are capped per account
 * and in all (the excess refused at once with 503), and a list whose client takes nothing for
 * RESPONSE_STALL_TIMEOUT_MS is cut off, its snapshot (and its database connection or reader
 * thread) released. Other tenants' lists go on meanwhile.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { seedMembers } from '../../bench/seed-members.js';
import { exitOf, runCli, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

/** A list request whose answer is not read past its headers (until `readRest`). */
function stalledList(url: string, params: Record<string, string>): Promise<{ response: IncomingMessage; req: ClientRequest; readRest: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const body = new URLSearchParams(params).toString();
    const req = request(
      `${url}/api2/list/`,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } },
      (response) => {
        response.pause();
        const readRest = () =>
          new Promise<string>((done) => {
            let text = '';
            response.on('data', (chunk: Buffer) => (text += chunk.toString()));
            response.once('end', () => done(text));
            response.once('error', () => done(text));
            response.once('aborted', () => done(text));
            response.resume();
          });
        resolve({ response, req, readRest });
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function post(url: string, params: Record<string, string>): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(params) });
  return { status: response.status, body: await response.json(), ms: Date.now() - started };
}

/** How long a list's client may take nothing before it is cut off. */
const STALL_MS = 3000;

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`stalled lists [${engine}]`, () => {
    it('caps lists per account, refuses the excess at once, and cuts off a client that stopped reading', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      const created = (name: string) => runCli(['account', 'create', name, '--json'], env).then((r) => JSON.parse(r.stdout) as { api_key: string });
      const attacker = await created('attacker');
      const other = await created('other');
      await seedMembers(database.url, 1, { count: 50_000 });
      const server = await startServe({
        ...env,
        MAX_CONCURRENT_LISTS_PER_ACCOUNT: '2',
        RESPONSE_STALL_TIMEOUT_MS: String(STALL_MS),
        SWEEP_INTERVAL_SECONDS: '0',
        LOG_LEVEL: 'info',
      });
      const held: Array<Awaited<ReturnType<typeof stalledList>>> = [];
      try {
        const record = '{id}{login}{email}{status}{reg_time}{first_name}{last_name}{city}{phone}';
        const attackerList = { user: 'attacker', api_key: attacker.api_key, record };
        for (let i = 0; i < 2; i++) {
          held.push(await stalledList(server.url, attackerList));
          expect(held[i]!.response.statusCode).toBe(200);
        }
        // A third from the same account is refused at once: after its wait for a slot (250 ms),
        // long before a stalled list could be cut off and free one (a bound in those terms: a
        // loaded machine took 1,076 ms to answer).
        const refused = await post(`${server.url}/api2/list/`, attackerList);
        expect([refused.status, refused.body]).toEqual([503, { result: 'ERROR', message: 'server busy, retry later' }]);
        expect(refused.ms).toBeLessThan(STALL_MS);
        // Another account lists as ever.
        const fine = await post(`${server.url}/api2/list/`, { user: 'other', api_key: other.api_key, limit: '10' });
        expect([fine.status, fine.body.members_total]).toEqual([200, 0]);
        // Each stalled client is cut off once its writes have waited RESPONSE_STALL_TIMEOUT_MS:
        // their slots (and snapshots) are free again.
        const cutOff = () => server.output().match(/list client stopped reading; cutting it off/g)?.length ?? 0;
        await expect.poll(cutOff, { timeout: 20_000, interval: 250 }).toBe(held.length);
        const again = await post(`${server.url}/api2/list/`, { user: 'attacker', api_key: attacker.api_key, record: '{login}', limit: '5' });
        expect([again.status, again.body.members_total]).toEqual([200, 47_500]);
        // What they get when they read at last is an answer cut short, never a list that looks whole.
        for (const h of held) expect(await h.readRest()).not.toMatch(/"members_total":\d+\}$/);
      } finally {
        for (const h of held) h.req.destroy();
        server.child.kill('SIGTERM');
        await exitOf(server.child);
        await database.drop();
      }
    }, 120_000);

    it('ends the snapshot of a list whose client went away as its answer started', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      const account = JSON.parse((await runCli(['account', 'create', 'gone', '--json'], env)).stdout) as { api_key: string };
      await seedMembers(database.url, 1, { count: 3_000 });
      // Four readers (SQLite: two lists and two to spare) or four connections (PostgreSQL): a
      // snapshot kept by each list left behind would soon leave none for the next list.
      const server = await startServe({ ...env, MAX_CONCURRENT_LISTS: '2', DATABASE_POOL_SIZE: '4', SWEEP_INTERVAL_SECONDS: '0' });
      try {
        const body = new URLSearchParams({ user: 'gone', api_key: account.api_key, record: '{id}{login}' }).toString();
        for (let i = 0; i < 30; i++) {
          // The request sent whole, then its connection closed before any answer came.
          await new Promise<void>((resolve) => {
            const req = request(`${server.url}/api2/list/`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
            });
            req.once('error', () => resolve());
            req.once('close', () => resolve());
            req.end(body, () => req.destroy());
          });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // Every snapshot was given back: lists answer, whole (the seeded members but the 5%
        // Deleted). The last lists left may still be winding down on a busy machine, holding
        // their slots a moment (a 503 then): waited for, up to 15 s. A snapshot kept for good
        // would keep its reader or connection past that.
        const whole = () => post(`${server.url}/api2/list/`, { user: 'gone', api_key: account.api_key, record: '{id}' });
        await expect.poll(async () => (await whole()).status, { timeout: 15_000, interval: 250 }).toBe(200);
        for (let i = 0; i < 6; i++) {
          const answer = await whole();
          expect([answer.status, answer.body.members_total, answer.body.members?.length]).toEqual([200, 2_850, 2_850]);
        }
      } finally {
        server.child.kill('SIGTERM');
        await exitOf(server.child);
        await database.drop();
      }
    }, 120_000);
  });
}
