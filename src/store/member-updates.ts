/**
 * /update/ in SQL: every change is one set-based statement over the members the selector
 * finds, whether that is one member or a million, all in one transaction.
 */
import {
  sql,
  type DeleteQueryBuilder,
  type DeleteResult,
  type ExpressionBuilder,
  type InsertQueryBuilder,
  type InsertResult,
  type Kysely,
  type QueryCreator,
  type RawBuilder,
  type Transaction,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import { MAX_PROFILE_FIELDS } from '../members/fields.js';
import { foldKey, type Member } from '../members/member.js';
import { columnsOf, toMember } from './member-rows.js';
import { builtInValues, changeEvents, type EventOrigin, type NewEvent } from '../events/event.js';
import { bulkUpdatedEvent } from '../events/member-events.js';
import { appendEvents, outboxRows } from './event-repository.js';
import { endSessionsOf } from './session-repository.js';
import { endResetLinksOf } from './reset-repository.js';
import { queueMail } from './mail-repository.js';
import type { MemberChanges, MemberSelector, MemberUpdate, UpdateLimits } from '../members/member-store.js';
import { writerProcedure, type SearchSql, type TransactionLocks, type WriterConnection } from './dialects/dialect.js';
import { filtered as matchingIds } from './member-listing.js';
import type { Database, MemberTable } from './schema.js';

/** The folded copy of a profile value, or null when folding leaves it as it is. */
export function valueKeyOf(value: string): string | null {
  const folded = foldKey(value);
  return folded === value ? null : folded;
}

/** The members a selector finds, as a condition on the members table (a filter's substrings through `search`). */
export function selectorCondition(accountId: number, selector: MemberSelector, search: SearchSql) {
  return (eb: ExpressionBuilder<Database, 'members'>) => {
    const inAccount = eb('account_id', '=', accountId);
    switch (selector.by) {
      case 'login':
        return eb.and([inAccount, search.memberIs(accountId, 'login_key', foldKey(selector.login), 'members')]);
      case 'email':
        return eb.and([inAccount, search.memberIs(accountId, 'email_key', foldKey(selector.email), 'members')]);
      case 'ptrans':
        return eb.and([inAccount, eb('reg_type', '=', 'P'), eb.or([eb('bill_id', '=', selector.value), eb('bill_subscr', '=', selector.value)])]);
      case 'id':
        return eb.and([inAccount, eb('id', '=', selector.id)]);
      case 'all':
        return eb.and([inAccount, eb('status', '!=', 'D')]);
      case 'filter':
        return eb.and([
          inAccount,
          ...(selector.restoring === true ? [] : [eb('status', '!=', 'D')]),
          eb('id', 'in', matchingIds(eb.selectFrom('members as m').select('m.id'), accountId, selector.filters, search, selector.now)),
        ]);
    }
  };
}

/**
 * Members written per statement by the expiry sweep and by an update: every statement's cost
 * is bounded (it holds the one SQLite writer), and a million members are a hundred of them.
 */
export const CHUNK_MEMBERS = 10_000;
/**
 * Bytes of profile values written per statement by an update: a value of 64 KiB set on every
 * member goes 64 members at a time (the search index is written too).
 */
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Lets the event loop run between two chunks of a long write (better-sqlite3 is synchronous). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What the account's profile values take, in bytes: its total and the deltas not folded into it yet (one row, `bytes`). */
export function profileBytesHeld(db: Kysely<Database> | Transaction<Database>, accountId: number) {
  const usage = db.selectFrom('account_usage').select('profile_bytes').where('account_id', '=', accountId);
  const deltas = db.selectFrom('account_usage_deltas').select('profile_bytes').where('account_id', '=', accountId);
  return db.selectFrom(usage.unionAll(deltas).as('u')).select((eb) => eb.fn.coalesce(eb.fn.sum<number>('u.profile_bytes'), eb.lit(0)).as('bytes'));
}

/** The Active members whose time expiration is due at `now` (of one account, or of all): the partial index members_exp_time_due's range. */
function dueMembers(trx: Transaction<Database>, now: number, accountId: number | undefined) {
  const due = trx.selectFrom('members').select('id').where('status', '=', sql.lit('A')).where('exp_time_at', '<=', now);
  return accountId === undefined ? due : due.where('account_id', '=', accountId);
}

/**
 * Writes down the time expirations due at `now`, inside the caller's transaction (an
 * update's, before it reads the members it changes): the member becomes S or D, a deletion
 * dated at the instant it expired, ten thousand members per statement. The events (see
 * expireChunk) go to `collect`, for the caller to append with its own.
 */
export async function expireDue(
  trx: Transaction<Database>,
  now: number,
  accountId: number,
  options: { events: boolean; collect?: NewEvent[] },
): Promise<number> {
  // Most writes find none due: a read of the due expirations' partial index says so for a
  // fraction of what the UPDATE costs when it matches nothing (on SQLite a fifth: its
  // subquery's list and RETURNING are set up whatever it finds).
  if (!(await dueMembers(trx, now, accountId).limit(1).executeTakeFirst())) return 0;
  let expired = 0;
  for (;;) {
    const count = await expireChunk(trx, now, accountId, options);
    expired += count;
    if (count < CHUNK_MEMBERS) return expired;
  }
}

/**
 * The sweep's expiry across every account: one chunk (see expireChunk) per transaction, its
 * events with it; answers how many members it expired (fewer than CHUNK_MEMBERS: the last).
 */
export const expireDueProcedure = writerProcedure(
  'members.expireDue',
  ({ db }, now: number, events: boolean) => db.transaction().execute((trx) => expireChunk(trx, now, undefined, { events })),
  () => true,
);

/**
 * Up to CHUNK_MEMBERS expirations due at `now` written down, for one account or for all when
 * `accountId` is undefined, with the sessions and reset links of the members they end.
 *
 * Events: one `member.bulk_updated` per account, statement and new status, with the cause
 * `time_expiry` and the count (an expiry of a million members stays a few statements),
 * appended here unless `collect` takes them. No events when `events` is false (EVENTS=off).
 */
async function expireChunk(
  trx: Transaction<Database>,
  now: number,
  accountId: number | undefined,
  options: { events: boolean; collect?: NewEvent[] },
): Promise<number> {
  const due = dueMembers(trx, now, accountId).limit(CHUNK_MEMBERS);
  const rows = await trx
    .updateTable('members')
    .set({
      status: sql`exp_time_mode`,
      deleted_at: sql`case when exp_time_mode = 'D' then exp_time_at else deleted_at end`,
      updated_at: now,
    })
    .where('id', 'in', due)
    .returning(['id', 'account_id', 'status'])
    .execute();
  // An expiry ends the member's sessions (a check would refuse them anyway; this keeps a
  // later renewal from bringing them back), and its reset links.
  if (rows.length > 0) {
    await trx
      .deleteFrom('sessions')
      .where(
        'member_id',
        'in',
        rows.map((row) => row.id),
      )
      .execute();
    await endResetLinksOf(
      trx,
      accountId,
      rows.map((row) => row.id),
    );
  }
  if (options.events && rows.length > 0) {
    const counts = new Map<string, { accountId: number; status: string; count: number }>();
    for (const row of rows) {
      const key = `${row.account_id}:${row.status}`;
      const entry = counts.get(key) ?? { accountId: Number(row.account_id), status: row.status, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
    // Accounts in one order, so that two sweeps could never lock two counters crosswise.
    const grouped = [...counts.values()].sort((a, b) => a.accountId - b.accountId || a.status.localeCompare(b.status));
    for (const { accountId: account, status, count } of grouped) {
      const event = bulkUpdatedEvent({ cause: 'time_expiry', status, count }, now, { actor: 'system' });
      if (options.collect) options.collect.push(event);
      else await appendEvents(trx, account, [event]);
    }
  }
  return rows.length;
}

/**
 * Applies the changes in one transaction, a chunk of members (by id) at a time: each
 * statement touches at most a thousand members (fewer when large profile values are set),
 * and the event loop runs between chunks, so that an update of a million members never holds
 * it for long. All matched members change, or none does.
 */
export async function updateMembers(
  connection: WriterConnection,
  accountId: number,
  selector: MemberSelector,
  changes: MemberChanges,
  now: number,
  limits: UpdateLimits,
  /** Who makes the change, for its events; undefined writes none (EVENTS=false). */
  origin: EventOrigin | undefined,
): Promise<MemberUpdate> {
  const setBytes = [...changes.setFields.values()].reduce((sum, value) => sum + Buffer.byteLength(value), 0);
  const chunkSize = Math.max(1, Math.min(CHUNK_MEMBERS, Math.floor(CHUNK_BYTES / Math.max(1, setBytes))));
  // A transaction this function ends itself: committed when the update went through, rolled
  // back when it is refused half-way (no error thrown to undo it).
  const trx = await connection.db.startTransaction().execute();
  try {
    const events: NewEvent[] = [];
    // PostgreSQL's writers run side by side: an update locks the members it reads (chunkBefore).
    const lock: UpdateLock | undefined = connection.transactionLocks && {
      locks: connection.transactionLocks,
      accountId,
      one: selector.by === 'id' || selector.by === 'login',
    };
    // PostgreSQL, one member's update: its writes, where nothing else depends on them, and its
    // events in one statement (withWrites), one round trip where there were two or more.
    const handedOver: MemberWrite[] | undefined = connection.writesInOneStatement && lock?.one ? [] : undefined;
    const outcome = await applyUpdate(trx, accountId, selector, changes, now, limits, setBytes, chunkSize, connection, origin && { origin, events, lock, handedOver });
    if (outcome.kind === 'updated') {
      if (isBulk(selector) && origin) events.push(bulkEvent(selector, changes, outcome.count, now, origin));
      // The events once the change is known (the outbox takes no lock: event-repository.ts).
      if (handedOver?.length && events.length > 0) await withWrites(trx, handedOver).insertInto('event_outbox').values(outboxRows(accountId, events)).execute();
      else {
        for (const write of handedOver ?? []) await write.execute();
        await appendEvents(trx, accountId, events);
      }
      await trx.commit().execute();
    } else await trx.rollback().execute();
    return outcome;
  } catch (error) {
    // A login another member holds leaves as the store's UniqueViolation.
    await trx
      .rollback()
      .execute()
      .catch(() => {});
    throw error;
  }
}

/**
 * updateMembers as a writer procedure (EngineConnection.transact): on SQLite an update is one
 * message to the writer's thread, however many statements it takes.
 */
export const updateMembersProcedure = writerProcedure(
  'members.update',
  updateMembers,
  // One member by id or login is short; every member, or all of an address or billing id, may be many.
  (_account, selector) => selector.by !== 'id' && selector.by !== 'login',
);

/**
 * An update of one member by id inside a transaction the caller holds (a payment's effect,
 * written with its notice): the same statements, rules and events as updateMembers; the
 * events go to `events`, for the caller to append with its own. `before`: the member and the
 * profile values the update touches as the caller read them after readyToUpdateOne (the
 * update then neither locks nor reads it again).
 */
export async function updateOneIn(
  trx: Transaction<Database>,
  connection: Pick<WriterConnection, 'search' | 'anyOf' | 'transactionLocks'>,
  accountId: number,
  id: number,
  changes: MemberChanges,
  now: number,
  origin: EventOrigin,
  events: NewEvent[],
  before?: { readonly member: Member; readonly profile: ReadonlyMap<string, string> },
  /**
   * Where the update puts its writes instead of running them, where nothing else depends on
   * them (changeChunk), for the caller to run in a statement of its own (PostgreSQL's WITH:
   * withWrites) before it commits; else left as it is.
   */
  handedOver?: MemberWrite[],
): Promise<MemberUpdate> {
  const setBytes = [...changes.setFields.values()].reduce((sum, value) => sum + Buffer.byteLength(value), 0);
  const lock: UpdateLock | undefined = connection.transactionLocks && { locks: connection.transactionLocks, accountId, one: true };
  const limits = { maxProfileBytes: Number.POSITIVE_INFINITY, storageQuota: Number.POSITIVE_INFINITY };
  const read = before && { members: [before.member], profiles: new Map([[id, before.profile]]) };
  return applyUpdate(trx, accountId, { by: 'id', id }, changes, now, limits, setBytes, CHUNK_MEMBERS, connection, {
    origin,
    events,
    lock,
    before: read,
    handedOver,
  });
}

async function applyUpdate(
  trx: Transaction<Database>,
  accountId: number,
  selector: MemberSelector,
  changes: MemberChanges,
  now: number,
  limits: UpdateLimits,
  setBytes: number,
  chunkSize: number,
  connection: Pick<WriterConnection, 'search' | 'anyOf'>,
  told:
    | {
        readonly origin: EventOrigin;
        readonly events: NewEvent[];
        readonly lock: UpdateLock | undefined;
        /** The one member it finds, already locked and read by the caller (updateOneIn's `before`). */
        readonly before?: MembersBefore;
        /** Where the chunk's writes go instead of running, where nothing else depends on them (changeChunk's `handedOver`). */
        readonly handedOver?: MemberWrite[];
      }
    | undefined,
): Promise<MemberUpdate> {
  // Expirations due now are written down before the members are read. An update that locks
  // what it reads (PostgreSQL) asks whether any is due in its lock's statement (chunkBefore),
  // and expires them only then: most updates find none, and pay no statement for it. One
  // given its member (`before`) had its caller do both (readyToUpdateOne).
  const expire = () => expireDue(trx, now, accountId, { events: told !== undefined, collect: told?.events });
  const dueAskedWithLock = told?.lock !== undefined && !isBulk(selector);
  if (!dueAskedWithLock && told?.before === undefined) await expire();
  const { search } = connection;
  const matches = selectorCondition(accountId, selector, search);
  if (changes.login !== undefined) {
    const found = await trx.selectFrom('members').select('id').where(matches).limit(2).execute();
    if (found.length > 1) return { kind: 'login-not-unique' };
  }
  let matched = 0;
  let idSum = 0;
  // What the quota leaves, read once (in the lock's statement where there is one); none to read
  // for an update that sets no profile value or has no quota.
  let storageLeft: number | undefined = setBytes > 0 && Number.isFinite(limits.storageQuota) ? undefined : Number.POSITIVE_INFINITY;
  for (let after = 0; ;) {
    // An update of every member is one event (bulkEvent); any other tells each member's
    // change, and reads its chunk as it is before the change (in the statement that finds it).
    const next = (eb: ExpressionBuilder<Database, 'members'>) => eb.and([matches(eb), eb('id', '>', after)]);
    const given = after === 0 ? told?.before : undefined;
    const before = isBulk(selector) || !told ? undefined : (given ?? (await chunkBefore(trx, search, next, chunkSize, changes, told.lock, now, expire, storageLeft === undefined)));
    if (before?.held !== undefined) storageLeft ??= limits.storageQuota - before.held;
    const ids = before
      ? before.members.map((member) => member.id)
      : selector.by === 'filter'
        ? // The filter's own query, on from the last chunk: the planner reads it along the
          // filter's indexes or the primary key, where an IN over the whole filter read it all.
          (
            await matchingIds(trx.selectFrom('members as m').select('m.id'), accountId, selector.filters, search, selector.now)
              .$if(selector.restoring !== true, (q) => q.where('m.status', '!=', 'D'))
              .where('m.id', '>', after)
              .orderBy('m.id')
              .limit(chunkSize)
              .execute()
          ).map((row) => row.id)
        : (await trx.selectFrom('members').select('id').where(next).orderBy('id').limit(chunkSize).execute()).map((row) => row.id);
    if (ids.length === 0) break;
    const first = ids[0]!;
    after = ids[ids.length - 1]!;
    matched += ids.length;
    for (const id of ids) idSum += id;
    // What one request may write in profile values, and what the account may hold.
    if (setBytes * matched > limits.maxProfileBytes) return { kind: 'too-large', bytes: setBytes * matched };
    storageLeft ??= limits.storageQuota - Number((await profileBytesHeld(trx, accountId).executeTakeFirstOrThrow()).bytes);
    if (storageLeft - setBytes * matched < 0) return { kind: 'over-quota' };
    // A filter's members are the chunk's ids, found above in this transaction: its conditions
    // (a search, a date range) are not evaluated again by each statement of the change.
    const inChunk =
      selector.by === 'filter'
        ? // What another writer may have changed since they were found (PostgreSQL's writers
          // run side by side) is checked again: the status, never a Deleted member unless restoring.
          (eb: ExpressionBuilder<Database, 'members'>) =>
            eb.and([
              eb('account_id', '=', accountId),
              connection.anyOf ? eb('id', '=', connection.anyOf(ids)) : eb('id', 'in', ids),
              ...(selector.restoring === true ? [] : [eb('status', '!=', 'D')]),
              ...(selector.filters.status === undefined ? [] : [eb('status', '=', selector.filters.status)]),
            ])
        : (eb: ExpressionBuilder<Database, 'members'>) => eb.and([matches(eb), eb('id', '>=', first), eb('id', '<=', after)]);
    // A bulk update tells one event: each member it changes is written down beside it, for
    // the member's history (before the change, while the chunk's condition still holds).
    if (told && isBulk(selector))
      await trx
        .insertInto('bulk_updated_members')
        .columns(['member_id', 'at', 'account_id'])
        .expression((eb) =>
          eb
            .selectFrom('members')
            .select((s) => ['id', s.val(now).as('at'), 'account_id'])
            .where(inChunk),
        )
        .onConflict((oc) => oc.doNothing())
        .execute();
    const handedOver = !changes.mail && changes.status === undefined ? told?.handedOver : undefined;
    if (!(await changeChunk(trx, accountId, inChunk, changes, now, before !== undefined && setsOnlyHeldFields(before, changes), handedOver)))
      return { kind: 'too-many-fields' };
    if (changes.mail) await queueMail(trx, accountId, ids, changes.mail, now)!.execute();
    if (before && told) told.events.push(...(await memberEvents(trx, before, changes, now, told.origin)));
    if (ids.length < chunkSize) break;
    await nextTurn();
  }
  // A preview's selection: the members found now must be those it counted, or nothing changes.
  const expected = selector.by === 'filter' ? selector.expect : undefined;
  if (expected && (expected.count !== matched || expected.idSum !== idSum)) return { kind: 'selection-changed' };
  return matched === 0 ? { kind: 'not-found' } : { kind: 'updated', count: matched };
}

interface MembersBefore {
  readonly members: ReadonlyArray<Member>;
  /** The values, before, of the profile fields the update sets or removes, by member. */
  readonly profiles: ReadonlyMap<number, ReadonlyMap<string, string>>;
  /** The bytes of profile values the account holds, when asked and read with the lock. */
  readonly held?: number;
}

/** How an update locks the members it reads (PostgreSQL): `one` when it finds one member at most. */
interface UpdateLock {
  readonly locks: TransactionLocks;
  readonly accountId: number;
  readonly one: boolean;
  /** A lock of the caller's own, taken first in the statement of one member's locks (readyToUpdateOne). */
  readonly first?: RawBuilder<unknown>;
}

/** PostgreSQL's advisory lock keys (two 32-bit keys: a space apart from the single 64-bit keys used elsewhere). */
const ACCOUNT_UPDATES = 7_245_010;
export const MEMBER_UPDATES = 7_245_011;

/**
 * What an update of one member does before it reads the member, for a transaction that reads
 * the member itself first and updates it after (a payment's notice, whose effect depends on
 * what it holds): on PostgreSQL the update's locks (its account's, shared; the member's), in
 * the statement that asks whether an expiration is due; then the expirations due written down
 * (their events to `events`). What the caller reads next is what updateOneIn's `before` is
 * given: the update reads the member no more. As in an update's own lock statement, whether an
 * expiration is due is read in that statement's snapshot, taken before it waited for its locks.
 *
 * `member`: its id, or a condition that finds it (the first by id), found in the same
 * statement as it is locked. `first`: a lock of the caller's own that the statement takes
 * before the update's, only once a member is found (PostgreSQL). Answers the member's id;
 * undefined when none is found, and then nothing is locked and no expiration written down.
 * A condition is read in the statement's snapshot, from before it waited for its locks: a
 * caller whose condition another writer may change meanwhile checks it again on what it reads
 * next.
 */
export async function readyToUpdateOne(
  trx: Transaction<Database>,
  connection: Pick<WriterConnection, 'transactionLocks' | 'search'>,
  accountId: number,
  member: number | MembersCondition,
  now: number,
  events: NewEvent[],
  first?: RawBuilder<unknown>,
): Promise<number | undefined> {
  const condition = typeof member === 'number' ? selectorCondition(accountId, { by: 'id', id: member }, connection.search) : member;
  let found: number | undefined;
  if (connection.transactionLocks) {
    const lock = { locks: connection.transactionLocks, accountId, one: true, ...(first ? { first } : {}) };
    const locked = await lockChunk(trx, lock, condition, 1, false);
    found = locked.id;
    if (found === undefined || locked.due === undefined || locked.due > now) return found;
  } else {
    const row =
      typeof member === 'number' ? { id: member } : await trx.selectFrom('members').select('id').where(condition).orderBy('id').limit(1).executeTakeFirst();
    found = row?.id;
    if (found === undefined) return undefined;
  }
  await expireDue(trx, now, accountId, { events: true, collect: events });
  return found;
}

/**
 * The lock statement of an update's chunk (see chunkBefore), which also answers the first
 * member's id (of one member's update), the account's first time expiration to fall due
 * (undefined: none) and, when asked, the bytes of profile values it holds.
 */
async function lockChunk(
  trx: Transaction<Database>,
  lock: UpdateLock,
  next: MembersCondition,
  chunkSize: number,
  askHeld: boolean,
): Promise<{ id: number | undefined; due: number | undefined; held: number | undefined }> {
  const account = sql`cast(${lock.accountId} % 2147483647 as integer)`;
  // The account's first time expiration to fall due (the first entry of its range of the
  // partial index members_exp_time_due), compared with now by the caller: the statement holds
  // no value a plan would depend on (postgres-prepared.ts).
  const due = sql<number | null>`(select min(d.exp_time_at) from members as d where d.account_id = ${lock.accountId} and d.status = 'A')`;
  const bytes = askHeld ? sql<number | null>`(${profileBytesHeld(trx, lock.accountId)})` : sql<number | null>`null`;
  // The locks in an outer query, of the rows the inner one found, limit and all: a lock
  // function beside a LIMIT in one query could be called for more rows than it answers.
  const locking = lock.one
    ? trx
        .selectFrom((eb) => eb.selectFrom('members').select('id').where(next).orderBy('id').limit(chunkSize).as('found'))
        .select([
          'found.id',
          ...(lock.first ? [lock.first.as('first')] : []),
          lock.locks.lock('shared', ACCOUNT_UPDATES, account).as('account'),
          lock.locks.lock('exclusive', MEMBER_UPDATES, sql`cast(found.id % 2147483647 as integer)`).as('member'),
          due.as('due'),
          bytes.as('held'),
        ])
        .compile()
    : sql<{ id: undefined; due: number | null; held: number | null }>`select ${lock.locks.lock('exclusive', ACCOUNT_UPDATES, account)}, ${due} as due, ${bytes} as held`.compile(trx);
  const { rows } = await trx.executeQuery(locking);
  const first = rows[0];
  return {
    id: first?.id === undefined ? undefined : Number(first.id),
    due: first && first.due !== null ? Number(first.due) : undefined,
    held: first && first.held !== null ? Number(first.held) : undefined,
  };
}

/**
 * The next chunk of the members an update finds, as they are before the change, each with the
 * profile fields the update touches as one JSON object: one statement.
 *
 * With `lock` (PostgreSQL), the chunk's members are locked first, by a statement of its own:
 * two updates of one member then run one
 * after the other, and the second reads (a new statement, a new snapshot under READ
 * COMMITTED) what the first left, so that the old values of their events chain (without it
 * both read the member as it was before either, and the second's event told an old value
 * that the first had already replaced). Transaction-scoped advisory locks, which write
 * nothing, not row locks: a row lock writes the member's heap page (and, the first time after
 * a checkpoint, all of it to the WAL), where an update of profile fields reads the member from
 * an index alone (migration 013); and FOR UPDATE deadlocked with an update of every member,
 * whose profile writes' foreign-key checks lock the same rows (KEY SHARE). An update of one
 * member (by id or login) takes its account's lock shared and the member's; one of several
 * (by e-mail or billing id) takes the account's alone, exclusive (a member's lock each would
 * fill PostgreSQL's lock table). An update of every member tells one bulk event and locks no
 * member: an update of one member that runs beside it may tell the old value from before it.
 * SQLite's one writer runs every update one after the other anyway.
 */
async function chunkBefore(
  trx: Transaction<Database>,
  search: SearchSql,
  next: MembersCondition,
  chunkSize: number,
  changes: MemberChanges,
  lock: UpdateLock | undefined,
  now: number,
  expire: () => Promise<unknown>,
  /** Whether to read what the account holds of its storage quota (with the lock: no statement of its own). */
  askHeld: boolean,
): Promise<MembersBefore> {
  let held: number | undefined;
  if (lock) {
    const locked = await lockChunk(trx, lock, next, chunkSize, askHeld);
    if (locked.due !== undefined && locked.due <= now) await expire();
    held = locked.held;
  }
  const names = [...new Set([...changes.deleteFields, ...changes.setFields.keys()])];
  // Without a status change the events compare only the values given (memberEvents): the
  // member's id, login and the columns of those values are all it reads; on PostgreSQL an
  // update of profile fields alone is then an index-only scan (the (account, id) index carries
  // the login: migration 013), not a visit to the member's row.
  const { status, deleteFields, setFields, revokeSessions, mail, ...values } = changes;
  const given =
    status === undefined
      ? Object.keys(columnsOf({ ...values, ...(values.email !== undefined ? { emailVerifiedAt: null } : {}) } as Partial<Member>))
      : undefined;
  const members = trx.selectFrom('members');
  // (Typed as the whole row: toMember leaves the columns not read null, and they are not compared.)
  const columns =
    given === undefined
      ? members.selectAll()
      : (members.select(['id', 'login', ...(given as Array<keyof MemberTable & string>)]) as unknown as ReturnType<typeof members.selectAll>);
  const rows = await columns
    .select((names.length > 0 ? search.profileObject(names, 'members.id') : sql`null`).as('touched'))
    .where(next)
    .orderBy('id')
    .limit(chunkSize)
    .execute();
  const profiles = new Map<number, Map<string, string>>();
  for (const row of rows) {
    const touched = profileObjectOf(row.touched);
    if (touched) profiles.set(row.id, touched);
  }
  return { members: rows.map(toMember), profiles, ...(held === undefined ? {} : { held }) };
}

/** A profile object read with SearchSql.profileObject (JSON text on SQLite, an object on PostgreSQL) as a map; undefined for none. */
export function profileObjectOf(value: unknown): Map<string, string> | undefined {
  const object = typeof value === 'string' ? (JSON.parse(value) as Record<string, string>) : (value as Record<string, string> | null);
  return object ? new Map(Object.entries(object)) : undefined;
}

/**
 * Whether every member of the chunk held, before, every profile field the update sets: then
 * the update adds no field, and no member can go over the limit of fields (the count is not
 * read again; an update of a field a member has is the usual one).
 */
function setsOnlyHeldFields(before: MembersBefore, changes: MemberChanges): boolean {
  const names = [...changes.setFields.keys()];
  return before.members.every((member) => {
    const held = before.profiles.get(member.id);
    return names.every((name) => held?.has(name) === true);
  });
}

/** The events of a chunk's members: each member as it was against how it is now. */
async function memberEvents(trx: Transaction<Database>, before: MembersBefore, changes: MemberChanges, now: number, origin: EventOrigin): Promise<NewEvent[]> {
  const ids = before.members.map((member) => member.id);
  // Without a status change, the member after is the member before with the values set (no
  // column is computed in SQL then); a status change clears what it clears: read it back.
  const { status, deleteFields, setFields, revokeSessions, mail, ...values } = changes;
  const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
  // (An update of profile fields alone leaves each member as it was: no copy.)
  const unchanged = Object.keys(given).length === 0;
  // A new address is not verified (memberColumnChanges).
  const newEmail = values.email === undefined ? undefined : foldKey(values.email);
  const afterOf = (member: Member): Member =>
    newEmail === undefined
      ? ({ ...member, ...given } as Member)
      : ({ ...member, ...given, emailVerifiedAt: foldKey(member.email) === newEmail ? member.emailVerifiedAt : null } as Member);
  const after =
    status === undefined
      ? new Map(before.members.map((member) => [member.id, unchanged ? member : afterOf(member)]))
      : new Map((await trx.selectFrom('members').selectAll().where('id', 'in', ids).execute()).map((row) => [row.id, toMember(row)]));
  // Without a status change only the values given can differ: only they are compared.
  const compared = status === undefined ? new Set([...Object.keys(given), ...(newEmail === undefined ? [] : ['emailVerifiedAt'])]) : undefined;
  const profileAfter = new Map<string, string | null>([...changes.deleteFields.map((name) => [name, null] as const), ...changes.setFields]);
  return before.members.flatMap((member) =>
    changeEvents(member, after.get(member.id)!, { before: before.profiles.get(member.id) ?? new Map(), after: profileAfter }, now, origin, compared),
  );
}

/**
 * `member.bulk_updated`: an update of every member (`find_member_id=*`) is one event, with the
 * selector, the change and the count, so that it keeps its speed over a million members. The
 * new values are the built-in fields set (by their file names, as files write them; a
 * password is named, never shown) and the profile fields set and removed.
 */
/**
 * An update of every member, or of the console's filters, tells one event (`member.bulk_updated`,
 * with what it set and how many it changed), not one per member.
 */
function isBulk(selector: MemberSelector): selector is Extract<MemberSelector, { by: 'all' | 'filter' }> {
  return selector.by === 'all' || selector.by === 'filter';
}

function bulkEvent(
  selector: Extract<MemberSelector, { by: 'all' | 'filter' }>,
  changes: MemberChanges,
  count: number,
  now: number,
  origin: EventOrigin,
): NewEvent {
  const { deleteFields, setFields, passwordHash, revokeSessions, mail, ...values } = changes;
  const set: Record<string, string | null> = builtInValues(values as Partial<Member>);
  if (passwordHash !== undefined) set.password = 'changed';
  const found = selector.by === 'all' ? { selector: '*' } : { selector: 'filter', filter: selector.filters };
  return bulkUpdatedEvent({ ...found, count, set, profile: { set: Object.fromEntries(setFields), deleted: [...deleteFields] } }, now, origin);
}

/**
 * Every change, to the members of one chunk; false when a member would have too many profile
 * fields (not counted when `addsNoField`: every member already holds every field set).
 *
 * `handedOver` takes the chunk's writes instead of running them when nothing else depends on
 * them: profile values set (each a field every member holds already) or removed, and the
 * members' columns, with no status, address or session change. The caller runs them before
 * it commits, in one statement with its own where it has one (PostgreSQL's WITH, whose parts
 * all see the tables as they were before it, as the writes here expect: each finds its members
 * by the same condition), else one by one. What follows in the update reads none of them: its
 * events are built from the member read before (memberEvents reads the member back only after
 * a status change, which is never handed over).
 */
async function changeChunk(
  trx: Transaction<Database>,
  accountId: number,
  matches: MembersCondition,
  changes: MemberChanges,
  now: number,
  addsNoField: boolean,
  handedOver?: MemberWrite[],
): Promise<boolean> {
  // Profile changes first: the selector may look at columns the member update changes.
  const profile = profileWrites(trx, matches, changes);
  const set = memberColumnChanges(changes, now);
  const rowWrite =
    Object.keys(set).length > 0
      ? trx
          .updateTable('members')
          .set({ ...set, updated_at: now })
          .where(matches)
      : undefined;
  const countsFields = changes.setFields.size > 0 && !addsNoField;
  const independent = !countsFields && changes.status === undefined && !endsSessions(changes) && changes.email === undefined;
  // (Two parts of one WITH may not write one row: no field both removed and set.)
  if (handedOver && independent && !changes.deleteFields.some((name) => changes.setFields.has(name))) {
    handedOver.push(...profile, ...(rowWrite ? [rowWrite] : []));
    return true;
  }
  for (const write of profile) await write.execute();
  if (countsFields && (await holdsTooManyFields(trx, matches))) return false;
  if (changes.status === 'A') {
    // Re-activating a member also lifts a lockout.
    await trx
      .deleteFrom('login_failures')
      .where('account_id', '=', accountId)
      .where('member_id', 'in', trx.selectFrom('members').select('id').where(matches))
      .execute();
  }
  const matched = trx.selectFrom('members').select('id').where(matches);
  if (endsSessions(changes)) {
    await endSessionsOf(trx, accountId, matched);
    // Reset links end with the sessions…
    await endResetLinksOf(trx, accountId, matched);
  } else if (changes.email !== undefined) {
    // …and when the address they were mailed to changes.
    await endResetLinksOf(trx, accountId, matched.where('email_key', '!=', foldKey(changes.email)));
  }
  await rowWrite?.execute();
  return true;
}

/** A write of an update's chunk (changeChunk), as a statement not yet run: its profile values' or its members' rows. */
export type MemberWrite =
  | InsertQueryBuilder<Database, 'member_fields', InsertResult>
  | DeleteQueryBuilder<Database, 'member_fields', DeleteResult>
  | UpdateQueryBuilder<Database, 'members', 'members', UpdateResult>;

/**
 * The writes handed over by an update (changeChunk's `handedOver`), as the parts of one WITH
 * (PostgreSQL), for the caller to end with a statement of its own.
 */
export function withWrites(trx: Transaction<Database>, writes: readonly MemberWrite[]): QueryCreator<Database> {
  let statement: QueryCreator<Database> = trx;
  writes.forEach((write, n) => {
    statement = statement.with(`write_${n}`, () => write) as unknown as QueryCreator<Database>;
  });
  return statement;
}

/** A change that ends the members' sessions: asked for, a new password, or a suspension or deletion. */
function endsSessions(changes: MemberChanges): boolean {
  return changes.revokeSessions === true || changes.passwordHash !== undefined || changes.status === 'S' || changes.status === 'D';
}

export type MembersCondition = (eb: ExpressionBuilder<Database, 'members'>) => ReturnType<ExpressionBuilder<Database, 'members'>['and']>;

/** The writes that remove, then set, the members' profile fields (none run yet). */
function profileWrites(trx: Transaction<Database>, matches: MembersCondition, changes: MemberChanges): MemberWrite[] {
  const writes: MemberWrite[] = [];
  // The members come from the account's own rows (`matches`): no account condition on the
  // fields, which would tempt a planner into the (account, name) index and a read of every
  // member of the account per chunk, where the primary key (member, name) finds each row.
  if (changes.deleteFields.length > 0)
    writes.push(
      trx
        .deleteFrom('member_fields')
        .where('member_id', 'in', trx.selectFrom('members').select('id').where(matches))
        .where('name', 'in', [...changes.deleteFields]),
    );
  for (const [name, value] of changes.setFields) {
    const valueKey = valueKeyOf(value);
    writes.push(
      trx
        .insertInto('member_fields')
        .columns(['member_id', 'account_id', 'name', 'value', 'value_key'])
        .expression(
          trx
            .selectFrom('members')
            .select([
              'id',
              'account_id',
              sql<string>`cast(${name} as text)`.as('name'),
              sql<string>`cast(${value} as text)`.as('value'),
              sql<string | null>`cast(${valueKey} as text)`.as('value_key'),
            ])
            .where(matches),
        )
        .onConflict((oc) => oc.columns(['member_id', 'name']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), value_key: eb.ref('excluded.value_key') }))),
    );
  }
  return writes;
}

/** Whether a member now holds more profile fields than allowed. */
async function holdsTooManyFields(trx: Transaction<Database>, matches: MembersCondition): Promise<boolean> {
  const over = await trx
    .selectFrom('member_fields')
    .select('member_id')
    .where('member_id', 'in', trx.selectFrom('members').select('id').where(matches))
    .groupBy('member_id')
    .having((eb) => eb.fn.countAll(), '>', MAX_PROFILE_FIELDS)
    .limit(1)
    .executeTakeFirst();
  return over !== undefined;
}

/**
 * The member columns an update sets: the values it gives, mapped by the table of member
 * fields, and what a status change implies. Values on the right-hand side read the row before
 * the update.
 */
function memberColumnChanges(changes: MemberChanges, now: number): Record<string, unknown> {
  const { status, deleteFields, setFields, revokeSessions, mail, ...values } = changes;
  const set = columnsOf(values as Partial<Member>);
  // A verification is of an address: a new one is not verified (the same one, in another case, stays).
  if (values.email !== undefined) set.email_verified_at = sql`case when email_key = ${foldKey(values.email)} then email_verified_at else null end`;
  switch (status) {
    case 'D':
      // A member already deleted keeps its first deletion time.
      Object.assign(set, { status: 'D', deleted_at: sql`case when status = 'D' then deleted_at else cast(${now} as bigint) end` });
      break;
    case 'S':
      Object.assign(set, { status: 'S', deleted_at: null });
      break;
    case 'A':
      Object.assign(set, { status: 'A', deleted_at: null });
      // Re-activation clears an expiration that already fell due and an allowance used up;
      // otherwise the member would be expired again at once.
      if (changes.timeExpiry === undefined) {
        set.exp_time_mode = sql`case when exp_time_at <= ${now} then null else exp_time_mode end`;
        set.exp_time_at = sql`case when exp_time_at <= ${now} then null else exp_time_at end`;
      }
      if (changes.loginExpiry === undefined) {
        set.exp_logins_mode = sql`case when exp_logins_left <= 0 then null else exp_logins_mode end`;
        set.exp_logins_left = sql`case when exp_logins_left <= 0 then null else exp_logins_left end`;
      }
      break;
  }
  return set;
}
