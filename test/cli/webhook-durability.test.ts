/**
 * Webhook deliveries are rows, not timers: the server is killed with SIGKILL while deliveries
 * wait for a retry and one is in flight, started again on the same store, and every event
 * still reaches the receiver once the killed server's lease has run out (moved back by its
 * length rather than waited for).
 */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { exitOf, runCli, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';
import { poke } from '../support/peek.js';
import { startReceiver } from '../support/receiver.js';
import { LEASE_MS } from '../../src/webhooks/dispatcher.js';

async function post(url: string, params: Record<string, string>): Promise<any> {
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(params) });
  return response.json();
}

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`webhook durability [${engine}]`, () => {
    it('delivers every event after a SIGKILL with deliveries pending', async () => {
      const database = await createTestDatabase(engine);
      const receiver = await startReceiver();
      const env = { DATABASE_URL: database.url, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' };
      try {
        let server = await startServe(env);
        const key = server.demoKey();
        const added = await runCli(['webhook', 'add', '--account', 'demo', '--url', receiver.url, '--json'], env);
        expect(added.code, added.stderr).toBe(0);
        const { secret } = JSON.parse(added.stdout) as { secret: string };
        // The receiver is down for now (503, slowly): every delivery waits for its retry, and
        // the server is killed while an attempt is in flight, with the endpoint's lease held.
        receiver.answer = 503;
        receiver.delayMs = 5_000;
        const logins = Array.from({ length: 20 }, (_, i) => `k${i}`);
        for (const login of logins) {
          expect(
            await post(`${server.url}/api2/create/`, { user: 'demo', api_key: key, _login: login, _email: `${login}@example.com`, _password: 'durable-horse' }),
          ).toMatchObject({ result: 'OK' });
        }
        for (let waited = 0; receiver.received.length === 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(receiver.received.length).toBeGreaterThan(0);
        server.child.kill('SIGKILL');
        expect(await exitOf(server.child)).toBeNull();
        receiver.answer = 200;
        receiver.delayMs = 0;
        // As if the killed round's lease (LEASE_MS, 30 s) had run out: moved back by its length.
        await poke(database, (db) =>
          db
            .updateTable('webhook_endpoints')
            .set((eb) => ({ lease_until: eb('lease_until', '-', LEASE_MS) }))
            .where('lease_until', '>', 0)
            .execute(),
        );
        const before = receiver.received.length;
        server = await startServe(env);
        try {
          const delivered = () => new Set(receiver.received.slice(before).map((r) => JSON.parse(r.body).member.login as string));
          // The deliveries wait for their retries, and the lease for its end (moved back above).
          for (let waited = 0; delivered().size < logins.length && waited < LEASE_MS + 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
          expect([...delivered()].sort()).toEqual([...logins].sort());
          const verifier = new Webhook(secret);
          for (const request of receiver.received) verifier.verify(request.body, request.headers as Record<string, string>);
        } finally {
          server.child.kill('SIGTERM');
          await exitOf(server.child);
        }
      } finally {
        await receiver.close();
        await database.drop();
      }
    }, 150_000);
  });
}
