/**
 * Import and export in SQL: the logins a batch already holds, a batch written in one
 * transaction (set-based inserts and updates), and the whole account
 * read in id order from one snapshot.
 */
import { sql, type Kysely, type Transaction, type Updateable } from 'kysely';
import { foldKey } from '../members/member.js';
import type { ImportWrite, MemberExport, PortableMember } from '../members/portable-member.js';
import type { ExportSelection, MemberTransferStore } from '../import-export/member-transfer-store.js';
import { writerProcedure, type SearchSql } from './dialects/dialect.js';
import { inSnapshot, Repository, type StoreConnection } from './writes.js';
import { changedColumns, memberRow, NUMERIC_COLUMNS, toMember } from './member-rows.js';
import { valueKeyOf } from './member-updates.js';
import { endSessionsOf } from './session-repository.js';
import { endResetLinksOf } from './reset-repository.js';
import type { Database, MemberTable } from './schema.js';
import type { Member } from '../members/member.js';
import { changeEvents, createdEvent, type NewEvent } from '../events/event.js';
import { appendEvents } from './event-repository.js';
import { filtered, statusAt } from './member-listing.js';

/** Members per INSERT or look-up: well under both engines' limits on bound parameters. */
const MEMBERS_PER_STATEMENT = 500;
const FIELDS_PER_INSERT = 5000;
/** Members read per query by the export. */
const EXPORT_CHUNK = 1000;

/** The ids of the members holding these logins (compared case-insensitively), by folded login. */
export async function findLoginIds(db: Kysely<Database>, search: SearchSql, accountId: number, logins: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const keys = [...new Set(logins.map(foldKey))];
  for (let start = 0; start < keys.length; start += MEMBERS_PER_STATEMENT) {
    const rows = await db
      .selectFrom('members')
      .select(['id', 'login_key'])
      .where(search.memberIs(accountId, 'login_key', keys.slice(start, start + MEMBERS_PER_STATEMENT), 'members'))
      .execute();
    for (const row of rows) found.set(row.login_key, row.id);
  }
  return found;
}

/**
 * Which of these ids a member holds, in any account: member ids are one sequence for the
 * whole store (docs/security.md, "Member ids are global"), so an id given from elsewhere (an upstream's)
 * may be another tenant's member's here.
 */
export async function findTakenIds(db: Kysely<Database>, ids: readonly number[]): Promise<Set<number>> {
  const taken = new Set<number>();
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += MEMBERS_PER_STATEMENT) {
    const rows = await db
      .selectFrom('members')
      .select('id')
      .where('id', 'in', unique.slice(start, start + MEMBERS_PER_STATEMENT))
      .execute();
    for (const row of rows) taken.add(Number(row.id));
  }
  return taken;
}

async function setFields(
  trx: Transaction<Database>,
  accountId: number,
  fields: Array<{ memberId: number; profile: ReadonlyMap<string, string> }>,
): Promise<void> {
  const rows = fields.flatMap(({ memberId, profile }) =>
    [...profile].map(([name, value]) => ({ member_id: memberId, account_id: accountId, name, value, value_key: valueKeyOf(value) })),
  );
  for (let start = 0; start < rows.length; start += FIELDS_PER_INSERT) {
    await trx
      .insertInto('member_fields')
      .values(rows.slice(start, start + FIELDS_PER_INSERT))
      .onConflict((oc) => oc.columns(['member_id', 'name']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), value_key: eb.ref('excluded.value_key') })))
      .execute();
  }
}

/**
 * Updates many members, each with its own values, in a statement per group of members that
 * change the same columns: `with v(id, …) as (values …) update members set … from v`, which
 * both engines take. A statement per member would cost PostgreSQL a round trip each.
 */
async function updateMembersSetBased(
  trx: Transaction<Database>,
  accountId: number,
  updates: ReadonlyArray<{ id: number; columns: Updateable<MemberTable> }>,
): Promise<void> {
  const groups = new Map<string, Array<{ id: number; columns: Updateable<MemberTable> }>>();
  for (const update of updates) {
    const key = Object.keys(update.columns).sort().join(',');
    const group = groups.get(key);
    if (group) group.push(update);
    else groups.set(key, [update]);
  }
  for (const [key, group] of groups) {
    const names = key.split(',') as Array<keyof MemberTable & string>;
    const typed = (name: string, value: unknown) => sql`cast(${value ?? null} as ${sql.raw(NUMERIC_COLUMNS.has(name) ? 'bigint' : 'text')})`;
    // Well under both engines' limits on bound parameters.
    const perStatement = Math.max(1, Math.floor(30_000 / (names.length + 1)));
    for (let start = 0; start < group.length; start += perStatement) {
      const rows = group
        .slice(start, start + perStatement)
        .map(({ id, columns }) => sql`(${sql.join([typed('id', id), ...names.map((name) => typed(name, columns[name]))])})`);
      await sql`with v (${sql.join([sql.ref('id'), ...names.map((name) => sql.ref(name))])}) as (values ${sql.join(rows)})
        update members set ${sql.join(names.map((name) => sql`${sql.ref(name)} = v.${sql.ref(name)}`))}
        from v where members.id = v.id and members.account_id = ${accountId}`.execute(trx);
    }
  }
}

/** The members of `updates` whose address changes (compared as folded), by id. */
async function withNewAddress(trx: Transaction<Database>, updates: ReadonlyArray<{ id: number; columns: Updateable<MemberTable> }>): Promise<Set<number>> {
  const given = new Map(updates.filter(({ columns }) => columns.email_key !== undefined).map(({ id, columns }) => [id, columns.email_key]));
  const ids = [...given.keys()];
  const changed = new Set<number>();
  for (let start = 0; start < ids.length; start += MEMBERS_PER_STATEMENT) {
    const rows = await trx
      .selectFrom('members')
      .select(['id', 'email_key'])
      .where('id', 'in', ids.slice(start, start + MEMBERS_PER_STATEMENT))
      .execute();
    for (const row of rows) if (row.email_key !== given.get(row.id)) changed.add(row.id);
  }
  return changed;
}

/** The members of `ids` whose status is Deleted. */
async function deletedAmong(trx: Transaction<Database>, ids: readonly number[]): Promise<Set<number>> {
  const deleted = new Set<number>();
  for (let start = 0; start < ids.length; start += MEMBERS_PER_STATEMENT) {
    const rows = await trx
      .selectFrom('members')
      .select('id')
      .where('id', 'in', ids.slice(start, start + MEMBERS_PER_STATEMENT))
      .where('status', '=', 'D')
      .execute();
    for (const row of rows) deleted.add(row.id);
  }
  return deleted;
}

/** Members by id, with the profile fields of theirs an import sets (a batch's worth). */
async function membersNow(trx: Transaction<Database>, updates: ImportWrite['updates']): Promise<Map<number, { member: Member; profile: Map<string, string> }>> {
  const ids = updates.map(({ id }) => id);
  const names = [...new Set(updates.flatMap(({ member }) => [...member.profile.keys()]))];
  const found = new Map<number, { member: Member; profile: Map<string, string> }>();
  for (let start = 0; start < ids.length; start += MEMBERS_PER_STATEMENT) {
    const rows = await trx
      .selectFrom('members')
      .selectAll()
      .where('id', 'in', ids.slice(start, start + MEMBERS_PER_STATEMENT))
      .execute();
    for (const row of rows) found.set(row.id, { member: toMember(row), profile: new Map() });
  }
  if (names.length > 0) {
    for (let start = 0; start < ids.length; start += MEMBERS_PER_STATEMENT) {
      const fields = await trx
        .selectFrom('member_fields')
        .select(['member_id', 'name', 'value'])
        .where('member_id', 'in', ids.slice(start, start + MEMBERS_PER_STATEMENT))
        .where('name', 'in', names)
        .execute();
      for (const field of fields) found.get(field.member_id)?.profile.set(field.name, field.value);
    }
  }
  return found;
}

/**
 * Writes one batch of an import in one transaction, with its events (`withEvents`): all of it
 * lands, or none. Long: a batch is up to a thousand members.
 */
export const importBatchProcedure = writerProcedure(
  'members.import',
  ({ db }, accountId: number, write: ImportWrite, withEvents: boolean): Promise<void> =>
    db.transaction().execute(async (trx) => {
      const profiles: Array<{ memberId: number; profile: ReadonlyMap<string, string> }> = [];
      const events: NewEvent[] = [];
      for (let start = 0; start < write.inserts.length; start += MEMBERS_PER_STATEMENT) {
        const slice = write.inserts.slice(start, start + MEMBERS_PER_STATEMENT);
        const inserted = await trx
          .insertInto('members')
          .values(slice.map((member) => memberRow(accountId, member, write.now)))
          .returningAll()
          .execute();
        const rowOf = new Map(inserted.map((row) => [row.login_key, row]));
        for (const member of slice) {
          const row = rowOf.get(foldKey(member.login))!;
          profiles.push({ memberId: row.id, profile: member.profile });
          if (withEvents) events.push(createdEvent(toMember(row), member.profile, write.now, write.origin));
        }
      }
      const before = withEvents && write.updates.length > 0 ? await membersNow(trx, write.updates) : undefined;
      const updates = write.updates.map(({ id, member }) => ({ id, columns: changedColumns(member, write.now) }));
      if (write.keepDeletionTimes) {
        const deleted = await deletedAmong(
          trx,
          updates.filter(({ columns }) => columns.status === 'D').map(({ id }) => id),
        );
        for (const update of updates) if (deleted.has(update.id)) delete update.columns.deleted_at;
      }
      // A new address is not verified (unless the file says it is), as through /update/.
      const newAddress = await withNewAddress(trx, updates);
      for (const update of updates) if (newAddress.has(update.id) && update.columns.email_verified_at === undefined) update.columns.email_verified_at = null;
      await updateMembersSetBased(trx, accountId, updates);
      // A new password, a suspension or a deletion ends the member's sessions, as through /update/;
      // those and a new address end its reset links.
      const ending = updates
        .filter(({ columns }) => columns.password_hash !== undefined || columns.status === 'S' || columns.status === 'D')
        .map(({ id }) => id);
      await endSessionsOf(trx, accountId, ending);
      await endResetLinksOf(trx, accountId, [...new Set([...ending, ...newAddress])]);
      for (const { id, member } of write.updates) profiles.push({ memberId: id, profile: member.profile });
      await setFields(trx, accountId, profiles);
      if (before) {
        const after = await membersNow(trx, write.updates);
        for (const { id, member } of write.updates) {
          const was = before.get(id)!;
          events.push(...changeEvents(was.member, after.get(id)!.member, { before: was.profile, after: member.profile }, write.now, write.origin));
        }
      }
      // The events once the change is known (the outbox takes no lock: event-repository.ts).
      await appendEvents(trx, accountId, events);
    }),
  () => true,
);

/** The account's members, whole, in id order, read page by page inside one snapshot. */
export async function exportMembers(
  connection: StoreConnection,
  accountId: number,
  consume: (exported: MemberExport) => Promise<void>,
  selection?: ExportSelection,
): Promise<void> {
  if (selection) return exportSelected(connection, accountId, consume, selection);
  const { build: db } = connection;
  await inSnapshot(
    connection,
    async (reader) => {
      const names = await reader.all(db.selectFrom('member_fields').select('name').distinct().where('account_id', '=', accountId).orderBy('name').compile());
      async function* members(): AsyncIterable<PortableMember[]> {
        for (let after = 0; ;) {
          const rows = await reader.all(
            db.selectFrom('members').selectAll().where('account_id', '=', accountId).where('id', '>', after).orderBy('id').limit(EXPORT_CHUNK).compile(),
          );
          if (rows.length === 0) return;
          const first = rows[0]!.id;
          after = rows[rows.length - 1]!.id;
          const fields = await reader.all(
            db
              .selectFrom('member_fields')
              .select(['member_id', 'name', 'value'])
              .where('account_id', '=', accountId)
              .where('member_id', '>=', first)
              .where('member_id', '<=', after)
              .compile(),
          );
          const profiles = new Map<number, Map<string, string>>();
          for (const field of fields) {
            let profile = profiles.get(field.member_id);
            if (!profile) profiles.set(field.member_id, (profile = new Map()));
            profile.set(field.name, field.value);
          }
          yield rows.map((row) => ({ ...toMember(row), profile: profiles.get(row.id) ?? new Map() }));
        }
      }
      await consume({ fieldNames: names.map((row) => row.name), members: members() });
      // A standby may read it when it has what this account must see (postgres-replicas.ts).
    },
    { account: accountId },
  );
}

/**
 * The members a filter finds, in id order, from one cursor in one snapshot (as /list/ reads
 * them: the filter is one query, not one per page), each with its status at `now` and the
 * selection's profile fields gathered as one JSON object per member.
 */
async function exportSelected(
  connection: StoreConnection,
  accountId: number,
  consume: (exported: MemberExport) => Promise<void>,
  selection: ExportSelection,
): Promise<void> {
  const { build: db, search } = connection;
  const names = selection.profileFields;
  const query = filtered(
    db
      .selectFrom('members as m')
      .selectAll('m')
      .select(statusAt(selection.now).as('status_now'))
      .$if(names.length > 0, (q) => q.select(search.profileObject(names).as('profile'))),
    accountId,
    selection.filters,
    search,
    selection.now,
  )
    .orderBy('m.id')
    .compile();
  await inSnapshot(
    connection,
    async (reader) => {
      async function* members(): AsyncIterable<PortableMember[]> {
        for await (const rows of reader.stream(query, EXPORT_CHUNK)) {
          yield rows.map((row) => {
            const { status_now, profile: raw, ...stored } = row as typeof row & { status_now: string; profile?: unknown };
            // PostgreSQL's driver parses json; SQLite's answers text.
            const fields = (typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {})) as Record<string, string>;
            const member = toMember({ ...stored, status: status_now } as typeof stored);
            return { ...member, profile: new Map(names.filter((name) => Object.hasOwn(fields, name)).map((name) => [name, fields[name]!])) };
          });
        }
      }
      await consume({ fieldNames: names, members: members() });
      // A standby may read it when it has what this account must see (postgres-replicas.ts).
    },
    { account: accountId },
  );
}

/** Members whole, in batches: the import's and the export's storage. */
export class MemberTransferRepository extends Repository implements MemberTransferStore {
  readonly writesInFlight: number;

  constructor(
    connection: StoreConnection,
    /** Whether batches write their events (the EVENTS setting). */
    private readonly events = true,
  ) {
    super(connection);
    // Writers side by side (they lock what they change): two batches in flight; one writer: one.
    this.writesInFlight = connection.transactionLocks ? 2 : 1;
  }

  findLoginIds(accountId: number, logins: readonly string[]): Promise<Map<string, number>> {
    return findLoginIds(this.reads, this.connection.search, accountId, logins);
  }

  findTakenIds(ids: readonly number[]): Promise<Set<number>> {
    return findTakenIds(this.reads, ids);
  }

  async writeImport(accountId: number, write: ImportWrite): Promise<void> {
    await this.connection.transact(importBatchProcedure, accountId, write, this.events);
    if (write.inserts.some((member) => member.id !== undefined)) await this.connection.syncMemberIds();
  }

  exportMembers(accountId: number, consume: (exported: MemberExport) => Promise<void>, selection?: ExportSelection): Promise<void> {
    return exportMembers(this.connection, accountId, consume, selection);
  }
}
