import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { parseRecordTemplate } from '../../src/members/record-template.js';
import type { MemberStatus } from '../../src/members/member.js';
import type { MemberFilters } from '../../src/members/member-store.js';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember } from '../support/factories.js';
import { peek } from '../support/peek.js';

const NO_CHANGES = { deleteFields: [], setFields: new Map<string, string>() };

const NO_LIMITS = { maxProfileBytes: Number.POSITIVE_INFINITY, storageQuota: Number.POSITIVE_INFINITY };

describeEachEngine('members_total from the status counters', (context) => {
  /** members_total of a list cut to one member, as /list/ computes it. */
  async function listedTotal(accountId: number, filters: MemberFilters): Promise<number> {
    const listing = context().store.members.listMembers(accountId, { record: parseRecordTemplate('{id}')!, filters, limit: 1 }, Date.now());
    for await (const chunk of listing) void chunk;
    return listing.total;
  }

  /** The same totals, counted row by row over a connection of its own, by each member's status now (due expirations included). */
  async function countedTotal(accountId: number, statuses: MemberStatus[]): Promise<number> {
    const now = Date.now();
    const rows = await peek(context().database, (db) =>
      db
        .selectFrom('members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where(sql<string>`case when status = 'A' and exp_time_at <= ${now} then exp_time_mode else status end`, 'in', statuses)
        .execute(),
    );
    return Number(rows[0]!.n);
  }

  async function expectTotalsRight(accountId: number): Promise<void> {
    expect(await listedTotal(accountId, {})).toBe(await countedTotal(accountId, ['A', 'S']));
    for (const status of ['A', 'S', 'D'] as const) expect(await listedTotal(accountId, { status }), status).toBe(await countedTotal(accountId, [status]));
  }

  it('agree with a count of the rows through creates, status changes, bulk updates, expirations, purges and folds', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const other = await insertAccount(store);
    const now = Date.now();
    for (let i = 0; i < 12; i++)
      await insertMember(store, account.id, { login: `c${i}`, status: (['A', 'A', 'S', 'D'] as const)[i % 4]!, ...(i % 4 === 3 ? {} : {}) });
    await insertMember(store, other.id, { login: 'elsewhere' });
    await expectTotalsRight(account.id);
    expect(await listedTotal(account.id, {})).toBe(9);

    await store.members.updateMembers(account.id, { by: 'login', login: 'c0' }, { ...NO_CHANGES, status: 'S' }, now, NO_LIMITS, { actor: 'api' });
    await store.members.updateMembers(account.id, { by: 'login', login: 'c3' }, { ...NO_CHANGES, status: 'A' }, now, NO_LIMITS, { actor: 'api' });
    await expectTotalsRight(account.id);
    // A change that leaves statuses alone moves nothing.
    await store.members.updateMembers(account.id, { by: 'all' }, { ...NO_CHANGES, setFields: new Map([['team', 'x']]) }, now, NO_LIMITS, { actor: 'api' });
    await expectTotalsRight(account.id);
    await store.members.updateMembers(account.id, { by: 'all' }, { ...NO_CHANGES, status: 'D' }, now, NO_LIMITS, { actor: 'api' });
    await expectTotalsRight(account.id);
    expect(await listedTotal(account.id, {})).toBe(0);

    await store.housekeeping.foldMemberCounts();
    await expectTotalsRight(account.id);
    await insertMember(store, account.id, { login: 'due', timeExpiry: { action: 'S', at: now - 1000 } });
    // A due expiration counts before it is written down: the member is counted as Suspended.
    expect(await listedTotal(account.id, { status: 'S' })).toBe(1);
    await expectTotalsRight(account.id);
    await store.housekeeping.expireAllDue(now);
    expect(await listedTotal(account.id, { status: 'S' })).toBe(1);
    await expectTotalsRight(account.id);
    expect(await store.housekeeping.purgeDeleted(now + 60_000, 1000, now)).toBe(12);
    await expectTotalsRight(account.id);
    await store.housekeeping.foldMemberCounts();
    await expectTotalsRight(account.id);
    expect(await listedTotal(other.id, {})).toBe(1);

    expect(await store.accounts.deleteAccount(account.id)).toBe(true);
    const left = await peek(context().database, async (db) => [
      ...(await db.selectFrom('member_counts').select('n').where('account_id', '=', account.id).execute()),
      ...(await db.selectFrom('member_count_deltas').select('n').where('account_id', '=', account.id).execute()),
    ]);
    expect(left).toEqual([]);
  });

  it('are used only for lists filtered by status alone: other filters are counted', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    for (let i = 0; i < 5; i++) await insertMember(store, account.id, { login: `f${i}`, regType: i < 2 ? 'P' : 'F' });
    expect(await listedTotal(account.id, { regType: 'P' })).toBe(2);
    expect(await listedTotal(account.id, { loginContains: 'f' })).toBe(5);
    expect(await listedTotal(account.id, { login: 'f3' })).toBe(1);
    expect(await listedTotal(account.id, { profileFieldContains: [] })).toBe(5);
  });
});
