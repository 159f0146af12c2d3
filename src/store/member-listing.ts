/**
 * /list/ in SQL: the filters as one WHERE clause, the count and the rows read in the same
 * snapshot, the rows from a cursor in id order.
 */
import type { ExpressionBuilder, Kysely, SelectQueryBuilder } from 'kysely';
import { foldKey } from '../members/member.js';
import type { MemberFilters, MemberListing, MemberListQuery } from '../members/member-store.js';
import { profileColumn, type ListedRow } from '../members/record-template.js';
import type { EngineConnection, SearchSql } from './dialects/dialect.js';
import { expireDue } from './member-updates.js';
import type { Database } from './schema.js';

/** Rows fetched from the cursor at a time: large enough to amortise a round trip, small enough for flat memory. */
const CHUNK_SIZE = 1000;

/** A query over `members as m`, as Kysely types it. */
type ListingDb = Database & { m: Database['members'] };
type MembersQuery<O> = SelectQueryBuilder<ListingDb, 'm', O>;

function filtered<O>(query: MembersQuery<O>, accountId: number, filters: MemberFilters, search: SearchSql): MembersQuery<O> {
  let q = query.where('m.account_id', '=', accountId);
  if (filters.deletedFrom !== undefined) q = q.where('m.status', '=', 'D').where('m.deleted_at', '>=', filters.deletedFrom);
  if (filters.status !== undefined) q = q.where('m.status', '=', filters.status);
  else if (filters.deletedFrom === undefined) q = q.where('m.status', '!=', 'D');
  if (filters.regType !== undefined) q = q.where('m.reg_type', '=', filters.regType);
  if (filters.login !== undefined) q = q.where('m.login_key', '=', foldKey(filters.login));
  if (filters.email !== undefined) q = q.where('m.email_key', '=', foldKey(filters.email));
  if (filters.loginContains !== undefined) q = q.where(search.memberContains('login_key', foldKey(filters.loginContains)));
  if (filters.emailContains !== undefined) q = q.where(search.memberContains('email_key', foldKey(filters.emailContains)));
  if (filters.registeredFrom !== undefined) q = q.where('m.reg_at', '>=', filters.registeredFrom);
  if (filters.registeredBefore !== undefined) q = q.where('m.reg_at', '<', filters.registeredBefore);
  const withField = (text: string, name?: string) =>
    q.where('m.id', 'in', (eb: ExpressionBuilder<ListingDb, 'm'>) => {
      let fields = eb
        .selectFrom('member_fields as f')
        .select('f.member_id')
        .where('f.account_id', '=', accountId)
        .where(search.fieldContains(foldKey(text)));
      if (name !== undefined) fields = fields.where('f.name', '=', name);
      return fields;
    });
  if (filters.profileContains !== undefined) q = withField(filters.profileContains);
  for (const { name, text } of filters.profileFieldContains ?? []) q = withField(text, name);
  return q;
}

/** The members of these statuses: the counters, plus the deltas not yet folded into them. */
function countByStatus(db: Kysely<Database>, accountId: number, statuses: string[]) {
  const counters = db.selectFrom('member_counts').select('n').where('account_id', '=', accountId).where('status', 'in', statuses);
  const deltas = db.selectFrom('member_count_deltas').select('n').where('account_id', '=', accountId).where('status', 'in', statuses);
  return db
    .selectFrom(counters.unionAll(deltas).as('c'))
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('c.n'), eb.lit(0)).as('count'))
    .compile();
}

export async function listMembers(
  connection: EngineConnection,
  accountId: number,
  query: MemberListQuery,
  now: number,
  consume: (listing: MemberListing) => Promise<void>,
): Promise<void> {
  const { db, search } = connection;
  await expireDue(db, now, accountId);

  let rows = filtered(
    db
      .selectFrom('members as m')
      .select(query.columns.map((column) => `m.${column}` as const))
      .select((eb) =>
        query.profileFields.map((name, index) =>
          eb
            .selectFrom('member_fields as f')
            .select('f.value')
            .where('f.member_id', '=', eb.ref('m.id'))
            .where('f.name', '=', name)
            .as(profileColumn(index)),
        ),
      ),
    accountId,
    query.filters,
    search,
  ).orderBy('m.id');
  if (query.limit !== null) rows = rows.limit(query.limit);
  const compiledRows = rows.compile();
  // Without a limit every match is streamed, and counted on the way: no count query. Filtered
  // by status alone (the default list, status=A…), the total is kept by triggers.
  const byStatusOnly = Object.entries(query.filters).every(
    ([name, value]) => name === 'status' || value === undefined || (Array.isArray(value) && value.length === 0),
  );
  const count =
    query.limit === null
      ? undefined
      : byStatusOnly
        ? countByStatus(db, accountId, query.filters.status === undefined ? ['A', 'S'] : [query.filters.status])
        : filtered(db.selectFrom('members as m').select((eb) => eb.fn.countAll<number>().as('count')), accountId, query.filters, search).compile();

  await connection.readSnapshot(async (reader) => {
    let streamed = 0;
    const counting = async function* () {
      for await (const chunk of reader.stream<ListedRow>(compiledRows, CHUNK_SIZE)) {
        streamed += chunk.length;
        yield chunk;
      }
    };
    await consume({
      rows: counting(),
      total: async () => (count === undefined ? streamed : Number((await reader.all(count))[0]?.count ?? 0)),
    });
  });
}
