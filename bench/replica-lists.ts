/**
 * `npx tsx bench/replica-lists.ts [--members 50000] [--seconds 10] [--pin-cores]`: /list/ latency under a
 * write load, read from the primary and then from the standbys, on the stack of
 * docs/beyond-one-machine.md (three Patroni nodes in synchronous mode, HAProxy; Debian's
 * patroni, etcd-server and haproxy). One account of seeded members is listed (a page of 500
 * members, a quarter of the time with a profile search) by 4 clients, while another account's
 * members are updated by 8 clients through a second server; the server listed from is started
 * once without DATABASE_REPLICA_URLS, once with HAProxy's standbys' port. `npm run bench` runs it as its `replica-lists` section.
 *
 * Every process shares this machine's cores: a standby here takes the reads off the primary's
 * locks and buffers, not off its CPU, which a standby on a machine of its own would too.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { freePort, HaStack, haStackMissing } from '../test/support/ha-stack.js';
import { openStore } from '../src/store/store.js';
import { ensureAccount, seedMembers } from './seed-members.js';
import { build, startServer } from './lib.js';

export interface ReplicaListFigures {
  members: number;
  primary: { p50: number; p99: number; perSecond: number; writesPerSecond: number };
  /** With the standbys: and the reads they served, and those the primary served (metrics). */
  replica: { p50: number; p99: number; perSecond: number; writesPerSecond: number; onReplica: number; onPrimary: number };
}

async function measure(url: string, writerUrl: string, listKey: string, writeKey: string, seconds: number) {
  const writes = autocannon({
    url: `${writerUrl}/api2/update/`,
    connections: 8,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            user: 'writer',
            api_key: writeKey,
            find_member_id: String(1 + Math.floor(Math.random() * 1000)),
            city: `c${Math.random()}`,
          }).toString(),
        }),
      },
    ],
  });
  let n = 0;
  const lists = autocannon({
    url: `${url}/api2/list/`,
    connections: 4,
    duration: seconds,
    requests: [
      {
        setupRequest: (request) => {
          const search: Record<string, string> = n++ % 4 === 0 ? { profile: 'oslo' } : {};
          const params = { user: 'lists', api_key: listKey, record: '{id}{login}{email}{city}', limit: '500', ...search };
          return { ...request, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() };
        },
      },
    ],
  });
  const [w, l] = await Promise.all([writes, lists]);
  return { p50: l.latency.p50, p99: l.latency.p99, perSecond: l['2xx'] / l.duration, writesPerSecond: w['2xx'] / w.duration };
}

export async function measureReplicaLists(members: number, seconds: number, pinned = false): Promise<ReplicaListFigures> {
  const stack = await HaStack.start();
  try {
    if (pinned) {
      // --pin-cores: the primary on core 0 and the standbys on core 1, as near to machines of
      // their own as two cores allow (the servers and the clients use either).
      const leader = (await stack.leader())!;
      for (const node of stack.nodes) stack.pin(node, node === leader ? '0' : '1');
    }
    const url = stack.primaryUrl();
    const store = openStore(url);
    await store.migrate();
    const lists = await ensureAccount(store, 'lists');
    const writer = await ensureAccount(store, 'writer');
    await store.close();
    await seedMembers(url, lists.id, { count: members });
    await seedMembers(url, writer.id, { count: 1000, start: members });
    const figures: Partial<ReplicaListFigures> = { members };
    // The writes come through a server of their own, as through the other servers of a fleet:
    // the server measured spends its time on the lists alone.
    const writerServer = await startServer({ DATABASE_URL: url, SWEEP_INTERVAL_SECONDS: '0' });
    for (const replicas of [false, true]) {
      const metricsPort = await freePort();
      const env: Record<string, string> = { DATABASE_URL: url, SWEEP_INTERVAL_SECONDS: '0', METRICS_PORT: String(metricsPort) };
      if (replicas) env.DATABASE_REPLICA_URLS = stack.replicaUrl();
      const server = await startServer(env);
      try {
        const measured = await measure(server.url, writerServer.url, lists.apiKey!, writer.apiKey!, seconds);
        if (replicas) {
          const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
          const reads = (target: string) => Number(new RegExp(`member_api_replica_reads_total\\{target="${target}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
          figures.replica = { ...measured, onReplica: reads('replica'), onPrimary: reads('primary') };
          console.log(`  reads on the standbys ${figures.replica.onReplica}, on the primary ${figures.replica.onPrimary}`);
        } else figures.primary = measured;
        console.log(
          `  /list/ ${replicas ? 'from the standbys' : 'from the primary '}: p50 ${measured.p50} ms, p99 ${measured.p99} ms, ${measured.perSecond.toFixed(0)} lists/s beside ${measured.writesPerSecond.toFixed(0)} updates/s`,
        );
      } finally {
        await server.stop();
      }
    }
    await writerServer.stop();
    return figures as ReplicaListFigures;
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { members: { type: 'string', default: '50000' }, seconds: { type: 'string', default: '10' }, 'pin-cores': { type: 'boolean', default: false } },
  });
  const missing = haStackMissing();
  if (missing) throw new Error(missing);
  build();
  await measureReplicaLists(Number(values.members), Number(values.seconds), values['pin-cores']);
  process.exit(0);
}
