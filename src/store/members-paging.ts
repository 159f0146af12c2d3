/**
 * The console's members page in SQL: the /list/ filters (member-listing.ts's), sorted by id,
 * login, e-mail, status or registration time, either way, one page at a time by keyset: the
 * page after a cursor is `(key, id) > (cursor)` (`<` descending) read along the account's index on that key, so the last page of a
 * million members costs what the first does (an OFFSET would read every row before it). The
 * count comes from the counters when only the status filters, as /list/'s does.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { MemberFilters, MemberPage, MemberPageQuery } from '../members/member-store.js';
import type { StoreConnection } from './writes.js';
import { byStatusOnly, countByStatus, filtered, searchBoxMatches, statusAt } from './member-listing.js';
import { toMember, type MemberRow } from './member-rows.js';

/**
 * Each order's key, read along the account's index on it (`members_status` holds the id); by
 * login or address on PostgreSQL, `member_search`'s (SEARCH_KEYS).
 */
const KEYS = { id: 'm.id', login: 'm.login_key', email: 'm.email_key', status: 'm.status', registered: 'm.reg_at' } as const;
/** The keys of login and address where the engine indexes them in `member_search` (joined as `k`). */
const SEARCH_KEYS = { login: 'k.login_key', email: 'k.email_key' } as const;
const TEXT_KEYS: ReadonlySet<MemberPageQuery['order']> = new Set(['login', 'email', 'status']);

/**
 * The search box's matches are found first, once, when there are fewer than this many (rows of
 * the searches, an id once per search that finds it); more, and the page and its count each
 * search, as any other filter.
 */
const FOUND_FIRST = 1000;

/** Members among the search box's matches, found first (an empty IN is no SQL: false). */
function amongFound(found: readonly number[]) {
  return (eb: ExpressionBuilder<Database & { m: Database['members'] }, 'm'>) => (found.length > 0 ? eb('m.id', 'in', found) : eb.lit(false));
}

/** A cursor: the sort key's value and the id, as base64url JSON (opaque to the page). */
function encodeCursor(key: string | number, id: number): string {
  return Buffer.from(JSON.stringify([key, id])).toString('base64url');
}

function decodeCursor(cursor: string, order: MemberPageQuery['order']): [string | number, number] | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown;
    if (!Array.isArray(value) || value.length !== 2 || !Number.isSafeInteger(value[1])) return undefined;
    const key = value[0] as unknown;
    if (TEXT_KEYS.has(order) ? typeof key !== 'string' : !Number.isSafeInteger(key)) return undefined;
    return [key as string | number, value[1] as number];
  } catch {
    return undefined;
  }
}

export async function pageMembers(connection: StoreConnection, accountId: number, query: MemberPageQuery, now: number): Promise<MemberPage> {
  const { build: db, search } = connection;
  // By login or address where those are indexed in `member_search` (PostgreSQL): read along its index, joined.
  const keyed = search.keyTable === 'member_search' && (query.order === 'login' || query.order === 'email');
  const key = keyed ? SEARCH_KEYS[query.order as keyof typeof SEARCH_KEYS] : KEYS[query.order];
  // The id beside it, from the same table: a comparison of (k's key, m's id) is no bound on k's index.
  const id = keyed ? 'k.member_id' : 'm.id';
  const after = query.after === undefined ? undefined : decodeCursor(query.after, query.order);
  const before = query.before === undefined ? undefined : decodeCursor(query.before, query.order);
  // Backwards (the page before a cursor, the last page): read in reverse, then turn it round.
  const backwards = before !== undefined || (query.last === true && after === undefined);
  // Descending, "after" means smaller: the comparisons and the reading direction turn round.
  const descending = query.descending === true;
  const direction = backwards !== descending ? 'desc' : 'asc';
  const [later, earlier] = descending ? (['<', '>'] as const) : (['>', '<'] as const);
  // The page's members, and how many match: `found`, when given, stands for the search box's text.
  const pageQuery = (filters: MemberFilters, found: readonly number[] | undefined) => {
    let rows = filtered(
      db
        .selectFrom('members as m')
        .selectAll('m')
        .select(statusAt(now).as('status_now'))
        .$if(query.profileFields.length > 0, (q) => q.select(search.profileObject(query.profileFields).as('profile'))),
      accountId,
      filters,
      search,
      now,
    ).$if(keyed, (q) => q.innerJoin('member_search as k', (join) => join.onRef('k.member_id', '=', 'm.id').on('k.account_id', '=', accountId)));
    if (found) rows = rows.where(amongFound(found));
    if (after) rows = rows.where(sql<boolean>`(${sql.ref(key)}, ${sql.ref(id)}) ${sql.raw(later)} (${after[0]}, ${after[1]})`);
    if (before) rows = rows.where(sql<boolean>`(${sql.ref(key)}, ${sql.ref(id)}) ${sql.raw(earlier)} (${before[0]}, ${before[1]})`);
    // One more than the page: whether there is a page beyond it.
    return rows
      .orderBy(sql.ref(key), direction)
      .orderBy(sql.ref(id), direction)
      .limit(query.limit + 1)
      .compile();
  };
  const countQuery = (filters: MemberFilters, found: readonly number[] | undefined) =>
    filtered(
      db.selectFrom('members as m').select((eb) => eb.fn.countAll<number>().as('count')),
      accountId,
      filters,
      search,
      now,
    )
      .$if(found !== undefined, (q) => q.where(amongFound(found!)))
      .compile();
  // The snapshot is released when its generator finishes: read it to the end.
  let answer: MemberPage | undefined;
  for await (const page of connection.readSnapshot(
    async function* (reader) {
      // The search box's matches, when there are few, found once: the page and its count then
      // read them by id, where each would search every index again.
      const text = query.filters.anyContains;
      const matches =
        text === undefined
          ? undefined
          : (await reader.all(searchBoxMatches(db, accountId, text, search, 'unionAll').limit(FOUND_FIRST).compile())).map((row) => Number(row.id));
      const found = matches !== undefined && matches.length < FOUND_FIRST ? [...new Set(matches)] : undefined;
      const filters = found ? { ...query.filters, anyContains: undefined } : query.filters;
      const read = (await reader.all(pageQuery(filters, found))) as Array<MemberRow & { status_now: string; profile?: unknown }>;
      const more = read.length > query.limit;
      const page = read.slice(0, query.limit);
      if (backwards) page.reverse();
      let total: number;
      if (byStatusOnly(query.filters)) {
        const counts = await countByStatus(db, reader, accountId, now);
        total =
          query.filters.status !== undefined ? counts[query.filters.status]! : counts.A! + counts.S! + (query.filters.includeDeleted === true ? counts.D! : 0);
      } else {
        total = Number((await reader.all(countQuery(filters, found)))[0]?.count ?? 0);
      }
      const members = page.map((row) => {
        const raw = row.profile;
        const profile = (typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {})) as Record<string, string>;
        return { member: { ...toMember(row), status: row.status_now as never }, profile: new Map(Object.entries(profile)) };
      });
      const keyOf = (row: MemberRow): string | number => {
        switch (query.order) {
          case 'login':
            return row.login_key;
          case 'email':
            return row.email_key;
          case 'status':
            return row.status;
          case 'registered':
            return Number(row.reg_at);
          default:
            return Number(row.id);
        }
      };
      const cursorOf = (row: MemberRow | undefined) => (row === undefined ? undefined : encodeCursor(keyOf(row), Number(row.id)));
      yield {
        members,
        firstCursor: cursorOf(page[0]),
        lastCursor: cursorOf(page[page.length - 1]),
        hasBefore: backwards ? more : after !== undefined,
        hasAfter: backwards ? before !== undefined : more,
        total,
      } satisfies MemberPage;
      // A standby may read it when it has what this account must see (postgres-replicas.ts).
    },
    { account: accountId },
  ))
    answer = page;
  return answer!;
}
