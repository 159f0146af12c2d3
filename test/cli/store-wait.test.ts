/**
 * `serve` started while its PostgreSQL does not answer yet (a database still starting, a
 * failover under way): it waits, saying so, and starts once the store answers; a store that
 * never answers within STORE_WAIT_SECONDS ends the start with the reason, as before.
 */
import { describe, expect, it } from 'vitest';
import { exitOf, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable } from '../support/engines.js';
import { proxyFor, throughProxy } from '../support/proxy.js';

describe.skipIf(!engineAvailable('postgres'))('serve waits for its store', () => {
  it('waits for a PostgreSQL that does not answer yet, then serves', async () => {
    const database = await createTestDatabase('postgres');
    // A port where nothing listens yet: connections are refused until the proxy opens on it.
    const proxy = proxyFor(database.url);
    await proxy.open();
    await proxy.cut();
    const url = throughProxy(database.url, proxy);
    const starting = startServe({ DATABASE_URL: url, SWEEP_INTERVAL_SECONDS: '0' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await proxy.open();
    const server = await starting;
    try {
      expect(server.output()).toContain('the store does not answer yet; trying again (STORE_WAIT_SECONDS: 60)');
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await proxy.cut();
      await database.drop();
    }
  }, 60_000);

  it('gives up after STORE_WAIT_SECONDS with the reason', async () => {
    const database = await createTestDatabase('postgres');
    const proxy = proxyFor(database.url);
    await proxy.open();
    await proxy.cut();
    try {
      const failed = await startServe({ DATABASE_URL: throughProxy(database.url, proxy), STORE_WAIT_SECONDS: '1' }).catch((error: Error) => error);
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toMatch(/ECONNREFUSED|not reachable|does not answer/);
    } finally {
      await database.drop();
    }
  }, 60_000);
});
