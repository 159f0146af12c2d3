/** Events in SQL: appended to the outbox in a change's own transaction, moved into the trail with their ids by the sequencer, read in id order by the feed. */
import { CompiledQuery, sql, type Insertable, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import type { NewEvent, StoredEvent, EventType, ActorKind } from '../events/event.js';
import type { EventPage, EventStore } from '../events/events-store.js';
import type { Database, EventOutboxTable, EventTable } from './schema.js';
import { writerProcedure, type WriterConnection } from './dialects/dialect.js';
import { Repository, type StoreConnection } from './writes.js';

/** Events per INSERT: well under both engines' limits on bound parameters. */
const EVENTS_PER_INSERT = 500;

/**
 * Appends events to the outbox, in the caller's transaction: one insert into a table with no
 * index but its key, no lock (the change pays for its events and nothing more). The
 * sequencer (sequenceEvents) moves them into the trail with their feed ids once their
 * transaction has committed; a rollback leaves nothing.
 */
export async function appendEvents(trx: Transaction<Database>, accountId: number, events: readonly NewEvent[]): Promise<void> {
  for (const statement of appendEventsStatements(trx, accountId, events)) await trx.executeQuery(statement);
}

/** The statements that append the events (appendEvents), for a transaction handed over whole (StoreConnection.writeAll). */
export function appendEventsStatements(db: Kysely<Database>, accountId: number, events: readonly NewEvent[]): CompiledQuery[] {
  const statements = [];
  for (let start = 0; start < events.length; start += EVENTS_PER_INSERT) {
    const slice = events.slice(start, start + EVENTS_PER_INSERT);
    const parameters = slice.flatMap((event) => {
      const row = outboxRow(accountId, event);
      return EVENT_COLUMNS.map((column) => row[column]);
    });
    statements.push(CompiledQuery.raw(insertSql(db, slice.length), parameters));
  }
  return statements;
}

/** The outbox's columns of type bigint (the others are text). */
const BIGINT_COLUMNS = new Set<string>(['account_id', 'at', 'member_id']);

/**
 * PostgreSQL: events appended by a part of a larger statement (a data-modifying CTE), in their
 * order, once for each row of `from` (another part's returned rows, with a `status`); an event
 * given a status only where that row's status is it. So an event is written by the very
 * statement whose change it tells. One INSERT for all: the statement's parts run in no set
 * order, the rows of one INSERT in the order of its ORDER BY.
 */
export function outboxInsertFrom(
  from: string,
  accountId: number,
  events: ReadonlyArray<{ readonly event: NewEvent; readonly status?: string }>,
): RawBuilder<Record<string, unknown>> {
  const rows = events.map(({ event, status }, order) => {
    const row = outboxRow(accountId, event);
    const values = EVENT_COLUMNS.map((column) => sql`cast(${row[column]} as ${sql.raw(BIGINT_COLUMNS.has(column) ? 'bigint' : 'text')})`);
    return sql`(${sql.join([...values, sql`cast(${order} as integer)`, sql`cast(${status ?? null} as text)`])})`;
  });
  const columns = sql.join(EVENT_COLUMNS.map((column) => sql.ref(column)));
  return sql<Record<string, unknown>>`insert into event_outbox (${columns})
    select ${sql.join(EVENT_COLUMNS.map((column) => sql.ref(`e.${column}`)))}
    from (values ${sql.join(rows)}) as e (${columns}, ord, status), ${sql.table(from)} as f
    where e.status is null or e.status = f.status
    order by e.ord`;
}

/** The outbox's rows of a few events (one member's change), for an INSERT a WITH ends with (member-updates.ts: withWrites). */
export function outboxRows(accountId: number, events: readonly NewEvent[]): Array<Insertable<EventOutboxTable>> {
  return events.map((event) => outboxRow(accountId, event));
}

function outboxRow(accountId: number, event: NewEvent): Insertable<EventOutboxTable> {
  return {
    account_id: accountId,
    type: event.type,
    at: event.at,
    actor: event.origin.actor,
    actor_email: event.origin.email ?? null,
    actor_name: event.origin.name ?? null,
    request_id: event.origin.requestId ?? null,
    member_id: event.member?.id ?? null,
    member_login: event.member?.login ?? null,
    data: JSON.stringify(event.data),
  };
}

/** The columns of an event in the outbox, in the order of the compiled INSERT's parameters. */
const EVENT_COLUMNS = ['account_id', 'type', 'at', 'actor', 'actor_email', 'actor_name', 'request_id', 'member_id', 'member_login', 'data'] as const;
/** The INSERT of `count` events, compiled once per dialect and count (an update of one member writes one). */
const insertSqls = new WeakMap<object, Map<number, string>>();

function insertSql(db: Kysely<Database>, count: number): string {
  const dialect = db.getExecutor().adapter.constructor;
  let byCount = insertSqls.get(dialect);
  if (!byCount) insertSqls.set(dialect, (byCount = new Map()));
  let text = byCount.get(count);
  if (text === undefined) {
    const row = Object.fromEntries(EVENT_COLUMNS.map((column) => [column, null])) as unknown as Insertable<EventOutboxTable>;
    text = db
      .insertInto('event_outbox')
      .values(Array.from({ length: count }, () => row))
      .compile().sql;
    if (byCount.size < 16) byCount.set(count, text);
  }
  return text;
}

/** Events given feed ids per sequencer transaction (each statement's cost bounded). */
const SEQUENCE_BATCH = 5000;
/** PostgreSQL's advisory lock key of the sequencer: one at a time across every server. */
const SEQUENCER_LOCK = 7_245_001;

/**
 * The sequencer: moves the committed events of the outbox into the trail, each account's
 * numbered on from its counter, in one transaction with the counters. One sequencer runs at a
 * time (SQLite's one writer; a transaction-scoped advisory lock on PostgreSQL, so that a
 * second waits and then sees the first's work). An event becomes visible to it only once its
 * own transaction has committed, so ids are handed out in the order events become visible:
 * a reader that has seen id N never later finds a new id at or below N (the feed's
 * exactly-once, in order, with any number of writers on any number of servers), and the ids of
 * an account are dense (a rolled-back change wrote no event to number). Exactly the events it
 * read leave the outbox (one committed meanwhile with a smaller entry waits for the next
 * round). Answers how many it numbered.
 */
export async function sequenceEvents(connection: StoreConnection): Promise<number> {
  let numbered = 0;
  for (;;) {
    // Nothing to number (the usual case for a feed read): no transaction, no lock, no commit.
    const waiting = await connection.reads.selectFrom('event_outbox').select('entry').limit(1).executeTakeFirst();
    if (!waiting) return numbered;
    const count = await connection.transact(sequenceBatchProcedure);
    numbered += count;
    if (count < SEQUENCE_BATCH) return numbered;
  }
}

/** One transaction of the sequencer: up to SEQUENCE_BATCH events numbered and moved; answers how many. */
export const sequenceBatchProcedure = writerProcedure('events.sequenceBatch', (connection: WriterConnection) =>
  connection.db.transaction().execute(async (trx) => {
    // SQLite's writer holds the write lock already: its group of procedures began IMMEDIATE.
    if (connection.transactionLocks) await sql`select ${connection.transactionLocks.lock('exclusive', SEQUENCER_LOCK)}`.execute(trx);
    const pending = await trx
      .selectFrom('event_outbox as o')
      .leftJoin('accounts as a', 'a.id', 'o.account_id')
      .select(['o.entry', 'o.account_id', 'a.id as account'])
      .orderBy('o.entry')
      .limit(SEQUENCE_BATCH)
      .execute();
    if (pending.length === 0) return 0;
    const byAccount = new Map<number, number[]>();
    const orphans: number[] = [];
    for (const row of pending) {
      // An account deleted since (PostgreSQL's outbox has no key to it: migration 014): its events go with it.
      if (row.account === null) {
        orphans.push(Number(row.entry));
        continue;
      }
      const entries = byAccount.get(Number(row.account_id)) ?? [];
      entries.push(Number(row.entry));
      byAccount.set(Number(row.account_id), entries);
    }
    for (let start = 0; start < orphans.length; start += EVENTS_PER_INSERT) {
      await trx
        .deleteFrom('event_outbox')
        .where('entry', 'in', orphans.slice(start, start + EVENTS_PER_INSERT))
        .execute();
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
    // In the outbox's order, so that the trail's own order (its entries) follows the ids.
    numbering.sort(([a], [b]) => a - b);
    for (let start = 0; start < numbering.length; start += EVENTS_PER_INSERT) {
      const values = sql.join(numbering.slice(start, start + EVENTS_PER_INSERT).map(([entry, id]) => sql`(cast(${entry} as bigint), cast(${id} as bigint))`));
      await sql`with v (entry, id) as (values ${values})
        insert into events (account_id, id, type, at, actor, actor_email, actor_name, request_id, member_id, member_login, data)
        select o.account_id, v.id, o.type, o.at, o.actor, o.actor_email, o.actor_name, o.request_id, o.member_id, o.member_login, o.data
        from event_outbox o join v on o.entry = v.entry order by o.entry`.execute(trx);
      await sql`with v (entry, id) as (values ${values}) delete from event_outbox where entry in (select entry from v)`.execute(trx);
    }
    return pending.length;
  }),
);

function toEvent(row: Selectable<EventTable>): StoredEvent {
  return {
    id: Number(row.id ?? 0),
    type: row.type as EventType,
    at: Number(row.at),
    origin: {
      actor: row.actor as ActorKind,
      ...(row.actor_email === null ? {} : { email: row.actor_email }),
      ...(row.actor_name === null ? {} : { name: row.actor_name }),
      ...(row.request_id === null ? {} : { requestId: row.request_id }),
    },
    ...(row.member_id === null ? {} : { member: { id: Number(row.member_id), login: row.member_login ?? '' } }),
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

export class EventRepository extends Repository implements EventStore {
  sequence(): Promise<number> {
    return sequenceEvents(this.connection);
  }

  /** The member's last events, newest first, with the bulk updates it was part of (migration 020). */
  async ofMember(accountId: number, memberId: number, limit: number): Promise<StoredEvent[]> {
    const [own, bulk] = await Promise.all([
      this.reads
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('member_id', '=', memberId)
        .orderBy('entry', 'desc')
        .limit(limit)
        .execute(),
      this.reads
        .selectFrom('events')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('type', '=', 'member.bulk_updated')
        .where('at', 'in', (eb) =>
          eb
            .selectFrom('bulk_updated_members')
            .select('at')
            .where('member_id', '=', memberId)
            .where('account_id', '=', accountId)
            .orderBy('at', 'desc')
            .limit(limit),
        )
        .execute(),
    ]);
    return [...own, ...bulk]
      .sort((a, b) => Number(b.entry) - Number(a.entry))
      .slice(0, limit)
      .map(toEvent);
  }

  async byIds(accountId: number, ids: readonly number[]): Promise<StoredEvent[]> {
    if (ids.length === 0) return [];
    const rows = await this.reads
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', 'in', [...ids])
      .orderBy('id')
      .execute();
    return rows.map(toEvent);
  }

  async page(accountId: number, after: number | undefined, limit: number, types: readonly string[] | undefined, window: number): Promise<EventPage> {
    let from = after ?? 0;
    if (after === undefined) {
      // From the oldest event kept: ids below it were deleted by the retention sweep.
      const oldest = await this.reads
        .selectFrom('events')
        .select('id')
        .where('account_id', '=', accountId)
        .where('id', 'is not', null)
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
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
