/**
 * The million-member check: seeds an account with N members (1,000,000 by default) on each
 * engine, starts the server as a user would, lists every member through the API while
 * sampling the server's memory, and times selective substring filters.
 *
 *   npx tsx bench/million-check.ts [--count 1000000] [--engines sqlite,postgres] [--reseed]
 *
 * Seeded databases are kept in .bench/ (SQLite) and member_api_million (PostgreSQL) and
 * reused when they already hold the members.
 */
import { parseArgs } from 'node:util';
import type { Engine } from '../src/store/dialects/dialect.js';
import { build, cli, databaseUrl, memoryOf, startServer } from './lib.js';
import { ACCOUNT, listAll, seeded, timed } from './million.js';
import { seededMember } from './seed-members.js';

async function check(engine: Engine, count: number, reseed: boolean): Promise<void> {
  console.log(`\n== ${engine}: ${count} members ==`);
  await seeded(engine, count, reseed);
  const env = { DATABASE_URL: databaseUrl(engine, 'million'), SWEEP_INTERVAL_SECONDS: '0' };
  const { api_key: apiKey } = JSON.parse(cli(['account', 'rotate-key', ACCOUNT, '--json'], env)) as { api_key: string };
  const server = await startServer(env);
  try {
    const pid = server.child.pid!;
    const auth = { user: ACCOUNT, api_key: apiKey };
    await new Promise((r) => setTimeout(r, 500));
    const idle = memoryOf(pid).rss;
    const all = await listAll(server.url, new URLSearchParams(auth), pid);
    const { peak } = memoryOf(pid);
    console.log(`idle RSS                         ${idle.toFixed(0)} MiB`);
    console.log(
      `full list                        ${all.members} members, ${(all.bytes / 1e6).toFixed(0)} MB in ${all.seconds.toFixed(1)} s = ${Math.round(all.members / all.seconds)} members/s; first byte after ${all.firstByte.toFixed(0)} ms`,
    );
    console.log(`server RSS during the list       max ${all.peakDuringList.toFixed(0)} MiB sampled; peak (VmHWM) ${peak.toFixed(0)} MiB  [target < 200 MiB]`);

    // A member from the middle of the seeded range, so the filters below match it.
    const probe = seededMember(Math.floor(count * 0.4242));
    const filters: Array<[string, Record<string, string>]> = [
      ['login, selective', { login: probe.login.slice(-9) }],
      ['login_full', { login_full: probe.login.toUpperCase() }],
      ['email, selective', { email: probe.email.slice(probe.email.indexOf('@') - 8, probe.email.indexOf('@') + 4) }],
      ['profile:phone, selective', { 'profile:phone': probe.phone.slice(-7) }],
      ['profile (all fields), selective', { profile: probe.phone.slice(-7) }],
      ['login, 2 characters (scan)', { login: 'zz' }],
    ];
    for (const [label, filter] of filters) {
      const { ms, total } = await timed(server.url, new URLSearchParams({ ...auth, record: '{id}{login}', ...filter, limit: '20' }));
      console.log(`${label.padEnd(32)} ${ms.toFixed(1).padStart(7)} ms median of 5, ${total} matching  (${JSON.stringify(filter)})`);
    }
  } finally {
    await server.stop();
  }
}

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    engines: { type: 'string', default: 'sqlite,postgres' },
    reseed: { type: 'boolean', default: false },
  },
});
build();
for (const engine of values.engines!.split(',') as Engine[]) await check(engine, Number(values.count), values.reseed!);
