import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesOver } from '../../src/compose.js';
import type { Config } from '../../src/config.js';
import { backgroundJobs } from '../../src/server.js';
import { runRound } from '../../src/upkeep/background-jobs.js';
import { openStore } from '../../src/store/store.js';
import { exitOf, runCli, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, type TestDatabase } from '../support/engines.js';
import { peek } from '../support/peek.js';

async function post(url: string, params: Record<string, string>): Promise<any> {
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(params) });
  return response.json();
}

describe.skipIf(!engineAvailable('postgres'))('several servers on one PostgreSQL database', () => {
  let database: TestDatabase;
  let servers: Array<Awaited<ReturnType<typeof startServe>>>;
  let apiKey: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const env = { DATABASE_URL: database.url };
    const created = await runCli(['account', 'create', 'shared', '--json', '--lockout-threshold', '3', '--lockout-step', '600'], env);
    apiKey = JSON.parse(created.stdout).api_key;
    // Started together: migrations and start-up must not trip over each other.
    const serverEnv = { ...env, SWEEP_INTERVAL_SECONDS: '1', KEY_FAILURE_LIMIT: '4' };
    servers = await Promise.all([startServe(serverEnv), startServe(serverEnv)]);
  });

  afterAll(async () => {
    for (const server of servers ?? []) server.child.kill('SIGTERM');
    for (const server of servers ?? []) await exitOf(server.child);
    await database?.drop();
  });

  it('behave as one: a member made on one logs in on the other, sessions land in the shared store, and a lockout holds on both', async () => {
    const [a, b] = servers.map((s) => s.url) as [string, string];
    const created = await post(`${a}/api2/create/`, {
      user: 'shared',
      api_key: apiKey,
      _login: 'roamer',
      _email: 'r@example.com',
      _password: 'roaming-password',
    });
    expect(created.result).toBe('OK');
    expect((await post(`${b}/api2/login/`, { user: 'shared', login: 'roamer', password: 'roaming-password' })).result).toBe('OK');
    expect((await post(`${a}/api2/login/`, { user: 'shared', login: 'roamer', password: 'roaming-password' })).result).toBe('OK');
    const sessions = await peek(database, (db) => db.selectFrom('sessions').select('member_id').where('member_id', '=', Number(created.id)).execute());
    expect(sessions).toHaveLength(2);

    // Three failures spread over both servers lock the member on both.
    for (const url of [a, b, a]) {
      expect((await post(`${url}/api2/login/`, { user: 'shared', login: 'roamer', password: 'wrong-password' })).result).toBe('FAIL');
    }
    for (const url of [a, b]) {
      expect(await post(`${url}/api2/login/`, { user: 'shared', login: 'roamer', password: 'roaming-password' })).toEqual({
        result: 'FAIL',
        message: 'wrong login or password',
        fail_url: '',
      });
    }
    // An update on one is what the other lists.
    expect((await post(`${b}/api2/update/`, { user: 'shared', api_key: apiKey, find_member_login: 'roamer', city: 'Bergen' })).result).toBe('OK');
    expect(await post(`${a}/api2/list/`, { user: 'shared', api_key: apiKey, record: '{login}{city}' })).toEqual({
      members: [{ login: 'roamer', city: 'Bergen' }],
      members_total: 1,
    });
    for (const server of servers) expect(server.output()).not.toMatch(/"level":(50|60)/);
  });

  it('count wrong API keys together: the limit holds across servers, not per server', async () => {
    const [a, b] = servers.map((s) => s.url) as [string, string];
    const guess = (url: string) => fetch(`${url}/api2/list/`, { method: 'POST', body: new URLSearchParams({ user: 'shared', api_key: 'guess' }) });
    for (const url of [a, b, a, b]) expect(await (await guess(url)).json()).toEqual({ result: 'ERROR', message: 'wrong api key' });
    for (const url of [a, b]) {
      const refused = await guess(url);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const counters = await peek(database, (db) => db.selectFrom('rate_limits').select(['key', 'points']).execute());
    expect(counters).toContainEqual({ key: 'key-failures:127.0.0.1', points: 4 });
  });

  it('elect one sweeper at a time: while one server sweeps, another one’s sweep stands aside', async () => {
    const first = await servicesOver(openStore(database.url), { publicUrl: 'http://localhost' });
    const second = await servicesOver(openStore(database.url), { publicUrl: 'http://localhost' });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      // The first store holds the sweep's lock (as a long sweep would) until released. The two
      // servers started above sweep every second, so the lock can be one of theirs for a
      // moment: the first store asks again until it has it (and so, later, the second).
      let holding: Promise<string | undefined>;
      for (;;) {
        holding = first.store.housekeeping.exclusively('member-api:sweep', async () => {
          entered();
          await held;
          return 'held';
        });
        if ((await Promise.race([inside.then(() => 'inside'), holding])) === 'inside') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The second server's job loop runs its sweep: it stands aside while the first holds the lock.
      const sweep = backgroundJobs(second, { sweepIntervalSeconds: 60 } as Config).find((job) => job.name === 'sweep')!;
      const loop = { log: { info: () => {}, warn: () => {} }, exclusively: second.store.housekeeping.exclusively.bind(second.store.housekeeping) };
      expect(await runRound(sweep, loop)).toBe('skipped');
      release();
      expect(await holding).toBe('held');
      let outcome = await runRound(sweep, loop);
      while (outcome === 'skipped') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        outcome = await runRound(sweep, loop);
      }
      expect(outcome).toBe('ok');
    } finally {
      await first.store.close();
      await second.store.close();
    }
  });
});
