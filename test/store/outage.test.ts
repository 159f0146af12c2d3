/**
 * The PostgreSQL dialect when the server goes away under a connection it holds between
 * queries (a snapshot whose list waits for a slow client, a transaction between statements).
 * An unguarded client would raise an uncaught 'error' and kill the process, which fails this
 * run; a guarded one fails its next query as "store unavailable".
 */
import { describe, expect, it } from 'vitest';
import { parseRecordTemplate } from '../../src/members/record-template.js';
import { StoreUnavailable } from '../../src/common/store-errors.js';
import { openStore } from '../../src/store/store.js';
import { createTestDatabase, engineAvailable } from '../support/engines.js';
import { proxyFor, throughProxy } from '../support/proxy.js';
import { insertAccount, insertMember } from '../support/factories.js';

describe.skipIf(!engineAvailable('postgres'))('PostgreSQL connection lost while held', () => {
  it('survives losing a connection held idle between queries, and reports the store unavailable', async () => {
    const database = await createTestDatabase('postgres', { migrated: true });
    const setup = openStore(database.url);
    await setup.migrate();
    const account = await insertAccount(setup);
    for (let i = 0; i < 3; i++) await insertMember(setup, account.id);
    await setup.close();

    const proxy = proxyFor(database.url);
    await proxy.open();
    const store = openStore(throughProxy(database.url, proxy));
    try {
      let resume!: () => void;
      const held = new Promise<void>((resolve) => (resume = resolve));
      const listing = (async () => {
        const list = store.members.listMembers(account.id, { record: parseRecordTemplate('{id}')!, filters: {}, limit: 2 }, Date.now());
        for await (const chunk of list) {
          expect(chunk).toHaveLength(2);
          // The snapshot's connection now sits idle, checked out, while we wait.
          await held;
        }
        return list.total;
      })();
      await new Promise((r) => setTimeout(r, 100));
      await proxy.cut();
      await new Promise((r) => setTimeout(r, 200));
      resume();
      await expect(listing).rejects.toBeInstanceOf(StoreUnavailable);
      await expect(store.accounts.findAccountByName(account.name)).rejects.toBeInstanceOf(StoreUnavailable);

      await proxy.open();
      expect((await store.accounts.findAccountByName(account.name))?.id).toBe(account.id);
    } finally {
      await proxy.cut().catch(() => {});
      await store.close().catch(() => {});
      await database.drop();
    }
  }, 30_000);
});
