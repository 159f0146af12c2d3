import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { connect } from '../../src/store/connect.js';
import { appendEvents } from '../../src/store/event-repository.js';
import type { NewEvent } from '../../src/events/event.js';
import { insertAccount } from '../support/factories.js';

const event = (n: number): NewEvent => ({ type: 'member.updated', at: n, origin: { actor: 'system' }, data: { n } });

describeEachEngine('the events outbox and its sequencer', (context) => {
  it('numbers events in the order their transactions commit, not the order they were written: a reader never skips one', async () => {
    const { store } = context();
    const accountId = (await insertAccount(store)).id;
    const one = connect(context().database.url);
    const two = connect(context().database.url);
    try {
      const feed = async () => {
        await store.events.sequence();
        return (await store.events.page(accountId, 0, 100, undefined, 10_000)).events.map((e) => [e.id, e.data.n]);
      };
      // Transaction A writes first and does not commit yet.
      const a = await one.db.startTransaction().execute();
      await appendEvents(a, accountId, [event(1)]);
      // (SQLite has one writer: the sequencer would wait for A, so it is not asked here.)
      if (context().database.engine === 'postgres') expect(await feed()).toEqual([]);
      // B writes later and commits first (on SQLite, after A: one writer at a time).
      const b = (async () => {
        const trx = await two.db.startTransaction().execute();
        await appendEvents(trx, accountId, [event(2), event(3)]);
        await trx.commit().execute();
      })();
      if (context().database.engine === 'postgres') {
        await b;
        // B's events are numbered 1 and 2; A's, still uncommitted, have no id yet, so a reader
        // that has read up to 2 will find A's event after 2, not before it.
        expect(await feed()).toEqual([[1, 2], [2, 3]]);
        await a.commit().execute();
        expect(await feed()).toEqual([[1, 2], [2, 3], [3, 1]]);
      } else {
        await a.commit().execute();
        await b;
        expect(await feed()).toEqual([[1, 1], [2, 2], [3, 3]]);
      }
      // A rolled-back change leaves no event and no gap.
      const c = await one.db.startTransaction().execute();
      await appendEvents(c, accountId, [event(4)]);
      await c.rollback().execute();
      const d = await one.db.startTransaction().execute();
      await appendEvents(d, accountId, [event(5)]);
      await d.commit().execute();
      expect((await feed()).map(([id]) => id)).toEqual([1, 2, 3, 4]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
