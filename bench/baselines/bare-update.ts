/**
 * Baseline: the durable one-row update that `/update/` with one profile field makes (a
 * member's `city`, found by id), done by the bare driver and nothing else: no HTTP, no
 * authentication, no events, no read before the write.
 *
 *   BEGIN; UPDATE member_fields SET value = ? WHERE member_id = ? AND name = 'city'; COMMIT
 *
 * With the store's durability: SQLite in WAL with synchronous=FULL (the server's setting), its
 * search triggers as the server has them; PostgreSQL as configured (synchronous_commit on).
 * CONCURRENCY clients: on PostgreSQL a connection each; on SQLite one connection (better-sqlite3
 * is synchronous and SQLite has one writer: more connections would only wait for its lock).
 *
 * With STATEMENT=login-record, the statement is instead the durable insert of the record a
 * successful login leaves (a row of `login_events`), the least a login can write.
 *
 *   node --import tsx bench/baselines/bare-update.ts DATABASE_URL MEMBERS CONCURRENCY SECONDS
 *
 * Prints one JSON line: {"engine":…,"concurrency":…,"perSecond":…,"done":…,"cpuMicros":…}, the
 * last this process's CPU per statement (on SQLite, all the work; on PostgreSQL, the client's).
 */
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { accountTrigrams } from '../../src/store/dialects/sqlite-trigrams.js';

const [url = '', membersText = '1000000', concurrencyText = '10', secondsText = '8'] = process.argv.slice(2);
const members = Number(membersText);
const concurrency = Number(concurrencyText);
const end = performance.now() + Number(secondsText) * 1000;
const CITIES = ['London', 'Paris', 'Berlin', 'Madrid', 'Rome', 'Lisbon', 'Dublin', 'Vienna'];
const randomUpdate = () => [CITIES[Math.floor(Math.random() * CITIES.length)]!, 1 + Math.floor(Math.random() * (members - 1))] as const;
const UPDATE =
  process.env.STATEMENT === 'login-record'
    ? "insert into login_events (account_id, member_id, login, ip, at, outcome) select account_id, id, $1, '127.0.0.1', 0, 'ok' from members where id = $2"
    : "update member_fields set value = $1 where member_id = $2 and name = 'city'";

let done = 0;
const cpuBefore = process.cpuUsage();
const started = performance.now();
if (url.startsWith('postgres')) {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      while (performance.now() < end) {
        await client.query('begin');
        await client.query(UPDATE, [...randomUpdate()]);
        await client.query('commit');
        done++;
      }
      await client.end();
    }),
  );
} else {
  const db = new BetterSqlite3(url);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.function('account_trigrams', { deterministic: true }, (accountId, text) => accountTrigrams(Number(accountId), String(text ?? '')));
  const update = db.prepare(UPDATE.replace(/\$\d/g, '?'));
  while (performance.now() < end) {
    db.exec('begin');
    update.run(...randomUpdate());
    db.exec('commit');
    done++;
  }
  db.close();
}
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(
  `${JSON.stringify({ engine: url.startsWith('postgres') ? 'postgres' : 'sqlite', concurrency, perSecond: done / elapsed, done, cpuMicros: (cpu.user + cpu.system) / done })}\n`,
);
