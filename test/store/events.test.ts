import { expect, it } from 'vitest';
import { sql } from 'kysely';
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
      // Transaction A writes first (its change, then its events) and does not commit yet.
      const a = await one.db.startTransaction().execute();
      await sql`update event_counters set last_id = last_id where 0 = 1`.execute(a);
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
        expect(await feed()).toEqual([
          [1, 2],
          [2, 3],
        ]);
        await a.commit().execute();
        expect(await feed()).toEqual([
          [1, 2],
          [2, 3],
          [3, 1],
        ]);
      } else {
        await a.commit().execute();
        await b;
        expect(await feed()).toEqual([
          [1, 1],
          [2, 2],
          [3, 3],
        ]);
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

  it("keeps a change's events in the outbox until the sequencer moves them into the trail, numbered, in batches", async () => {
    const { store } = context();
    const connection = connect(context().database.url);
    try {
      const accountId = (await insertAccount(store)).id;
      const count = 5_003; // more than one sequencer batch (5,000)
      const trx = await connection.db.startTransaction().execute();
      await appendEvents(
        trx,
        accountId,
        Array.from({ length: count }, (_, i) => event(i + 1)),
      );
      await trx.commit().execute();
      const rows = async (table: 'events' | 'event_outbox') =>
        Number(
          (
            await connection.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('account_id', '=', accountId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect([await rows('event_outbox'), await rows('events')]).toEqual([count, 0]);
      expect(await store.events.sequence()).toBe(count);
      expect([await rows('event_outbox'), await rows('events')]).toEqual([0, count]);
      // Dense ids in the order written, and the trail's own order (entry) follows them.
      const trail = await connection.db.selectFrom('events').select(['id', 'data']).where('account_id', '=', accountId).orderBy('entry').execute();
      expect(trail.map((row) => [Number(row.id), (JSON.parse(row.data) as { n: number }).n])).toEqual(Array.from({ length: count }, (_, i) => [i + 1, i + 1]));
      expect(await store.events.sequence()).toBe(0);
    } finally {
      await connection.close();
    }
  });

  it("reclaims the outbox's dead rows once there are thousands (PostgreSQL: a VACUUM, autovacuum or not); SQLite has none to reclaim", async () => {
    const { store } = context();
    const accountId = (await insertAccount(store)).id;
    const connection = connect(context().database.url);
    try {
      await connection.db.transaction().execute((trx) =>
        appendEvents(
          trx,
          accountId,
          Array.from({ length: 3000 }, (_, i) => event(i + 1)),
        ),
      );
      expect(await store.events.sequence()).toBe(3000);
      if (context().database.engine === 'sqlite') {
        expect(await store.housekeeping.vacuumQueues()).toEqual([]);
        return;
      }
      const dead = async () =>
        (
          await sql<{
            dead: string;
            vacuumed: Date | null;
          }>`select n_dead_tup as dead, coalesce(last_vacuum, last_autovacuum) as vacuumed from pg_stat_user_tables where schemaname = current_schema() and relname = 'event_outbox'`.execute(
            connection.db,
          )
        ).rows[0]!;
      // The statistics learn of the deleted rows within seconds (each connection reports its own).
      let vacuumed: string[] = [];
      for (let tries = 0; tries < 60 && !vacuumed.includes('event_outbox'); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        vacuumed = await store.housekeeping.vacuumQueues();
      }
      expect(vacuumed).toContain('event_outbox');
      const after = await dead();
      expect(after.vacuumed).not.toBeNull();
      expect(Number(after.dead)).toBeLessThan(2000);
      // Nothing left to reclaim: the next call vacuums nothing.
      expect(await store.housekeeping.vacuumQueues()).not.toContain('event_outbox');
    } finally {
      await connection.close();
    }
  }, 60_000);

  it("keeps an event's text exact on its way with the commit: quotes, backslashes, placeholders, any script", async () => {
    const { store } = context();
    const accountId = (await insertAccount(store)).id;
    const tricky = `it's \\ "quoted" $1 $$ --; ${'\u00e9\u4e2d\u{1F600}'} \\x00 drop table events;`;
    const written: NewEvent = {
      type: 'member.updated',
      at: 7,
      origin: { actor: 'api', requestId: tricky },
      member: { id: 5, login: tricky },
      data: { note: tricky, n: -1.5 },
    };
    const connection = connect(context().database.url);
    try {
      await connection.db.transaction().execute(async (trx) => {
        await trx.insertInto('event_counters').values({ account_id: accountId, last_id: 0 }).execute();
        await appendEvents(trx, accountId, [written]);
      });
      await store.events.sequence();
      const [read] = (await store.events.page(accountId, 0, 10, undefined, 10_000)).events;
      expect(read).toMatchObject({
        id: 1,
        type: 'member.updated',
        at: 7,
        origin: { actor: 'api', requestId: tricky },
        member: { id: 5, login: tricky },
        data: { note: tricky, n: -1.5 },
      });
      if (context().database.engine === 'postgres') {
        // A value PostgreSQL's text cannot hold is sent as a parameter (not written into the
        // SQL), and fails the change as a whole.
        const failing = connection.db.transaction().execute(async (trx) => {
          await trx.updateTable('event_counters').set({ last_id: 41 }).where('account_id', '=', accountId).execute();
          await appendEvents(trx, accountId, [{ ...written, member: { id: 5, login: 'nul \u0000 here' } }]);
        });
        await expect(failing).rejects.toThrow(/0x00/);
        const counter = await connection.db.selectFrom('event_counters').select('last_id').where('account_id', '=', accountId).executeTakeFirstOrThrow();
        expect(Number(counter.last_id)).toBe(1);
      }
    } finally {
      await connection.close();
    }
  });

  it('drops the waiting events of an account deleted before they were numbered, and numbers the others', async () => {
    const { store } = context();
    const gone = (await insertAccount(store)).id;
    const kept = (await insertAccount(store)).id;
    const connection = connect(context().database.url);
    try {
      await connection.db.transaction().execute(async (trx) => {
        await appendEvents(trx, gone, [event(1), event(2)]);
        await appendEvents(trx, kept, [event(3)]);
      });
      expect(await store.accounts.deleteAccount(gone)).toBe(true);
      await store.events.sequence();
      expect(await connection.db.selectFrom('event_outbox').select('entry').where('account_id', 'in', [gone, kept]).execute()).toEqual([]);
      expect((await store.events.page(kept, 0, 10, undefined, 10_000)).events.map((e) => [e.id, e.data.n])).toEqual([[1, 3]]);
      expect(await connection.db.selectFrom('events').select('id').where('account_id', '=', gone).execute()).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it('fails the whole change when its events cannot be written, though they travel with the commit', async () => {
    const { store } = context();
    const accountId = (await insertAccount(store)).id;
    const connection = connect(context().database.url);
    try {
      const counter = () => connection.db.selectFrom('event_counters').select('last_id').where('account_id', '=', accountId).execute();
      // The change's own write, then an event that cannot be written (no type: the column is NOT NULL).
      const failing = connection.db.transaction().execute(async (trx) => {
        await trx.insertInto('event_counters').values({ account_id: accountId, last_id: 41 }).execute();
        await appendEvents(trx, accountId, [{ ...event(1), type: null as unknown as NewEvent['type'] }]);
      });
      await expect(failing).rejects.toThrow(/null|NULL/);
      expect(await counter()).toEqual([]);
      // The writer is free and well afterwards: the next change and its events commit.
      await connection.db.transaction().execute(async (trx) => {
        await trx.insertInto('event_counters').values({ account_id: accountId, last_id: 0 }).execute();
        await appendEvents(trx, accountId, [event(2)]);
      });
      expect((await counter()).map((row) => Number(row.last_id))).toEqual([0]);
      await store.events.sequence();
      expect((await store.events.page(accountId, 0, 10, undefined, 10_000)).events.map((e) => e.data.n)).toEqual([2]);
    } finally {
      await connection.close();
    }
  });
});
