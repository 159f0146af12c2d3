/**
 * Webhook deliveries to a local receiver: `count` events (members created by the importer's
 * store write, one `member.created` each) turned into deliveries and sent, signed, to one
 * endpoint on this machine by the server's dispatcher, in order, as a server does it (in
 * this process, with the receiver: a conservative setting, both share one event loop).
 *
 *   npx tsx bench/webhooks.ts [--count 5000] [--engines sqlite,postgres]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createServices } from '../src/compose.js';
import { loadConfig } from '../src/config.js';
import type { Engine } from '../src/store/dialects/dialect.js';
import { databaseUrl, resetDatabase } from './lib.js';

export async function measureWebhooks(engine: Engine, count: number): Promise<{ deliveries: number; perSecond: number }> {
  await resetDatabase(engine, 'webhooks');
  const services = await createServices(loadConfig({ DATABASE_URL: databaseUrl(engine, 'webhooks'), WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' }));
  let received = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const created = await services.accounts.create('hooked', {});
    if (created.kind !== 'created') throw new Error('no account');
    const added = await services.webhooks.endpoints.add(created.account, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, undefined);
    if (added.kind !== 'added') throw new Error(added.reason);
    for (let start = 0; start < count; start += 1000) {
      const inserts = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
        login: `hook${start + i}`,
        email: `hook${start + i}@example.com`,
        passwordHash: '!upstream',
        profile: new Map<string, string>(),
      }));
      await services.store.transfer.writeImport(created.account.id, { inserts, updates: [], now: Date.now(), origin: { actor: 'import' } });
    }
    const started = performance.now();
    while (received < count) {
      const round = await services.webhooks.dispatcher.run();
      if (round.delivered === 0 && received < count) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const seconds = (performance.now() - started) / 1000;
    return { deliveries: received, perSecond: received / seconds };
  } finally {
    services.webhooks.sender.close();
    receiver.closeAllConnections();
    receiver.close();
    await services.store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '5000' }, engines: { type: 'string', default: 'sqlite,postgres' } } });
  for (const engine of values.engines!.split(',') as Engine[]) {
    const figures = await measureWebhooks(engine, Number(values.count));
    console.log(`${engine}: ${figures.deliveries} webhook deliveries, ${Math.round(figures.perSecond)}/s`);
  }
  process.exit(0);
}
