/**
 * Store outages, against the real server process. PostgreSQL is reached through a TCP proxy
 * that the test cuts and restores: stopping the shared server would break every other suite,
 * and to the service a cut proxy is a stopped database (connections reset, new ones refused).
 */
import { describe, expect, it } from 'vitest';
import { seedMembers } from '../../bench/seed-members.js';
import { exitOf, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable } from '../support/engines.js';
import { CuttableProxy } from '../support/proxy.js';
import { figure } from '../support/report.js';

async function post(url: string, params: Record<string, string>): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(params) });
  return { status: response.status, body: await response.json(), ms: Date.now() - started };
}

describe.skipIf(!engineAvailable('postgres'))('PostgreSQL outage', () => {
  it('answers 503 fast while PostgreSQL is gone, does not crash, and recovers by itself', async () => {
    const database = await createTestDatabase('postgres');
    const target = new URL(database.url);
    const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.open();
    const viaProxy = new URL(database.url);
    viaProxy.port = String(proxy.port);
    const server = await startServe({ DATABASE_URL: viaProxy.toString(), SWEEP_INTERVAL_SECONDS: '0' });
    try {
      const key = server.demoKey();
      const list = () => post(`${server.url}/api2/list/`, { user: 'demo', api_key: key, limit: '100' });
      const login = () => post(`${server.url}/api2/login/`, { user: 'demo', login: 'nobody', password: 'whatever-horse' });
      expect((await list()).status).toBe(200);

      // A list read by a client that stopped reading: the server holds its snapshot's
      // connection between cursor reads, waiting for the client, when the database goes.
      // (About 12 MB: more than loopback's socket buffers absorb.)
      await seedMembers(database.url, 1, { count: 50_000 });
      const stalled = new AbortController();
      const record = '{id}{login}{email}{status}{reg_time}{reg_type}{first_name}{last_name}{city}{phone}{bill_id}';
      const stalledList = await fetch(`${server.url}/api2/list/`, {
        method: 'POST',
        body: new URLSearchParams({ user: 'demo', api_key: key, record }),
        signal: stalled.signal,
      });
      expect(stalledList.status).toBe(200);

      // Under load: a steady stream of requests while the database goes away.
      let loading = true;
      const seen: Array<{ status: number; ms: number; phase: string }> = [];
      let phase = 'up';
      // A list whose answer had begun when the database went cannot turn into a 503: the
      // server cuts the connection, and the client sees a truncated answer (status 0 here).
      const attempt = (call: () => Promise<{ status: number; ms: number }>) => call().catch(() => ({ status: 0, ms: 0 }));
      const load = (async () => {
        while (loading) {
          const results = await Promise.all([attempt(list), attempt(login), attempt(list)]);
          for (const r of results) seen.push({ status: r.status, ms: r.ms, phase });
        }
      })();
      await new Promise((r) => setTimeout(r, 300));
      phase = 'down';
      await proxy.cut();
      await new Promise((r) => setTimeout(r, 1500));
      const down = await Promise.all([list(), login()]);
      for (const reply of down) {
        expect(reply.status).toBe(503);
        expect(reply.body).toEqual({ result: 'ERROR', message: 'service unavailable' });
      }
      phase = 'back';
      await proxy.open();
      // Recovery needs nothing from anyone: the pool opens new connections.
      let recovered = false;
      for (let i = 0; i < 50 && !recovered; i++) {
        recovered = (await list()).status === 200;
        if (!recovered) await new Promise((r) => setTimeout(r, 100));
      }
      loading = false;
      await load;
      expect(recovered).toBe(true);
      stalled.abort();
      expect(server.child.exitCode).toBeNull();
      // Every answer was OK or 503 (or, for a list already under way at the cut, a cut
      // connection): no 500, no hang.
      expect(seen.filter((r) => r.status !== 200 && r.status !== 503 && !(r.status === 0 && r.phase !== 'up'))).toEqual([]);
      expect(seen.filter((r) => r.phase === 'down' && r.status === 503).length).toBeGreaterThan(0);
      const slowest503 = Math.max(0, ...seen.filter((r) => r.status === 503).map((r) => r.ms));
      const count = (status: number) => seen.filter((r) => r.status === status).length;
      figure('outage [postgres] answers during the test (200 / 503 / cut mid-answer)', `${count(200)} / ${count(503)} / ${count(0)}`);
      figure('outage [postgres] slowest 503 ms', slowest503);
      expect(slowest503).toBeLessThan(5000);
    } finally {
      await proxy.cut().catch(() => {});
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await database.drop();
    }
  }, 60_000);
});

describe('SQLite under concurrent writers', () => {
  it('lets 50 concurrent writers across two server processes on one file finish without a busy error', async () => {
    const database = await createTestDatabase('sqlite');
    const first = await startServe({ DATABASE_URL: database.url, SWEEP_INTERVAL_SECONDS: '0' });
    const second = await startServe({ DATABASE_URL: database.url, SWEEP_INTERVAL_SECONDS: '0' });
    try {
      const key = first.demoKey();
      const created = await post(`${first.url}/api2/create/`, { user: 'demo', api_key: key, _login: 'shared', _email: 's@example.com' });
      expect(created.body.result).toBe('OK');
      const writers = Array.from({ length: 50 }, (_, i) => {
        const url = i % 2 === 0 ? first.url : second.url;
        return post(`${url}/api2/update/`, { user: 'demo', api_key: key, find_member_id: '*', [`f${i}`]: `v${i}`, status: 'A' });
      });
      const replies = await Promise.all(writers);
      figure('sqlite [2 processes, 50 concurrent writers] statuses', [...new Set(replies.map((r) => r.status))]);
      expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(replies.map((r) => r.body.result)).toEqual(Array(50).fill('OK'));
      const listed = await post(`${second.url}/api2/list/`, { user: 'demo', api_key: key, record: Array.from({ length: 50 }, (_, i) => `{f${i}}`).join('') });
      expect(Object.values(listed.body.members[0])).toEqual(Array.from({ length: 50 }, (_, i) => `v${i}`));
    } finally {
      for (const server of [first, second]) {
        server.child.kill('SIGTERM');
        await exitOf(server.child);
      }
      await database.drop();
    }
  }, 60_000);
});
