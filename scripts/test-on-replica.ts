/**
 * `npm run test:replica [-- vitest arguments]`: the API's own test suite (test/http by default)
 * on PostgreSQL through a Patroni cluster (test/support/ha-stack.ts): each suite's store on
 * HAProxy's primary port, reading from its standbys' port as a server with
 * DATABASE_REPLICA_URLS does (lists, exports and the console's member pages on a standby when
 * it has what the account must see). Needs Debian's patroni, etcd-server and haproxy.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HaStack, haStackMissing } from '../test/support/ha-stack.js';

const missing = haStackMissing();
if (missing) {
  console.error(`test:replica: ${missing}`);
  process.exit(1);
}
const stack = await HaStack.start();
// Each suite's store writes down where its reads went (test/support/engines.ts).
const readsFile = join(mkdtempSync(join(tmpdir(), 'member-api-replica-reads-')), 'reads.jsonl');
let status: number;
try {
  const args = process.argv.slice(2);
  // Not spawnSync: this process must go on reading the cluster's output meanwhile, or a
  // PostgreSQL process that logs (a checkpoint, an error) blocks once the pipe is full.
  const run = spawn('npx', ['vitest', 'run', '--project', 'main', ...(args.length ? args : ['test/http'])], {
    stdio: 'inherit',
    env: {
      ...process.env,
      TEST_ENGINES: 'postgres',
      TEST_POSTGRES_URL: stack.primaryUrl('postgres', true),
      TEST_POSTGRES_REPLICA_URL: stack.replicaUrl('postgres', true),
      TEST_REPLICA_READS_FILE: readsFile,
    },
  });
  // once() rejects if the suite cannot be started: the cluster is stopped below all the same.
  const [code] = (await once(run, 'exit')) as [number | null];
  status = code ?? 1;
  const reads = { replica: 0, primary: 0 };
  const lines = existsSync(readsFile) ? readFileSync(readsFile, 'utf8').trim().split('\n').filter(Boolean) : [];
  for (const line of lines) {
    const { replica, primary } = JSON.parse(line) as typeof reads;
    reads.replica += replica;
    reads.primary += primary;
  }
  console.log(`\nreads that could go to a standby, over ${lines.length} stores: ${reads.replica} on a standby, ${reads.primary} on the primary`);
  // A suite that passes with every read on the primary has tested nothing of the routing.
  if (status === 0 && reads.replica === 0) {
    console.error('test:replica: no read went to a standby');
    status = 1;
  }
  // What the cluster did meanwhile (a leader change, a standby that fell behind) explains many a failure.
  if (status !== 0) console.error(`\nthe cluster's processes, last lines:\n${stack.output()}`);
} finally {
  await stack.stop();
}
process.exit(status);
