/** Events in SQL: appended in a change's own transaction, read in id order by the feed. */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { NewEvent, StoredEvent, EventType, ActorKind } from '../events/event.js';
import type { EventPage, EventStore } from '../events/events-store.js';
import type { Database, EventTable } from './schema.js';

/** Events per INSERT: well under both engines' limits on bound parameters. */
const EVENTS_PER_INSERT = 500;

/**
 * Appends events to the account's trail, in the caller's transaction, as its last statements:
 * the ids are taken by bumping the account's counter, whose row lock the transaction then holds
 * until it commits. Two transactions of one account therefore commit their events in the
 * order of their ids, and a reader that has seen id N will never later find an id below N
 * appear (the feed's exactly-once, in order). A rollback gives the ids back.
 */
export async function appendEvents(trx: Transaction<Database>, accountId: number, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  const { last_id: last } = await trx
    .insertInto('event_counters')
    .values({ account_id: accountId, last_id: events.length })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ last_id: sql`event_counters.last_id + ${events.length}` }))
    .returning('last_id')
    .executeTakeFirstOrThrow();
  const first = Number(last) - events.length + 1;
  const rows = events.map((event, i): EventTable => ({
    account_id: accountId,
    id: first + i,
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
    await trx.insertInto('events').values(rows.slice(start, start + EVENTS_PER_INSERT)).execute();
  }
}

function toEvent(row: EventTable): StoredEvent {
  return {
    id: Number(row.id),
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
  constructor(private readonly reads: Kysely<Database>) {}

  async byIds(accountId: number, ids: readonly number[]): Promise<StoredEvent[]> {
    if (ids.length === 0) return [];
    const rows = await this.reads.selectFrom('events').selectAll().where('account_id', '=', accountId).where('id', 'in', [...ids]).orderBy('id').execute();
    return rows.map(toEvent);
  }

  async page(accountId: number, after: number | undefined, limit: number, types: readonly string[] | undefined, window: number): Promise<EventPage> {
    let from = after ?? 0;
    if (after === undefined) {
      // From the oldest event kept: ids below it were deleted by the retention sweep.
      const oldest = await this.reads.selectFrom('events').select('id').where('account_id', '=', accountId).orderBy('id').limit(1).executeTakeFirst();
      from = oldest === undefined ? 0 : Number(oldest.id) - 1;
    }
    // The last id committed, read first: every event up to it is visible to the read below
    // (its transaction and every earlier one have committed: see appendEvents).
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
