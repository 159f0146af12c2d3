import pg from 'pg';
import { PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { expect, it } from 'vitest';
import type { MemberChanges } from '../../src/members/member-store.js';
import { parseRecordTemplate } from '../../src/members/record-template.js';
import { connect } from '../../src/store/connect.js';
import { queryBuilder } from '../../src/store/dialects/dialect.js';
import { postgresSearch } from '../../src/store/dialects/postgres.js';
import { UniqueViolation } from '../../src/common/store-errors.js';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember, newMember, uniqueName } from '../support/factories.js';

const NOW = 1_750_000_000_000;

const NO_LIMITS = { maxProfileBytes: Number.POSITIVE_INFINITY, storageQuota: Number.POSITIVE_INFINITY };

describeEachEngine('member store', (context) => {
  it('stores a member as sent and finds it by login, case-insensitively, and by id', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const input = newMember({
      login: 'Alice.Smith',
      email: 'Alice@Example.COM',
      regAt: NOW,
      regIp: '203.0.113.9',
      urlOk: 'https://example.com/in',
      urlFail: '/out',
      timeExpiry: { action: 'S', at: NOW + 60_000 },
      loginExpiry: { action: 'D', left: 3 },
      billPc: 'paypal',
      billId: 'TX-1',
      profile: new Map([
        ['first_name', 'Alice'],
        ['city', 'Zürich'],
      ]),
    });
    const id = await store.members.insertMember(account.id, input, { actor: 'api' });
    expect(id).toBeGreaterThan(0);
    const member = await store.members.findMemberByLogin(account.id, 'alice.SMITH');
    expect(member).toEqual({
      id,
      accountId: account.id,
      login: 'Alice.Smith',
      email: 'Alice@Example.COM',
      passwordHash: input.passwordHash,
      status: 'A',
      regType: 'A',
      regAt: NOW,
      regIp: '203.0.113.9',
      urlOk: 'https://example.com/in',
      urlFail: '/out',
      timeExpiry: { action: 'S', at: NOW + 60_000 },
      loginExpiry: { action: 'D', left: 3 },
      loginCount: 0,
      lastLoginAt: null,
      lastLoginIp: null,
      deletedAt: null,
      emailVerifiedAt: null,
      billPc: 'paypal',
      billId: 'TX-1',
      billItem: null,
      billCust: null,
      billSubscr: null,
      billQty: null,
    });
    expect(await store.members.findMemberById(account.id, id)).toEqual(member);
    expect(await context().store.members.findProfile(account.id, id)).toEqual(
      new Map([
        ['city', 'Zürich'],
        ['first_name', 'Alice'],
      ]),
    );
  });

  it('refuses a login that differs only in case, also beyond ASCII', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    await insertMember(store, account.id, { login: 'Émile' });
    await expect(store.members.insertMember(account.id, newMember({ login: 'éMILE' }), { actor: 'api' })).rejects.toBeInstanceOf(UniqueViolation);
    expect(await store.members.loginTaken(account.id, 'ÉMILE')).toBe(true);
    expect(await store.members.loginTaken(account.id, 'emile')).toBe(false);
  });

  it('lets two accounts hold the same login', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const b = await insertAccount(store);
    await insertMember(store, a.id, { login: 'shared' });
    expect(await store.members.insertMember(b.id, newMember({ login: 'shared' }), { actor: 'api' })).toBeGreaterThan(0);
  });

  it('gives increasing ids that are never reused, even after the rows are gone', async () => {
    const { store } = context();
    const a = await insertAccount(store);
    const first = await insertMember(store, a.id);
    const second = await insertMember(store, a.id);
    expect(second).toBeGreaterThan(first);
    await store.accounts.deleteAccount(a.id);
    const b = await insertAccount(store);
    expect(await insertMember(store, b.id)).toBeGreaterThan(second);
  });

  it('stores a deleted member with its deletion time', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id, { status: 'D', regAt: NOW });
    expect((await store.members.findMemberById(account.id, id))?.deletedAt).toBe(NOW);
  });

  it('records a login: count, time, address, session', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id);
    const recorded = await store.logins.recordLogin(account.id, id, {
      login: 'x',
      at: NOW,
      ip: '198.51.100.7',
      sessionDigest: uniqueName('s'),
      throttleScope: '',
    });
    expect(recorded).toEqual({ kind: 'recorded', status: 'A' });
    await store.logins.recordLogin(account.id, id, { login: 'x', at: NOW + 1000, ip: null, sessionDigest: uniqueName('s'), throttleScope: '' });
    const member = await store.members.findMemberById(account.id, id);
    expect(member).toMatchObject({ loginCount: 2, lastLoginAt: NOW + 1000, lastLoginIp: null, status: 'A' });
  });

  it('lets the login that uses up the allowance succeed, then suspends or deletes', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    for (const action of ['S', 'D'] as const) {
      const id = await insertMember(store, account.id, { loginExpiry: { action, left: 2 } });
      const login = (at: number) => store.logins.recordLogin(account.id, id, { login: 'x', at, ip: null, sessionDigest: uniqueName('s'), throttleScope: '' });
      expect(await login(NOW)).toEqual({ kind: 'recorded', status: 'A' });
      expect(await login(NOW + 1)).toEqual({ kind: 'recorded', status: action });
      expect(await login(NOW + 2)).toEqual({ kind: 'not-active' });
      const member = await store.members.findMemberById(account.id, id);
      expect(member).toMatchObject({ status: action, loginCount: 2, loginExpiry: { action, left: 0 } });
      expect(member?.deletedAt).toBe(action === 'D' ? NOW + 1 : null);
    }
  });

  it('does not count a login for a member that is not active at that instant', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const suspended = await insertMember(store, account.id, { status: 'S' });
    const expired = await insertMember(store, account.id, { timeExpiry: { action: 'S', at: NOW } });
    for (const id of [suspended, expired]) {
      expect(await store.logins.recordLogin(account.id, id, { login: 'x', at: NOW, ip: null, sessionDigest: uniqueName('s'), throttleScope: '' })).toEqual({
        kind: 'not-active',
      });
      expect((await store.members.findMemberById(account.id, id))?.loginCount).toBe(0);
    }
  });

  it('counts failures per member, in a scope and across all, starts over after the reset time, and locks', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id);
    // Locked for a minute at the third failure of an address.
    const policy = { threshold: 3, stepSeconds: 60, maxSeconds: 60, resetSeconds: 3600 };
    const fail = (scope: string, at: number, resetBefore = 0, counted = true) =>
      store.logins.recordLoginFailure(account.id, id, scope, { at, resetBefore, counted, policy });
    expect(await fail('', NOW)).toEqual({
      address: { failures: 1, lastFailureAt: NOW, lockedUntil: 0 },
      all: { failures: 1, lastFailureAt: NOW, lockedUntil: 0 },
    });
    expect((await fail('', NOW + 1)).address).toEqual({ failures: 2, lastFailureAt: NOW + 1, lockedUntil: 0 });
    expect((await fail('', NOW + 2)).address).toEqual({ failures: 3, lastFailureAt: NOW + 2, lockedUntil: NOW + 60_002 });
    expect(await store.logins.findLoginFailures(account.id, id, '')).toEqual({
      address: { failures: 3, lastFailureAt: NOW + 2, lockedUntil: NOW + 60_002 },
      all: { failures: 3, lastFailureAt: NOW + 2, lockedUntil: 0 },
    });
    // Another scope has its own count; the count across all goes on.
    expect(await fail('192.0.2.1', NOW + 3)).toMatchObject({ address: { failures: 1, lockedUntil: 0 }, all: { failures: 4 } });
    // An attempt that does not count changes no count and no time.
    expect(await fail('192.0.2.1', NOW + 4, 0, false)).toMatchObject({
      address: { failures: 1, lastFailureAt: NOW + 3 },
      all: { failures: 4, lastFailureAt: NOW + 3 },
    });
    // Failures older than the reset instant no longer count.
    expect((await fail('192.0.2.1', NOW + 10, NOW + 5)).address).toMatchObject({ failures: 1 });
    // A success clears the count of its own scope and the count across all, not the others.
    await store.logins.recordLogin(account.id, id, { login: 'x', at: NOW + 20, ip: '192.0.2.1', sessionDigest: uniqueName('s'), throttleScope: '192.0.2.1' });
    expect(await store.logins.findLoginFailures(account.id, id, '192.0.2.1')).toEqual({ address: undefined, all: undefined });
    expect((await store.logins.findLoginFailures(account.id, id, '')).address).toBeDefined();
  });

  it('replaces a password hash only if it has not changed meanwhile', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id, { passwordHash: 'old' });
    await store.logins.replacePasswordHash(account.id, id, 'other', 'new');
    expect((await store.members.findMemberById(account.id, id))?.passwordHash).toBe('old');
    await store.logins.replacePasswordHash(account.id, id, 'old', 'new');
    expect((await store.members.findMemberById(account.id, id))?.passwordHash).toBe('new');
  });

  it('marks an e-mail verified once, keeping the first instant, and only while it is the address asked', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id, { email: 'first@example.com' });
    expect(await store.members.markEmailVerified(account.id, id, 'someone-else@example.com', NOW, { actor: 'api' })).toBe(false);
    expect((await store.members.findMemberById(account.id, id))?.emailVerifiedAt).toBeNull();
    expect(await store.members.markEmailVerified(account.id, id, 'First@Example.com', NOW, { actor: 'api' })).toBe(true);
    expect(await store.members.markEmailVerified(account.id, id, 'first@example.com', NOW + 5, { actor: 'api' })).toBe(true);
    expect((await store.members.findMemberById(account.id, id))?.emailVerifiedAt).toBe(NOW);
  });

  it('keeps login events with their address, time and outcome', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id);
    await store.logins.recordLoginEvent(account.id, { memberId: id, login: 'x', ip: '2001:db8::1', at: NOW, outcome: 'wrong-credentials' });
    await store.logins.recordLoginEvent(account.id, { memberId: null, login: 'ghost', ip: '2001:db8::2', at: NOW, outcome: 'wrong-credentials' });
    // Events have no reader in the API yet: look at the table over a second connection.
    const reader = connect(context().database.url);
    const rows = await reader.db
      .selectFrom('login_events')
      .select(['member_id', 'login', 'ip', 'at', 'outcome'])
      .where('account_id', '=', account.id)
      .orderBy('id')
      .execute();
    await reader.close();
    expect(rows).toEqual([
      { member_id: id, login: 'x', ip: '2001:db8::1', at: NOW, outcome: 'wrong-credentials' },
      { member_id: null, login: 'ghost', ip: '2001:db8::2', at: NOW, outcome: 'wrong-credentials' },
    ]);
  });

  it('never shows or changes a member to another account', async () => {
    const { store } = context();
    const owner = await insertAccount(store);
    const other = await insertAccount(store);
    const id = await insertMember(store, owner.id, {
      login: 'private',
      passwordHash: 'h',
      loginExpiry: { action: 'S', left: 5 },
      profile: new Map([['secret', 'x']]),
    });
    const m = store.members;
    expect(await m.findMemberByLogin(other.id, 'private')).toBeUndefined();
    expect(await m.findMemberById(other.id, id)).toBeUndefined();
    expect(await m.loginTaken(other.id, 'private')).toBe(false);
    expect(await context().store.members.findProfile(other.id, id)).toEqual(new Map());
    expect(await store.logins.recordLogin(other.id, id, { login: 'private', at: NOW, ip: null, sessionDigest: uniqueName('s'), throttleScope: '' })).toEqual({
      kind: 'not-active',
    });
    await store.logins.recordLoginFailure(other.id, id, '', {
      at: NOW,
      resetBefore: 0,
      counted: true,
      policy: { threshold: 1, stepSeconds: 1, maxSeconds: 1, resetSeconds: 1 },
    });
    await store.logins.replacePasswordHash(other.id, id, 'h', 'stolen');
    expect(await m.markEmailVerified(other.id, id, (await m.findMemberById(owner.id, id))!.email, NOW, { actor: 'api' })).toBe(false);
    await store.logins.recordLoginEvent(other.id, { memberId: id, login: 'private', ip: '192.0.2.1', at: NOW, outcome: 'ok' });

    const untouched = await m.findMemberById(owner.id, id);
    expect(untouched).toMatchObject({ passwordHash: 'h', loginCount: 0, emailVerifiedAt: null, loginExpiry: { action: 'S', left: 5 } });
    expect(await store.logins.findLoginFailures(owner.id, id, '')).toEqual({ address: undefined, all: undefined });
    expect(await context().store.members.findProfile(owner.id, id)).toEqual(new Map([['secret', 'x']]));
  });

  it('fails over nothing when a member is asked for by an id that does not exist', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    expect(await store.members.findMemberById(account.id, 987_654_321)).toBeUndefined();
    expect(await store.logins.findLoginFailures(account.id, 987_654_321, '')).toEqual({ address: undefined, all: undefined });
  });

  const listAll = async (accountId: number, filters = {}, limit: number | null = null) => {
    const seen: { total: number; rows: Array<Record<string, unknown>>; chunks: number } = { total: -1, rows: [], chunks: 0 };
    const listing = context().store.members.listMembers(accountId, { record: parseRecordTemplate('{id}{login}')!, filters, limit }, NOW);
    for await (const chunk of listing) {
      seen.chunks++;
      seen.rows.push(...chunk);
    }
    seen.total = listing.total;
    return seen;
  };

  it('lists from a cursor in id order, in chunks, counting before the limit', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const ids: number[] = [];
    for (let i = 0; i < 2100; i++) ids.push(await insertMember(store, account.id, { login: `bulk${i}` }));
    const all = await listAll(account.id);
    expect(all.total).toBe(2100);
    expect(all.rows.map((r) => r.id)).toEqual(ids);
    expect(all.chunks).toBe(3);
    const limited = await listAll(account.id, {}, 5);
    expect(limited.total).toBe(2100);
    expect(limited.rows.map((r) => r.id)).toEqual(ids.slice(0, 5));
  });

  it('lets a list be left after its first chunk (a client that goes away), the next chunk’s read-ahead failing quietly', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    for (let i = 0; i < 1500; i++) await insertMember(store, account.id, { login: `left${i}` });
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      for (let round = 0; round < 3; round++) {
        const listing = store.members.listMembers(account.id, { record: parseRecordTemplate('{id}')!, filters: {}, limit: null }, NOW);
        // The second chunk is being read when the list is left: its reader is ended under it.
        for await (const chunk of listing) {
          expect(chunk).toHaveLength(1000);
          break;
        }
      }
      // The store answers on, and a whole list still reads every member.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await listAll(account.id)).total).toBe(1500);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('lists from one snapshot: a member added while the list streams is in neither the rows nor the total', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    await insertMember(store, account.id, { login: 'before' });
    for (const limit of [null, 10]) {
      let rows: Array<Record<string, unknown>> = [];
      const listing = store.members.listMembers(account.id, { record: parseRecordTemplate('{login}')!, filters: { loginContains: 'before' }, limit }, NOW);
      // The snapshot is taken at the first read; a member added after it is not seen.
      for await (const chunk of listing) {
        await insertMember(store, account.id, { login: `before-${limit}` });
        rows = rows.concat(chunk);
      }
      expect(listing.total).toBe(limit === null ? 1 : 2);
      expect(rows.map((r) => r.login)).toEqual(limit === null ? ['before'] : ['before', 'before-null']);
    }
  });

  it('writes down due expirations, dated at the instant they fell due', async () => {
    const { store } = context();
    const mine = await insertAccount(store);
    const theirs = await insertAccount(store);
    const a = await insertMember(store, mine.id, { timeExpiry: { action: 'D', at: NOW - 10 } });
    const b = await insertMember(store, theirs.id, { timeExpiry: { action: 'S', at: NOW - 10 } });
    const later = await insertMember(store, theirs.id, { timeExpiry: { action: 'S', at: NOW + 10 } });
    expect(await store.housekeeping.expireAllDue(NOW)).toBeGreaterThanOrEqual(2);
    expect(await store.members.findMemberById(mine.id, a)).toMatchObject({ status: 'D', deletedAt: NOW - 10 });
    expect(await store.members.findMemberById(theirs.id, b)).toMatchObject({ status: 'S', deletedAt: null });
    expect((await store.members.findMemberById(theirs.id, later))?.status).toBe('A');
  });

  it('never lists or updates another account’s members', async () => {
    const { store } = context();
    const owner = await insertAccount(store);
    const other = await insertAccount(store);
    const id = await insertMember(store, owner.id, { login: 'only-mine', email: 'only@example.com', profile: new Map([['k', 'needle']]) });
    expect((await listAll(other.id)).total).toBe(0);
    expect((await listAll(other.id, { profileContains: 'needle' })).total).toBe(0);
    expect((await listAll(other.id, { loginContains: 'only' })).total).toBe(0);
    const changes = { status: 'D' as const, deleteFields: ['k'], setFields: new Map([['k', 'x']]) };
    for (const selector of [
      { by: 'all' as const },
      { by: 'id' as const, id },
      { by: 'login' as const, login: 'only-mine' },
      { by: 'email' as const, email: 'only@example.com' },
    ]) {
      expect(await store.members.updateMembers(other.id, selector, changes, NOW, NO_LIMITS, { actor: 'api' })).toEqual({ kind: 'not-found' });
    }
    expect((await store.members.findMemberById(owner.id, id))?.status).toBe('A');
    expect(await context().store.members.findProfile(owner.id, id)).toEqual(new Map([['k', 'needle']]));
  });

  it('finds members by part of their login or address after every kind of change', async () => {
    const { store, database } = context();
    const account = await insertAccount(store);
    const id = await insertMember(store, account.id, { login: 'first-walrus', email: 'walrus@example.org' });
    await insertMember(store, account.id, { login: 'second-otter', email: 'otter@example.org' });
    const logins = async (filters: Record<string, string>) => (await listAll(account.id, { ...filters, includeDeleted: true })).rows.map((row) => row.login);
    const update = (changes: Partial<MemberChanges>, at = NOW) =>
      store.members.updateMembers(account.id, { by: 'id', id }, { deleteFields: [], setFields: new Map(), ...changes }, at, NO_LIMITS, { actor: 'api' });
    expect(await logins({ loginContains: 'walrus' })).toEqual(['first-walrus']);
    // A change of status leaves the search as it was.
    expect(await update({ status: 'S' })).toEqual({ kind: 'updated', count: 1 });
    expect(await logins({ loginContains: 'walrus' })).toEqual(['first-walrus']);
    // A new login and a new address replace the old ones, in each search.
    expect(await update({ login: 'First-Narwhal', email: 'Narwhal@Example.net' })).toEqual({ kind: 'updated', count: 1 });
    expect(await logins({ loginContains: 'walrus' })).toEqual([]);
    expect(await logins({ emailContains: 'walrus' })).toEqual([]);
    expect(await logins({ loginContains: 'NARWHAL' })).toEqual(['First-Narwhal']);
    expect(await logins({ emailContains: 'narwhal@example' })).toEqual(['First-Narwhal']);
    expect(await logins({ anyContains: 'otter' })).toEqual(['second-otter']);
    // A purged member leaves nothing behind in the search.
    await update({ status: 'D' }, NOW - 5_000);
    expect(await store.housekeeping.purgeDeleted(NOW, 1_000, NOW)).toBeGreaterThanOrEqual(1);
    expect(await store.members.findMemberById(account.id, id)).toBeUndefined();
    expect(await logins({ anyContains: 'narwhal' })).toEqual([]);
    if (database.engine === 'postgres') {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query('select login_key from member_search where account_id = $1 order by login_key', [account.id]);
        expect(rows).toEqual([{ login_key: 'second-otter' }]);
        // Nor does a member that goes with its account.
        await client.query('delete from accounts where id = $1', [account.id]);
        expect((await client.query('select count(*)::int as n from member_search where account_id = $1', [account.id])).rows).toEqual([{ n: 0 }]);
      } finally {
        await client.end();
      }
    }
  });

  it('finds the first members whose login or address begins with a text, in byte order, from one range of an index', async () => {
    const { store, database } = context();
    const account = await insertAccount(store);
    const other = await insertAccount(store);
    for (const login of ['Zoë.b', 'zoë.a', 'zoë', 'zoe.c', 'a.zoë', 'zoë_%x']) await insertMember(store, account.id, { login, email: `${login}@example.org` });
    await insertMember(store, other.id, { login: 'zoë.other', email: 'zoë@other.example' });
    const logins = async (column: 'login_key' | 'email_key', prefix: string, limit = 10) =>
      (await store.members.findMembersStartingWith(account.id, column, prefix, limit)).map((member) => member.login);
    // Folded, ordered by bytes; `%` and `_` are plain characters; another account's never.
    expect(await logins('login_key', 'ZOË')).toEqual(['zoë', 'zoë.a', 'Zoë.b', 'zoë_%x']);
    expect(await logins('login_key', 'zoë_%')).toEqual(['zoë_%x']);
    expect(await logins('login_key', 'zoë.', 1)).toEqual(['zoë.a']);
    expect(await logins('email_key', 'zoë.a@')).toEqual(['zoë.a']);
    expect(await logins('login_key', 'nobody')).toEqual([]);
    if (database.engine === 'postgres') {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const builder = queryBuilder({
          createAdapter: () => new PostgresAdapter(),
          createQueryCompiler: () => new PostgresQueryCompiler(),
          createIntrospector: (db) => new PostgresIntrospector(db),
        });
        const query = postgresSearch.idsStartingWith(account.id, 'login_key', 'zoë', 5).compile(builder);
        await client.query('set enable_seqscan = off');
        const plan = (await client.query(`explain ${query.sql}`, [...query.parameters])).rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(plan).toContain('member_search_login_prefix');
      } finally {
        await client.end();
      }
    }
  });

  it('purges deleted members in batches, only those past the cut-off', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    for (let i = 0; i < 5; i++) await insertMember(store, account.id, { status: 'D', regAt: NOW - 1000 });
    const recent = await insertMember(store, account.id, { status: 'D', regAt: NOW + 1000 });
    expect(await store.housekeeping.purgeDeleted(NOW, 3, NOW)).toBe(3);
    expect(await store.housekeeping.purgeDeleted(NOW, 3, NOW)).toBeGreaterThanOrEqual(2);
    expect(await store.members.findMemberById(account.id, recent)).toBeDefined();
  });
});
