/**
 * What room on the pages of `members` saves PostgreSQL per login (migration 033): the seeded
 * million's table rewritten with `fillfactor` 100 (every page full, as before the migration)
 * and 90 in turn, each followed by a CHECKPOINT (the first change of a page after one writes
 * the whole page to the WAL, as a live primary's changes do every few minutes), then `/login/`
 * for --seconds. Figures per login: PostgreSQL's CPU (every PostgreSQL process: nothing else may
 * use it meanwhile), the WAL written, and the share of the members' updates that were HOT.
 * Leaves the table at 90, as the migration does. Needs `npm run bench` to have seeded the
 * million first.
 *
 *   npx tsx bench/fillfactor.ts [--rounds 3] [--seconds 8]
 */
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { postgresCpu } from './cpu.js';
import { cli, databaseUrl, loadRequests, median, startServer } from './lib.js';
import { ACCOUNT } from './million.js';
import { activeSeededMember, SEEDED_PASSWORD } from './seed-members.js';

const { values: options } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '8' } } });
const COUNT = 1_000_000;
const url = databaseUrl('postgres', 'million');
const psql = (statement: string) => execFileSync('psql', [url, '-Atqc', statement], { encoding: 'utf8' }).trim();

const login = () => ({
  method: 'POST' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ user: ACCOUNT, login: activeSeededMember(COUNT).login, password: SEEDED_PASSWORD }).toString(),
});

const env = { DATABASE_URL: url, SWEEP_INTERVAL_SECONDS: '0', LOG_LEVEL: 'warn' };
cli(['account', 'list', '--json'], env); // migrates the store, as the server would
const server = await startServer(env);
const results: Record<string, { postgres: number[]; wal: number[]; hot: number[] }> = {};
try {
  await loadRequests(`${server.url}/api2/login/`, login, { connections: 8, seconds: 2 });
  for (let round = 0; round < Number(options.rounds); round++) {
    for (const fillfactor of [100, 90]) {
      psql(`alter table members set (fillfactor = ${fillfactor})`);
      psql('vacuum full members');
      psql('checkpoint');
      const hotBefore = psql("select n_tup_hot_upd || ' ' || n_tup_upd from pg_stat_user_tables where relname = 'members'").split(' ').map(Number);
      const walBefore = Number(psql("select pg_current_wal_lsn() - '0/0'"));
      const cpuBefore = postgresCpu();
      const { ok } = await loadRequests(`${server.url}/api2/login/`, login, { connections: 8, seconds: Number(options.seconds) });
      const postgres = (postgresCpu() - cpuBefore) / ok;
      const wal = (Number(psql("select pg_current_wal_lsn() - '0/0'")) - walBefore) / ok;
      // The counts reach the statistics when each connection flushes them (within seconds).
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const hotAfter = psql("select n_tup_hot_upd || ' ' || n_tup_upd from pg_stat_user_tables where relname = 'members'").split(' ').map(Number);
      const hot = (hotAfter[0]! - hotBefore[0]!) / Math.max(1, hotAfter[1]! - hotBefore[1]!);
      const figures = (results[fillfactor] ??= { postgres: [], wal: [], hot: [] });
      figures.postgres.push(postgres);
      figures.wal.push(wal);
      figures.hot.push(hot);
      console.log(`  fillfactor ${fillfactor}: ${ok} logins, PostgreSQL CPU ${postgres.toFixed(0)} µs, WAL ${(wal / 1024).toFixed(1)} KiB, HOT ${(hot * 100).toFixed(0)}% per login`);
    }
  }
} finally {
  await server.stop();
}
for (const [fillfactor, figures] of Object.entries(results)) {
  console.log(
    `fillfactor ${fillfactor}, medians: PostgreSQL CPU ${median(figures.postgres).toFixed(0)} µs, WAL ${(median(figures.wal) / 1024).toFixed(1)} KiB, HOT ${(median(figures.hot) * 100).toFixed(0)}%`,
  );
}
