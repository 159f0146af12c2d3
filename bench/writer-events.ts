/**
 * `npx tsx bench/writer-events.ts [--engine sqlite|postgres] [--blocks 8] [--block 3000]`:
 * what events cost the store per update of one member's profile field, without HTTP, in CPU
 * time of this process (every thread: the SQLite writer's included; PostgreSQL's own work is
 * not counted), which is steadier on this shared machine than a throughput.
 *
 * Two stores over the bench's million-member database (seeded by `npm run bench`), one with
 * events and one without (EVENTS), take turns, a block of updates each, in the order off, on,
 * on, off, …, so that a drift of the machine weighs on both alike. Five updates at a time (on
 * SQLite they share a commit, as under the bench's HTTP load), each of a random member's
 * `city`; the sequencer runs after every 700 updates with events, as the webhook dispatcher
 * runs it every second under that load. Prints CPU µs per update for each and the difference.
 */
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/store.js';
import type { Engine } from '../src/store/dialects/dialect.js';
import { databaseUrl } from './lib.js';
import { ACCOUNT, seeded } from './million.js';

const { values: options } = parseArgs({
  options: { engine: { type: 'string', default: 'sqlite' }, blocks: { type: 'string', default: '8' }, block: { type: 'string', default: '3000' } },
});
const engine = options.engine as Engine;
const COUNT = 1_000_000;
const BLOCK = Number(options.block);
const CITIES = ['London', 'Paris', 'Berlin', 'Madrid', 'Rome', 'Lisbon', 'Dublin', 'Vienna'];
const AT_ONCE = 5;
const SEQUENCE_EVERY = 700;

await seeded(engine, COUNT, false);
const url = databaseUrl(engine, 'million');
const stores = { off: openStore(url, { events: false }), on: openStore(url, { events: true }) };
const account = await stores.on.accounts.findAccountByName(ACCOUNT);
if (!account) throw new Error(`no account ${ACCOUNT}: run npm run bench first`);
const limits = { maxProfileBytes: Number.MAX_SAFE_INTEGER, storageLeft: Number.MAX_SAFE_INTEGER };
const cpu = { off: 0, on: 0 };
const updates = { off: 0, on: 0 };

async function block(events: 'off' | 'on', measured: boolean): Promise<void> {
  const store = stores[events];
  const started = process.cpuUsage();
  for (let done = 0; done < BLOCK; done += AT_ONCE) {
    await Promise.all(
      Array.from({ length: AT_ONCE }, () =>
        store.members.updateMembers(
          account!.id,
          { by: 'id', id: 1 + Math.floor(Math.random() * (COUNT - 1)) },
          { deleteFields: [], setFields: new Map([['city', CITIES[Math.floor(Math.random() * CITIES.length)]!]]) },
          Date.now(),
          limits,
          { actor: 'api', requestId: 'bench' },
        ),
      ),
    );
    if (events === 'on' && (done + AT_ONCE) % SEQUENCE_EVERY < AT_ONCE) await store.events.sequence();
  }
  const used = process.cpuUsage(started);
  if (!measured) return;
  cpu[events] += used.user + used.system;
  updates[events] += BLOCK;
}

// One block each to warm up (compiled code, statement caches, pages), not counted.
await block('off', false);
await block('on', false);
for (let round = 0; round < Number(options.blocks); round++) {
  for (const events of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) await block(events, true);
}
const perUpdate = { off: cpu.off / updates.off, on: cpu.on / updates.on };
console.log(`${engine}: CPU per update, events off ${perUpdate.off.toFixed(1)} µs, on ${perUpdate.on.toFixed(1)} µs: events +${(perUpdate.on - perUpdate.off).toFixed(1)} µs (${updates.on} updates each)`);
await Promise.all([stores.off.close(), stores.on.close()]);
