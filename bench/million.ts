/**
 * The seeded million-member databases, shared by `bench/million-check.ts` and `npm run bench`,
 * and the ways both read them through the API.
 */
import type { Engine } from '../src/store/dialects/dialect.js';
import { sql } from 'kysely';
import { connect } from '../src/store/connect.js';
import { openStore } from '../src/store/store.js';
import { databaseUrl, median, memoryOf, resetDatabase } from './lib.js';
import { ensureAccount, seedMembers } from './seed-members.js';

/** The account the million-member databases hold, in `.bench/million.db` and `member_api_million`. */
export const ACCOUNT = 'million';

/** Seeds the million database of an engine, unless it already holds exactly `count` members. */
export async function seeded(engine: Engine, count: number, reseed: boolean): Promise<void> {
  const url = databaseUrl(engine, 'million');
  if (!reseed) {
    try {
      const store = openStore(url);
      const account = await store.accounts.findAccountByName(ACCOUNT);
      const counts = account ? await store.accounts.countMembersByStatus(account.id) : {};
      await store.close();
      if (Object.values(counts).reduce((a, b) => a + b, 0) === count) {
        if (engine === 'postgres') await vacuumed(url);
        return;
      }
    } catch {
      // No usable database yet: seed one.
    }
  }
  await resetDatabase(engine, 'million');
  const store = openStore(url);
  await store.migrate();
  const { id } = await ensureAccount(store, ACCOUNT);
  await store.close();
  const started = Date.now();
  await seedMembers(url, id, { count, onProgress: (done) => process.stderr.write(`\r  seeding ${engine}: ${done} / ${count}`) });
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(`\n  seeded ${count} members in ${seconds.toFixed(0)} s (${Math.round(count / seconds)}/s)\n`);
}

/**
 * A reused PostgreSQL database starts vacuumed, as a fresh one does (seedMembers): the rows an
 * earlier run's writes left dead are gone before this run measures. Without it, on a server
 * whose autovacuum is off (this machine's, for its tests), they piled up run after run: at
 * 1.5 million dead rows in `members` the console's bulk suspend ran at 22k/s, against 35k/s
 * once vacuumed (bench/results/2026-11-27-console.md).
 */
async function vacuumed(url: string): Promise<void> {
  const connection = connect(url);
  try {
    await sql`vacuum (analyze)`.execute(connection.db);
  } finally {
    await connection.close();
  }
}

/** Lists through the API, reading the stream as it comes, while sampling the server's memory. */
export async function listAll(url: string, params: URLSearchParams, pid: number) {
  let peakDuringList = 0;
  const sampler = setInterval(() => (peakDuringList = Math.max(peakDuringList, memoryOf(pid).rss)), 20);
  const started = performance.now();
  const response = await fetch(`${url}/api2/list/`, { method: 'POST', body: params });
  const reader = response.body!.getReader();
  let firstByte = 0;
  let bytes = 0;
  let members = 0;
  let carry = '';
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!firstByte) firstByte = performance.now() - started;
    bytes += value.length;
    const text = carry + decoder.decode(value, { stream: true });
    members += text.split('{"id":').length - 1;
    carry = text.slice(-5); // one less than the pattern, so a match is never counted twice
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  return { members, bytes, seconds, firstByte, peakDuringList };
}

/** The median time of `runs` list requests, one after another. */
export async function timed(url: string, params: URLSearchParams, runs = 5) {
  const times: number[] = [];
  let total = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const reply = (await (await fetch(`${url}/api2/list/`, { method: 'POST', body: params })).json()) as { members_total: number };
    times.push(performance.now() - started);
    total = reply.members_total;
  }
  return { ms: median(times), total };
}
