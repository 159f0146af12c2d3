/**
 * /list/ in SQL: the filters as one WHERE clause over the members' state at `now` (a time
 * expiration that fell due counts, written down or not: the list never writes), the rows read
 * from a cursor in id order with their profile fields fetched a chunk at a time, and the count
 * read in the same snapshot. Nothing here runs before the first chunk is asked for, and the
 * snapshot is released when the reading ends, however it ends.
 */
import { sql, type ExpressionBuilder, type Kysely, type SelectQueryBuilder } from 'kysely';
import { foldKey, type ExpiryAction, type MemberStatus } from '../members/member.js';
import type { MemberFilters, MemberListing, MemberListQuery } from '../members/member-store.js';
import { profileColumn, profileFieldsOf, type ListedRow } from '../members/record-template.js';
import type { SearchSql, SnapshotReader } from './dialects/dialect.js';
import type { StoreConnection } from './writes.js';
import type { Database } from './schema.js';

/** Rows fetched from the cursor at a time: large enough to amortise a round trip, small enough for flat memory. */
const CHUNK_SIZE = 1000;

/** A query over `members as m`, as Kysely types it. */
type ListingDb = Database & { m: Database['members'] };
type MembersQuery<O> = SelectQueryBuilder<ListingDb, 'm', O>;
type Eb = ExpressionBuilder<ListingDb, 'm'>;

/** Active with a time expiration that has come: it is S or D from that instant, written down or not. */
function due(eb: Eb, now: number) {
  // `is not null` keeps the condition true or false, never null: it is negated below.
  return eb.and([eb('m.status', '=', 'A'), eb('m.exp_time_at', 'is not', null), eb('m.exp_time_at', '<=', now)]);
}

/** The member's status at `now`. */
export function statusAt(now: number) {
  return sql<string>`case when m.status = 'A' and m.exp_time_at <= ${now} then m.exp_time_mode else m.status end`;
}

/** Members whose status at `now` is `status`, written so that the status index serves the common cases. */
function hasStatus(eb: Eb, status: MemberStatus, now: number) {
  if (status === 'A') return eb.and([eb('m.status', '=', 'A'), eb.or([eb('m.exp_time_at', 'is', null), eb('m.exp_time_at', '>', now)])]);
  return eb.or([eb('m.status', '=', status), eb.and([due(eb, now), eb('m.exp_time_mode', '=', status as ExpiryAction)])]);
}

export function filtered<O>(query: MembersQuery<O>, accountId: number, filters: MemberFilters, search: SearchSql, now: number): MembersQuery<O> {
  let q = query.where('m.account_id', '=', accountId);
  if (filters.deletedFrom !== undefined) {
    const from = filters.deletedFrom;
    // Deleted since `from`: by an update, or by a time expiration that fell due since then.
    q = q.where((eb) =>
      eb.or([
        eb.and([eb('m.status', '=', 'D'), eb('m.deleted_at', '>=', from)]),
        eb.and([due(eb, now), eb('m.exp_time_mode', '=', 'D'), eb('m.exp_time_at', '>=', from)]),
      ]),
    );
  }
  if (filters.status !== undefined) q = q.where((eb) => hasStatus(eb, filters.status!, now));
  else if (filters.deletedFrom === undefined && filters.includeDeleted !== true)
    q = q.where('m.status', '!=', 'D').where((eb) => eb.not(eb.and([due(eb, now), eb('m.exp_time_mode', '=', 'D')])));
  if (filters.regType !== undefined) q = q.where('m.reg_type', '=', filters.regType);
  if (filters.login !== undefined) q = q.where(search.memberIs(accountId, 'login_key', foldKey(filters.login)));
  if (filters.email !== undefined) q = q.where(search.memberIs(accountId, 'email_key', foldKey(filters.email)));
  if (filters.loginContains !== undefined) q = q.where(search.memberContains(accountId, 'login_key', foldKey(filters.loginContains)));
  if (filters.emailContains !== undefined) q = q.where(search.memberContains(accountId, 'email_key', foldKey(filters.emailContains)));
  if (filters.idAtMost !== undefined) q = q.where('m.id', '<=', filters.idAtMost);
  if (filters.registeredFrom !== undefined) q = q.where('m.reg_at', '>=', filters.registeredFrom);
  if (filters.registeredBefore !== undefined) q = q.where('m.reg_at', '<', filters.registeredBefore);
  const withField = (text: string, name?: string) =>
    q.where('m.id', 'in', (eb: Eb) => {
      let fields = eb
        .selectFrom('member_fields as f')
        .select('f.member_id')
        .where('f.account_id', '=', accountId)
        .where(search.fieldContains(accountId, foldKey(text)));
      if (name !== undefined) fields = fields.where('f.name', '=', name);
      return fields;
    });
  if (filters.profileContains !== undefined) q = withField(filters.profileContains);
  // One IN over a UNION of the searches, each on its own index: an OR of them would be
  // read as a filter along the sort's index (PostgreSQL scanned every member so).
  if (filters.anyContains !== undefined) q = q.where('m.id', 'in', (eb: Eb) => searchBoxMatches(eb, accountId, filters.anyContains!, search, 'union'));
  for (const { name, text } of filters.profileFieldContains ?? []) q = withField(text, name);
  return q;
}

/**
 * The ids of the account's members that the console's search box finds: the text in the
 * login, the e-mail or a profile value, or the text as the id. A UNION of the searches, each
 * on its own index; `union all` keeps an id once per search that finds it, and streams (a
 * LIMIT over it stops the reading early).
 */
export function searchBoxMatches(
  from: Pick<Eb, 'selectFrom'> | Pick<Kysely<Database>, 'selectFrom'>,
  accountId: number,
  searched: string,
  search: SearchSql,
  combine: 'union' | 'unionAll',
) {
  const select = from as Pick<Eb, 'selectFrom'>;
  const text = foldKey(searched);
  const id = /^[1-9]\d{0,14}$/.test(searched) ? Number(searched) : undefined;
  const members = () => select.selectFrom('members as m').select('m.id').where('m.account_id', '=', accountId);
  const fields = select
    .selectFrom('member_fields as f')
    .select('f.member_id as id')
    .where('f.account_id', '=', accountId)
    .where(search.fieldContains(accountId, text));
  const first = members().where(search.memberContains(accountId, 'login_key', text));
  const others = [
    members().where(search.memberContains(accountId, 'email_key', text)),
    fields,
    ...(id === undefined ? [] : [members().where('m.id', '=', id)]),
  ];
  return others.reduce<typeof first>((all, next) => (combine === 'union' ? all.union(next) : all.unionAll(next)), first);
}

/** Filtered by status alone (or not at all): the total comes from the counters. */
export function byStatusOnly(filters: MemberFilters): boolean {
  return Object.entries(filters).every(
    ([name, value]) => name === 'status' || name === 'includeDeleted' || value === undefined || (Array.isArray(value) && value.length === 0),
  );
}

/**
 * The members of an account by status at `now`: the counters (and the deltas not yet folded
 * into them), corrected by the time expirations that fell due and are not written down yet.
 */
export async function countByStatus(
  db: Kysely<Database>,
  reader: Pick<SnapshotReader, 'all'>,
  accountId: number,
  now: number,
): Promise<Record<string, number>> {
  const counters = db.selectFrom('member_counts').select(['status', 'n']).where('account_id', '=', accountId);
  const deltas = db.selectFrom('member_count_deltas').select(['status', 'n']).where('account_id', '=', accountId);
  const written = await reader.all(
    db
      .selectFrom(counters.unionAll(deltas).as('c'))
      .select(['c.status', (eb) => eb.fn.sum<number>('c.n').as('n')])
      .groupBy('c.status')
      .compile(),
  );
  const pending = await reader.all(
    db
      .selectFrom('members')
      .select(['exp_time_mode', (eb) => eb.fn.countAll<number>().as('n')])
      .where('account_id', '=', accountId)
      .where('status', '=', 'A')
      .where('exp_time_at', '<=', now)
      .groupBy('exp_time_mode')
      .compile(),
  );
  const counts: Record<string, number> = { A: 0, S: 0, D: 0 };
  for (const row of written) counts[row.status] = Number(row.n);
  for (const row of pending) {
    counts.A! -= Number(row.n);
    counts[row.exp_time_mode!]! += Number(row.n);
  }
  return counts;
}

export function listMembers(connection: StoreConnection, accountId: number, query: MemberListQuery, now: number): MemberListing {
  const { build: db, search } = connection;
  // The projection: the columns the record's built-in fields render (status read as it is at
  // `now`), and its profile fields.
  const builtIn = [...new Set(query.record.flatMap((field) => (field.kind === 'built-in' ? [field.token.field.column] : [])))];
  const columns = builtIn.filter((column) => column !== 'status').map((column) => sql.ref(`m.${column}`).as(column));
  const profileFields = profileFieldsOf(query.record);
  // The record's profile fields in one pass: one subquery per member gathers them as a JSON
  // object, whatever their number (a subquery per field would cost a record of 128 fields 128
  // index searches per member).
  let rows = filtered(
    db
      .selectFrom('members as m')
      .select(columns)
      .$if(builtIn.includes('status'), (q) => q.select(statusAt(now).as('status')))
      .$if(profileFields.length > 0, (q) => q.select(search.profileObject(profileFields).as('profile'))),
    accountId,
    query.filters,
    search,
    now,
  ).orderBy('m.id');
  if (query.limit !== null) rows = rows.limit(query.limit);
  const compiledRows = rows.compile();

  let total: number | undefined;
  async function* chunks(): AsyncGenerator<ListedRow[]> {
    // The snapshot opens here, at the first read, and closes in the reader's own finally.
    yield* connection.readSnapshot(
      async function* (reader) {
        let streamed = 0;
        for await (const chunk of reader.stream<ListedRow>(compiledRows, CHUNK_SIZE)) {
          streamed += chunk.length;
          if (profileFields.length > 0) spreadProfiles(profileFields, chunk);
          yield chunk;
        }
        // Without a limit every match was streamed, and counted on the way.
        if (query.limit === null) total = streamed;
        else if (byStatusOnly(query.filters)) {
          const counts = await countByStatus(db, reader, accountId, now);
          total = query.filters.status === undefined ? counts.A! + counts.S! : counts[query.filters.status]!;
        } else {
          const count = filtered(
            db.selectFrom('members as m').select((eb) => eb.fn.countAll<number>().as('count')),
            accountId,
            query.filters,
            search,
            now,
          );
          total = Number((await reader.all(count.compile()))[0]?.count ?? 0);
        }
        // A standby may read it when it has what this account must see (postgres-replicas.ts).
      },
      { account: accountId },
    );
  }
  return {
    [Symbol.asyncIterator]: () => chunks(),
    get total(): number {
      if (total === undefined) throw new Error('the total is known once every row has been read');
      return total;
    },
  };
}

/**
 * The record's profile fields, taken from the one JSON object the row carries (its
 * `profile` column), under the keys the renderer reads (`pf0`, `pf1`, …).
 */
function spreadProfiles(names: readonly string[], chunk: ListedRow[]): void {
  for (const row of chunk) {
    const target = row as Record<string, unknown>;
    const raw = target.profile;
    // PostgreSQL's driver parses json; SQLite's answers text.
    const profile = (typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {})) as Record<string, string>;
    names.forEach((name, index) => (target[profileColumn(index)] = Object.hasOwn(profile, name) ? profile[name] : undefined));
    delete target.profile;
  }
}
