import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { connect } from '../../src/store/connect.js';
import { appendEvents } from '../../src/store/event-repository.js';
import type { NewEvent } from '../../src/events/event.js';
import { insertAccount } from '../support/factories.js';

const EVENT: NewEvent = { type: 'member.updated', at: 0, origin: { actor: 'system' }, data: {} };
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describeEachEngine('the events outbox', (context) => {
  it('makes ids visible only in the order they were taken: a later id waits for an earlier one to commit', async () => {
    const { store } = context();
    const accountId = (await insertAccount(store)).id;
    const one = connect(context().database.url);
    const two = connect(context().database.url);
    try {
      const ids = async () => (await store.events.page(accountId, 0, 100, undefined, 10_000)).events.map((e) => e.id);
      // Transaction A takes id 1 and does not commit yet.
      const a = await one.db.startTransaction().execute();
      await appendEvents(a, accountId, [EVENT]);
      // Transaction B asks for the next id: it waits for A (B cannot take 2 and commit it
      // while 1 is still invisible, which would let a reader skip 1 for good).
      let bTook = false;
      const b = (async () => {
        const trx = await two.db.startTransaction().execute();
        await appendEvents(trx, accountId, [EVENT, EVENT]);
        bTook = true;
        return trx;
      })();
      await settle();
      expect(bTook).toBe(false);
      expect(await ids()).toEqual([]);
      await a.commit().execute();
      const trxB = await b;
      expect(await ids()).toEqual([1]);
      await trxB.commit().execute();
      expect(await ids()).toEqual([1, 2, 3]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
