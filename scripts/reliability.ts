/**
 * `npm run reliability`: the heavier versions of the reliability and security tests, on
 * SQLite and PostgreSQL, with the figures each one measured.
 *
 * - 50,000 fuzzed requests per engine (100,000 in all) against every endpoint;
 * - 5 rounds of SIGKILL during concurrent writes per engine, and a kill in the middle of an
 *   update of 30,000 members;
 * - 150 interleaved rounds of failed logins of four kinds, held to medians within 20%;
 * - a PostgreSQL outage under load; 50 concurrent SQLite writers in two processes;
 * - the races (64 creates of one login, 24 logins against an allowance of 5);
 * - /healthz while one tenant runs the largest update allowed and a list no index serves,
 *   and another tenant's lists while 50 lists stall (held to p99 ≤ 50 ms and ≤ 100 ms);
 * - the search isolation between tenants, and the event loop during bounded work.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FILES = [
  'test/http/hostile-input.test.ts',
  'test/http/enumeration.test.ts',
  'test/cli/durability.test.ts',
  'test/cli/outage.test.ts',
  'test/http/create.test.ts',
  'test/http/login.test.ts',
  'test/http/limits.test.ts',
  'test/http/wire.test.ts',
  'test/http/bounded-work.test.ts',
  'test/http/search-isolation.test.ts',
  'test/cli/latency-under-abuse.test.ts',
  'test/cli/stalled-lists.test.ts',
];

const started = Date.now();
const child = spawn(process.execPath, [`${ROOT}node_modules/vitest/vitest.mjs`, 'run', ...FILES, '--no-file-parallelism'], {
  cwd: ROOT,
  env: { ...process.env, RELIABILITY_REPORT: '1', FUZZ_RUNS: '50000', DURABILITY_ROUNDS: '5' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));

const figures = output.split('\n').flatMap((line) => {
  const match = /FIGURE (.*?) = (.*)$/.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
  return match ? [[match[1]!, match[2]!] as const] : [];
});
const summary = /Tests\s+(.*)$/m.exec(output.replace(/\x1b\[[0-9;]*m/g, ''))?.[1] ?? '(no summary)';
console.log(`\nmember-api reliability report (${new Date().toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
const width = Math.max(...figures.map(([name]) => name.length));
for (const [name, value] of figures) console.log(`${name.padEnd(width)}  ${value}`);
console.log(`\ntests: ${summary}`);
if (code !== 0) {
  console.log('\nSOME CHECKS FAILED; the test output follows.\n');
  console.log(output);
}
process.exit(code);
