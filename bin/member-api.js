#!/usr/bin/env node
// The `member-api` command runs the compiled sources in dist/, bundled into one file (see
// scripts/build.mjs), which `npm install` builds (the `prepare` script) and `npm start` /
// `npm test` rebuild when a source changed.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// Password hashes run on libuv's thread pool (4 threads unless told): give every hashing slot
// (HASH_CONCURRENCY, one per core by default) a thread, with two to spare for file work.
// It must be set before the pool's first use, which is why it is here.
const hashSlots = Number(process.env.HASH_CONCURRENCY) || availableParallelism();
process.env.UV_THREADPOOL_SIZE ||= String(Math.max(4, hashSlots + 2));

// Output piped into a reader that stops early (`… | head`) is not an error: stop quietly.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const entry = new URL('../dist/member-api.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('member-api: dist/ is missing; run `npm run build` (npm install does it) first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main(process.argv);
