/**
 * `npx tsx bench/failover.ts [--kills 3] [--modes sync,async]`: a primary failover on the stack
 * of docs/beyond-one-machine.md (three Patroni nodes, HAProxy, two servers; Debian's patroni,
 * etcd-server and haproxy), under a create/login/update load. Each kill is `kill -9` of the
 * leader's Patroni and postmaster together, then the node rejoins. Per kill: Patroni's own
 * promotion (a node takes writes, asked directly) beside the outage clients saw; per mode, the
 * acknowledged writes missing afterwards and how long before the kill they were acknowledged.
 * `npm run bench` runs it with one kill per mode (the `failover` section).
 */
import { parseArgs } from 'node:util';
import { describeOutage, FailoverRig, type Outage } from '../test/ha/failover-rig.js';
import { haStackMissing } from '../test/support/ha-stack.js';
import { median, percentile } from './lib.js';

export interface FailoverFigures {
  synchronous: boolean;
  outages: Outage[];
  /** Acknowledged writes not on the new primary, and how long before their kill each was acknowledged (s). */
  lost: number;
  lostAge: number[];
  /** /create/ latency in the steady state before the first kill (ms). */
  createP50: number;
  createP99: number;
  /** How long after a commit a standby had flushed it (pg_stat_replication.flush_lag), sampled under the load (ms): p99 and max. */
  flushLagP99: number;
  flushLagMax: number;
}

/** Samples the standbys' flush_lag on the leader every 100 ms for `ms`. */
async function sampleFlushLag(rig: FailoverRig, ms: number): Promise<number[]> {
  const leader = (await rig.stack.leader())!;
  const lags: number[] = [];
  for (const until = Date.now() + ms; Date.now() < until;) {
    const rows = await rig.stack.query<{ lag: number }>(
      rig.stack.nodeUrl(leader, 'postgres'),
      'select coalesce(extract(epoch from flush_lag), 0) * 1000 as lag from pg_stat_replication',
    );
    lags.push(...rows.map((r) => Number(r.lag)));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return lags;
}

export async function measureFailover(synchronous: boolean, kills: number): Promise<FailoverFigures> {
  const rig = await FailoverRig.start({ synchronous });
  try {
    const lags = await sampleFlushLag(rig, 5000);
    const lostAge: number[] = [];
    let lost = 0;
    const killTimes: number[] = [];
    for (let k = 0; k < kills; k++) {
      const { outage, gone } = await rig.killLeader();
      killTimes.push(outage.killedAt);
      console.log(`  ${synchronous ? 'sync' : 'async'} kill ${k + 1}: ${describeOutage(outage)}`);
      await rig.rejoin(gone);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    await rig.load.stop();
    const missing = await rig.lostWrites();
    lost = missing.creates.length + missing.updates.length;
    for (const at of missing.acknowledgedAt) {
      const kill = killTimes.filter((t) => t >= at).sort((a, b) => a - b)[0];
      if (kill !== undefined) lostAge.push((kill - at) / 1000);
    }
    const steady = rig.load.answers.filter((a) => a.call === 'create' && a.result === 'OK' && a.at < killTimes[0]!).map((a) => a.at - a.sent);
    return {
      synchronous,
      outages: rig.outages,
      lost,
      lostAge,
      createP50: median(steady),
      createP99: percentile(steady, 99),
      flushLagP99: percentile(lags, 99),
      flushLagMax: Math.max(...lags),
    };
  } finally {
    await rig.stop();
  }
}

export function failoverMissing(): string | undefined {
  return haStackMissing();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { kills: { type: 'string', default: '3' }, modes: { type: 'string', default: 'sync,async' } } });
  const missing = haStackMissing();
  if (missing) throw new Error(missing);
  for (const mode of values.modes!.split(',')) {
    const figures = await measureFailover(mode === 'sync', Number(values.kills));
    const added = figures.outages.map((o) => o.firstOkAfter - o.promoted);
    console.log(
      `${mode}: ${figures.outages.length} kills; Patroni took ${figures.outages.map((o) => o.promoted.toFixed(1)).join(', ')} s; ` +
        `clients' writes out ${figures.outages.map((o) => (o.firstOkAfter - o.lastOkBefore).toFixed(1)).join(', ')} s; ` +
        `the servers added ${added.map((a) => a.toFixed(1)).join(', ')} s; acknowledged writes lost ${figures.lost}` +
        `${figures.lostAge.length ? ` (acknowledged ${figures.lostAge.map((a) => a.toFixed(2)).join(', ')} s before the kill)` : ''}; ` +
        `/create/ p50 ${figures.createP50.toFixed(1)} ms, p99 ${figures.createP99.toFixed(1)} ms before the kills; ` +
        `standbys' flush lag p99 ${figures.flushLagP99.toFixed(1)} ms, max ${figures.flushLagMax.toFixed(1)} ms`,
    );
  }
  process.exit(0);
}
