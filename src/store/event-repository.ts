/** Events in SQL: appended in a change's own transaction, numbered by the sequencer, read in id order by the feed. */
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { NewEvent, StoredEvent, EventType, ActorKind } from '../events/event.js';
import type { EventPage, EventStore } from '../events/events-store.js';
import type { Database, EventTable } from './schema.js';
import type { EngineConnection } from './dialects/dialect.js';
import { deferredWrite } from './dialects/deferred-write.js';

/** Events per INSERT: well under both engines' limits on bound parameters. */
const EVENTS_PER_INSERT = 500;

/**
 * Appends events to the account's trail, in the caller's transaction: one insert, no lock
 * (the change pays for its events and nothing more), sent with the transaction's next
 * statement (deferredWrite: on SQLite no round trip of its own). They get their feed ids after their
 * transaction commits, from the sequencer (sequenceEvents); a rollback leaves nothing.
 */
export async function appendEvents(trx: Transaction<Database>, accountId: number, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => ({
    account_id: accountId,
    id: null,
    type: event.type,
    at: event.at,
    actor: event.origin.actor,
    actor_email: event.origin.email ?? null,
    request_id: event.origin.requestId ?? null,
    member_id: event.member?.id ?? null,
    member_login: event.member?.login ?? null,
    data: JSON.stringify(event.data),
  }));
  for (let start = 0; start < rows.length; start += EVENTS_PER_INSERT) {
    await trx.executeQuery(deferredWrite(trx.insertInto('events').values(rows.slice(start, start + EVENTS_PER_INSERT)).compile()));
  }
}

/** Events given feed ids per sequencer transaction (each statement's cost bounded). */
const SEQUENCE_BATCH = 5000;
/** PostgreSQL's advisory lock key of the sequencer: one at a time across every server. */
const SEQUENCER_LOCK = 7_245_001;

/**
 * The sequencer: gives the committed events that have none their feed ids, each account's
 * continuing from its counter, in one transaction with the counters. One sequencer runs at a
 * time (SQLite's one writer; a transaction-scoped advisory lock on PostgreSQL, so that a
 * second waits and then sees the first's work). An event becomes visible to it only once its
 * own transaction has committed, so ids are handed out in the order events become visible:
 * a reader that has seen id N never later finds a new id at or below N (the feed's
 * exactly-once, in order, with any number of writers on any number of servers), and the ids of
 * an account are dense (a rolled-back change wrote no event to number). Answers how many it
 * numbered.
 */
export async function sequenceEvents(connection: EngineConnection): Promise<number> {
  let numbered = 0;
  for (;;) {
    // Nothing to number (the usual case for a feed read): no transaction, no lock, no commit.
    const waiting = await connection.reads.selectFrom('events').select('entry').where('id', 'is', null).limit(1).executeTakeFirst();
    if (!waiting) return numbered;
    const count = await connection.db.transaction().execute(async (trx) => {
      if (connection.engine === 'postgres') await sql`select pg_advisory_xact_lock(${SEQUENCER_LOCK})`.execute(trx);
      // SQLite: a write first, so that the transaction holds the write lock before it reads
      // (a read-then-write transaction fails at once, busy, when another connection wrote
      // meanwhile, instead of waiting its turn).
      else await sql`update event_counters set last_id = last_id where 0 = 1`.execute(trx);
      const pending = await trx.selectFrom('events').select(['entry', 'account_id']).where('id', 'is', null).orderBy('entry').limit(SEQUENCE_BATCH).execute();
      if (pending.length === 0) return 0;
      const byAccount = new Map<number, number[]>();
      for (const row of pending) {
        const entries = byAccount.get(Number(row.account_id)) ?? [];
        entries.push(Number(row.entry));
        byAccount.set(Number(row.account_id), entries);
      }
      const numbering: Array<[number, number]> = [];
      for (const [accountId, entries] of [...byAccount].sort(([a], [b]) => a - b)) {
        const { last_id: last } = await trx
          .insertInto('event_counters')
          .values({ account_id: accountId, last_id: entries.length })
          .onConflict((oc) => oc.column('account_id').doUpdateSet({ last_id: sql`event_counters.last_id + ${entries.length}` }))
          .returning('last_id')
          .executeTakeFirstOrThrow();
        const first = Number(last) - entries.length + 1;
        entries.forEach((entry, i) => numbering.push([entry, first + i]));
      }
      for (let start = 0; start < numbering.length; start += EVENTS_PER_INSERT) {
        const values = numbering.slice(start, start + EVENTS_PER_INSERT).map(([entry, id]) => sql`(cast(${entry} as bigint), cast(${id} as bigint))`);
        await sql`with v (entry, id) as (values ${sql.join(values)})
          update events set id = v.id from v where events.entry = v.entry`.execute(trx);
      }
      return pending.length;
    });
    numbered += count;
    if (count < SEQUENCE_BATCH) return numbered;
  }
}

function toEvent(row: Selectable<EventTable>): StoredEvent {
  return {
    id: Number(row.id ?? 0),
    type: row.type as EventType,
    at: Number(row.at),
    origin: {
      actor: row.actor as ActorKind,
      ...(row.actor_email === null ? {} : { email: row.actor_email }),
      ...(row.request_id === null ? {} : { requestId: row.request_id }),
    },
    ...(row.member_id === null ? {} : { member: { id: Number(row.member_id), login: row.member_login ?? '' } }),
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

export class EventRepository implements EventStore {
  private readonly reads: Kysely<Database>;

  constructor(private readonly connection: EngineConnection) {
    this.reads = connection.reads;
  }

  sequence(): Promise<number> {
    return sequenceEvents(this.connection);
  }

  async ofMember(accountId: number, memberId: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.reads.selectFrom('events').selectAll().where('account_id', '=', accountId).where('member_id', '=', memberId).orderBy('entry', 'desc').limit(limit).execute();
    return rows.map(toEvent);
  }

  async byIds(accountId: number, ids: readonly number[]): Promise<StoredEvent[]> {
    if (ids.length === 0) return [];
    const rows = await this.reads.selectFrom('events').selectAll().where('account_id', '=', accountId).where('id', 'in', [...ids]).orderBy('id').execute();
    return rows.map(toEvent);
  }

  async page(accountId: number, after: number | undefined, limit: number, types: readonly string[] | undefined, window: number): Promise<EventPage> {
    let from = after ?? 0;
    if (after === undefined) {
      // From the oldest event kept: ids below it were deleted by the retention sweep.
      const oldest = await this.reads.selectFrom('events').select('id').where('account_id', '=', accountId).where('id', 'is not', null).orderBy('id').limit(1).executeTakeFirst();
      from = oldest === undefined ? 0 : Number(oldest.id) - 1;
    }
    // The last id given, read first: every event up to it is numbered and visible to the read
    // below (the sequencer commits the ids and the counter together: see sequenceEvents).
    const counter = await this.reads.selectFrom('event_counters').select('last_id').where('account_id', '=', accountId).executeTakeFirst();
    // Ids are dense within an account (taken from a counter, given back on rollback), so a
    // window of ids bounds the rows read, whatever the type filter leaves out.
    const to = Math.max(from, Math.min(from + window, counter === undefined ? 0 : Number(counter.last_id)));
    let query = this.reads
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '>', from)
      .where('id', '<=', to)
      .orderBy('id')
      .limit(limit);
    if (types !== undefined) query = query.where('type', 'in', [...types]);
    const rows = await query.execute();
    // A full page ends at its last event; a short one read its whole window.
    const next = rows.length === limit ? Number(rows.at(-1)!.id) : to;
    return { events: rows.map(toEvent), next };
  }
}
