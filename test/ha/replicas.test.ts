import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountScope } from '../../src/common/account-scope.js';
import { openPostgres } from '../../src/store/dialects/postgres.js';
import { runRound, type BackgroundJob } from '../../src/upkeep/background-jobs.js';
import { startServe, type Served } from '../support/cli.js';
import { freePort, haStackMissing, HaStack } from '../support/ha-stack.js';

/**
 * Reads from standbys (DATABASE_REPLICA_URLS) on the real stack: a server on HAProxy's primary
 * port reading lists from its standbys' port; the standbys made to
 * apply the WAL late (recovery_min_apply_delay) to hold them behind. Run by `npm run test:ha`.
 */

const missing = haStackMissing();
if (missing && process.env.CI) throw new Error(`CI is set and the replica test cannot run: ${missing}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(missing)('reads from standbys', () => {
  let stack: HaStack;
  let server: Served;
  let metricsPort: number;
  let key: string;

  beforeAll(async () => {
    stack = await HaStack.start();
    metricsPort = await freePort();
    server = await startServe({
      DATABASE_URL: stack.primaryUrl(),
      DATABASE_REPLICA_URLS: stack.replicaUrl(),
      REPLICA_MAX_LAG_MS: '1000',
      METRICS_PORT: String(metricsPort),
    });
    key = server.demoKey();
  }, 180_000);

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await stack?.stop();
  });

  const call = async (path: string, params: Record<string, string>) => {
    const answer = await fetch(`${server.url}/api2/${path}/`, { method: 'POST', body: new URLSearchParams({ user: 'demo', api_key: key, ...params }) });
    return (await answer.json()) as Record<string, any>;
  };
  const create = async (login: string) => expect((await call('create', { _login: login, _email: `${login}@example.com` })).result).toBe('OK');
  const listed = async (login: string) =>
    ((await call('list', { record: '{login}', login_full: login })).members as Array<{ login: string }>).map((m) => m.login);
  async function metric(name: string, labels: string): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return Number(line?.split(' ')[1] ?? 0);
  }
  const replicaReads = () => metric('member_api_replica_reads_total', 'target="replica"');
  const primaryReads = () => metric('member_api_replica_reads_total', 'target="primary"');

  it('reads a list from a standby once it has the account’s writes, and the writer’s own list at once', async () => {
    await create('first');
    // At once: read-your-writes, from the primary or a standby that has the create.
    expect(await listed('first')).toEqual(['first']);
    await sleep(500);
    const before = await replicaReads();
    expect(await listed('first')).toEqual(['first']);
    expect(await replicaReads()).toBe(before + 1);
  });

  it('reads from the primary while the standbys lack the account’s write, or lag past the bound', async () => {
    // The standbys apply what the primary writes 3 s late.
    await stack.setApplyDelay(3000);
    try {
      await create('second');
      const primary = await primaryReads();
      expect(await listed('second')).toEqual(['second']);
      expect(await primaryReads()).toBe(primary + 1);
      // The feed reads the primary (its events are numbered a moment after the change, by the sequencer).
      const feed = async () => ((await call('events', {})).events as Array<{ member?: { login: string } }>).map((e) => e.member?.login);
      for (let waited = 0; !(await feed()).includes('second') && waited < 5000; waited += 100) await sleep(100);
      expect(await feed()).toContain('second');
      // Past REPLICA_MAX_LAG_MS, even reads that wrote nothing go to the primary.
      await sleep(1500);
      const stillPrimary = await primaryReads();
      expect(await listed('first')).toEqual(['first']);
      expect(await primaryReads()).toBe(stillPrimary + 1);
      const lag = await metric('member_api_replica_lag_seconds', `replica="127.0.0.1:${new URL(stack.replicaUrl()).port}"`);
      expect(lag).toBeGreaterThan(0.5);
    } finally {
      await stack.setApplyDelay(0);
    }
    await sleep(1500);
    const before = await replicaReads();
    expect(await listed('second')).toEqual(['second']);
    expect(await replicaReads()).toBe(before + 1);
  });

  it('counts a write made outside any request for every account (a job’s only when it changes members), and reads from the primary when a standby fails first', async () => {
    const connection = openPostgres(stack.primaryUrl(), { replicaUrls: [stack.replicaUrl()], replicaMaxLagMs: 30_000 });
    // What account 1's read finds, and where (the standbys apply the WAL 3 s late, within the 30 s bound).
    const read = async (table: string) => {
      const rows: unknown[] = [];
      for await (const chunk of connection.readSnapshot(
        async function* (reader) {
          yield await reader.all(sql`select count(*)::int as n, pg_is_in_recovery() as standby from ${sql.table(table)}`.compile(connection.db));
        },
        { account: 1 },
      ))
        rows.push(...chunk);
      return rows[0] as { n: number; standby: boolean };
    };
    await stack.setApplyDelay(3000);
    try {
      await sql`create table if not exists routed (n int)`.execute(connection.db);
      await sleep(4500);
      // Another account's write, in a request: account 1 still reads from a standby, which lacks it.
      await accountScope.run(async () => {
        accountScope.add(2);
        await sql`insert into routed values (1)`.execute(connection.db);
      });
      expect(await read('routed')).toEqual({ n: 0, standby: true });
      // A write outside any request (a sweep, an import's job): every account reads it at once.
      await sql`insert into routed values (2)`.execute(connection.db);
      expect(await read('routed')).toEqual({ n: 2, standby: false });
      // A table the standby does not have yet: its read fails there, and the primary answers.
      await sleep(4500);
      // A background job whose writes change no member (a queue, a lease): the reads stay on the standby.
      const job: BackgroundJob = {
        name: 'queue',
        intervalMs: 1000,
        runsOn: 'every server',
        run: async () => {
          await sql`insert into routed values (3)`.execute(connection.db);
          return undefined;
        },
      };
      expect(await runRound(job, { log: { info: () => {}, warn: () => {} }, exclusively: (_name, work) => work() })).toBe('ok');
      expect(await read('routed')).toEqual({ n: 2, standby: true });
      await accountScope.run(async () => {
        accountScope.add(2);
        await sql`create table routed_later (n int)`.execute(connection.db);
      });
      expect(await read('routed_later')).toEqual({ n: 0, standby: false });
    } finally {
      await stack.setApplyDelay(0);
      await connection.close();
    }
  });
});
