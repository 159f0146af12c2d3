/**
 * `npx tsx bench/pgbouncer-recovery.ts [--outage-seconds 3] [--rounds 2]`: how long writes take
 * to come back after PostgreSQL goes away and returns, with the server connected directly and
 * through PgBouncer (Debian's package, started here on a loopback port), with PgBouncer's
 * defaults and with the settings docs/operating.md recommends.
 *
 * PostgreSQL is reached through a TCP proxy that is cut (connections reset, new ones refused)
 * for the outage, then opened again: to the server and to PgBouncer that is a primary gone and
 * a new one answering at the same address (HAProxy's primary port, a virtual address). A create
 * is sent every 50 ms throughout; the figures are what those clients saw.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CuttableProxy } from '../test/support/proxy.js';
import { build, databaseUrl, resetDatabase, startServer } from './lib.js';

const { values: options } = parseArgs({
  options: { 'outage-seconds': { type: 'string', default: '3' }, rounds: { type: 'string', default: '2' } },
});
const OUTAGE_MS = Number(options['outage-seconds']) * 1000;
const ROUNDS = Number(options.rounds);

/** PgBouncer's settings for each run; undefined: the server connects to PostgreSQL itself. */
const SETUPS: Array<{ name: string; pgbouncer?: Record<string, string> }> = [
  { name: 'direct' },
  { name: 'pgbouncer, defaults', pgbouncer: {} },
  { name: 'pgbouncer, recommended', pgbouncer: { server_login_retry: '1', server_connect_timeout: '3', query_wait_timeout: '5' } },
];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** PgBouncer in session mode (the server holds advisory locks and prepared statements) in front of `target`. */
async function startPgbouncer(target: URL, settings: Record<string, string>): Promise<{ url: string; process: ChildProcess }> {
  const folder = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  chmodSync(folder, 0o755);
  const port = await freePort();
  const database = target.pathname.slice(1);
  const ini = [
    '[databases]',
    `${database} = host=${target.hostname} port=${target.port} dbname=${database}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    `unix_socket_dir = ${folder}`,
    'auth_type = trust',
    `auth_file = ${join(folder, 'users.txt')}`,
    'pool_mode = session',
    'max_client_conn = 200',
    'default_pool_size = 40',
    ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
  ];
  writeFileSync(join(folder, 'users.txt'), `"${target.username}" ""\n`);
  writeFileSync(join(folder, 'pgbouncer.ini'), `${ini.join('\n')}\n`);
  // PgBouncer will not run as root: as root, it is told to become postgres.
  const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
  const child = spawn('pgbouncer', [...asRoot, join(folder, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = new URL(target.toString());
  url.port = String(port);
  for (let waited = 0; !/listening on 127\.0\.0\.1/.test(output); waited += 50) {
    if (child.exitCode !== null || waited > 10_000) throw new Error(`pgbouncer did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: url.toString(), process: child };
}

interface Seen {
  at: number;
  status: number;
  ms: number;
}

async function round(setup: (typeof SETUPS)[number]): Promise<{ backAfterMs: number; longestMs: number; refused: number; ok: number }> {
  await resetDatabase('postgres', 'recovery');
  const target = new URL(databaseUrl('postgres', 'recovery'));
  const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 5432) });
  await proxy.open();
  const viaProxy = new URL(target.toString());
  viaProxy.port = String(proxy.port);
  const bouncer = setup.pgbouncer ? await startPgbouncer(viaProxy, setup.pgbouncer) : undefined;
  const keyFile = join(mkdtempSync(join(tmpdir(), 'recovery-')), 'key');
  const server = await startServer({ DATABASE_URL: bouncer?.url ?? viaProxy.toString(), SWEEP_INTERVAL_SECONDS: '0', DEMO_KEY_FILE: keyFile });
  try {
    const apiKey = /api_key=(\S+)/.exec(readFileSync(keyFile, 'utf8'))![1]!;
    const seen: Seen[] = [];
    let sending = true;
    let n = 0;
    const load = (async () => {
      while (sending) {
        const started = Date.now();
        const status = await fetch(`${server.url}/api2/create/`, {
          method: 'POST',
          body: new URLSearchParams({ user: 'demo', api_key: apiKey, _login: `m${n++}`, _email: 'm@example.com' }),
          signal: AbortSignal.timeout(60_000),
        }).then(
          async (answer) => (((await answer.json()) as { result: string }).result === 'OK' ? 200 : answer.status),
          () => 0,
        );
        seen.push({ at: Date.now(), status, ms: Date.now() - started });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const reopened = Date.now();
    await proxy.open();
    // Until the first create answered OK that was sent after the database came back.
    const deadline = reopened + 60_000;
    while (!seen.some((s) => s.status === 200 && s.at - s.ms >= reopened) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 500));
    sending = false;
    await load;
    const back = seen.find((s) => s.status === 200 && s.at - s.ms >= reopened);
    return {
      backAfterMs: back ? back.at - reopened : Number.NaN,
      longestMs: Math.max(...seen.map((s) => s.ms)),
      refused: seen.filter((s) => s.status !== 200).length,
      ok: seen.filter((s) => s.status === 200).length,
    };
  } finally {
    await server.stop();
    bouncer?.process.kill('SIGTERM');
    await proxy.cut().catch(() => {});
  }
}

build();
console.log(`outage ${OUTAGE_MS / 1000} s, a create every 50 ms, ${ROUNDS} rounds per setup\n`);
console.log('| setup | writes OK again after the database is back | longest request | not OK (503 or cut) |');
console.log('|---|---|---|---|');
for (const setup of SETUPS) {
  const results = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await round(setup));
  const list = (values: number[], unit: string) => values.map((v) => `${(v / 1000).toFixed(1)}${unit}`).join(', ');
  console.log(
    `| ${setup.name}${
      setup.pgbouncer && Object.keys(setup.pgbouncer).length > 0
        ? ` (${Object.entries(setup.pgbouncer)
            .map(([k, v]) => `${k} = ${v}`)
            .join(', ')})`
        : ''
    } | ${list(
      results.map((r) => r.backAfterMs),
      ' s',
    )} | ${list(
      results.map((r) => r.longestMs),
      ' s',
    )} | ${results.map((r) => r.refused).join(', ')} |`,
  );
}
