/**
 * Baseline: raw argon2id throughput, with the server's parameters, the same native module and
 * the same number of hashes in flight, and nothing else: no HTTP, no store.
 *
 *   node --import tsx bench/baselines/argon2.ts verify|hash CONCURRENCY SECONDS
 *
 * Prints one JSON line: {"kind":…,"concurrency":…,"perSecond":…,"cpuMicros":…}, the last the
 * process's CPU (every thread) per hash or verification.
 */
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { OWASP_ARGON2 } from '../../src/auth/passwords.js';

const [kind = 'verify', concurrencyText = '2', secondsText = '8'] = process.argv.slice(2);
const concurrency = Number(concurrencyText);
const seconds = Number(secondsText);
const options = { algorithm: 2 as Algorithm.Argon2id, ...OWASP_ARGON2 };
const password = 'seeded-password';
const stored = await hash(password, options);

let done = 0;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const end = started + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      if (kind === 'verify') await verify(stored, password);
      else await hash(`${password}-${done}`, options);
      done++;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
process.stdout.write(`${JSON.stringify({ kind, concurrency, perSecond: done / elapsed, cpuMicros: (cpu.user + cpu.system) / done })}\n`);
