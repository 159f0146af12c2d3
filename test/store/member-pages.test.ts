/**
 * The console's members pages by keyset, on both engines: paging forward from the first page
 * and backward from the last visits every member once, in order, for each sort; and many
 * pages in a row each release their read snapshot (a page that kept its reader would leave
 * the next ones waiting for ever).
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember } from '../support/factories.js';
import type { MemberPageQuery } from '../../src/members/member-store.js';

describeEachEngine('members pages', (context) => {
  it('pages forward and backward through every member, in each order, and releases each snapshot', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 23; i++) {
      // Logins out of id order, and registration times that repeat (ties broken by id).
      await insertMember(store, account.id, {
        login: `m${(i * 7) % 23}-${i}`,
        email: `m${i}@example.com`,
        regAt: base + Math.floor(i / 3) * 1000,
        profile: new Map([['city', `c${i}`]]),
      });
    }
    await insertMember(store, account.id, { login: 'gone', email: 'gone@example.com', status: 'D', regAt: base, profile: new Map() });
    const now = Date.now();
    await insertMember(store, account.id, { login: 'paused', email: 'paused@example.com', status: 'S', regAt: base, profile: new Map([['city', 'cp']]) });
    for (const order of ['id', 'login', 'email', 'status', 'registered'] as const)
      for (const descending of [false, true]) {
        const query = (extra: Partial<MemberPageQuery>): MemberPageQuery => ({ filters: {}, order, descending, limit: 5, profileFields: ['city'], ...extra });
        const forward: string[] = [];
        let page = await store.members.pageMembers(account.id, query({}), now);
        expect(page.total).toBe(24);
        expect(page.hasBefore).toBe(false);
        for (;;) {
          forward.push(...page.members.map((m) => m.member.login));
          expect(page.members.every((m) => m.profile.get('city')?.startsWith('c'))).toBe(true);
          if (!page.hasAfter) break;
          page = await store.members.pageMembers(account.id, query({ after: page.lastCursor }), now);
        }
        const backward: string[] = [];
        page = await store.members.pageMembers(account.id, query({ last: true }), now);
        expect(page.hasAfter).toBe(false);
        for (;;) {
          backward.unshift(...page.members.map((m) => m.member.login));
          if (!page.hasBefore) break;
          page = await store.members.pageMembers(account.id, query({ before: page.firstCursor }), now);
        }
        expect(forward).toHaveLength(24);
        expect(new Set(forward).size).toBe(24);
        expect(backward).toEqual(forward);
        const sorted = [...forward].sort();
        if (order === 'login') expect(forward).toEqual(descending ? sorted.reverse() : sorted);
        if (order === 'status') expect(forward.indexOf('paused')).toBe(descending ? 0 : 23);
      }
    // All, including Deleted: the counters' total; the one search box: an id, a login, an
    // e-mail or a profile value.
    const all = await store.members.pageMembers(account.id, { filters: { includeDeleted: true }, order: 'id', limit: 50, profileFields: [] }, now);
    expect(all.total).toBe(25);
    expect(all.members.map((m) => m.member.login)).toContain('gone');
    const search = async (text: string) =>
      (await store.members.pageMembers(account.id, { filters: { anyContains: text }, order: 'id', limit: 50, profileFields: [] }, now)).members.map(
        (m) => m.member.login,
      );
    const paused = all.members.find((m) => m.member.login === 'paused')!.member.id;
    expect(await search(String(paused))).toEqual(['paused']);
    expect(await search('PAUSED@EXAMPLE')).toEqual(['paused']);
    expect(await search('m7-')).toEqual(['m7-1']);
    expect(await search('c22')).toEqual([all.members.find((m) => m.member.email === 'm22@example.com')!.member.login]);
    expect(await search('gone')).toEqual([]);
    // A search of two characters, which no trigram serves (a scan): the same answer.
    expect(await search('7-')).toEqual(['m7-1', 'm17-9']);
    // More pages than there are readers: each is answered.
    for (let i = 0; i < 40; i++)
      expect((await store.members.pageMembers(account.id, { filters: { status: 'D' }, order: 'id', limit: 5, profileFields: [] }, now)).total).toBe(1);
  });

  it('pages and counts the search box’s matches the same whether they are few or many', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    // 1,200 members whose login holds "walrus" (more than the page reads first), every third
    // one Suspended; 3 whose e-mail holds "narwhal", one of them with a profile value that does too.
    const inserts = Array.from({ length: 1200 }, (_, i) => ({
      login: `walrus-${i}`,
      email: `w${i}@example.com`,
      passwordHash: 'x',
      status: i % 3 === 0 ? 'S' : 'A',
    }));
    inserts.push(
      { login: 'n1', email: 'narwhal1@example.com', passwordHash: 'x', status: 'A' },
      { login: 'n2', email: 'narwhal2@example.com', passwordHash: 'x', status: 'S' },
      { login: 'n3', email: 'n3@example.com', passwordHash: 'x', status: 'A' },
    );
    await store.transfer.writeImport(account.id, {
      inserts: inserts.map(({ status, ...member }) => ({
        ...member,
        status: status as 'A' | 'S',
        profile: new Map(member.login === 'n1' ? [['pet', 'Narwhal']] : []),
      })),
      updates: [],
      now: Date.now(),
      origin: { actor: 'import' },
    });
    await store.transfer.writeImport(account.id, {
      inserts: [{ login: 'n4', email: 'n4@example.com', passwordHash: 'x', profile: new Map([['pet', 'a narwhal']]) }],
      updates: [],
      now: Date.now(),
      origin: { actor: 'import' },
    });
    const now = Date.now();
    const everyPage = async (text: string, status?: 'A' | 'S') => {
      const logins: string[] = [];
      let page = await store.members.pageMembers(account.id, { filters: { anyContains: text, status }, order: 'login', limit: 500, profileFields: [] }, now);
      const total = page.total;
      for (;;) {
        logins.push(...page.members.map((m) => m.member.login));
        if (!page.hasAfter) return { total, logins };
        page = await store.members.pageMembers(
          account.id,
          { filters: { anyContains: text, status }, order: 'login', limit: 500, profileFields: [], after: page.lastCursor },
          now,
        );
      }
    };
    const many = await everyPage('WALRUS');
    expect(many.total).toBe(1200);
    expect(many.logins).toEqual(
      inserts
        .filter((m) => m.login.startsWith('walrus'))
        .map((m) => m.login)
        .sort(),
    );
    const suspended = await everyPage('walrus', 'S');
    expect(suspended.total).toBe(400);
    expect(new Set(suspended.logins).size).toBe(400);
    // A member found by its e-mail and by a profile value is listed once.
    expect(await everyPage('narwhal')).toEqual({ total: 3, logins: ['n1', 'n2', 'n4'] });
    expect(await everyPage('narwhal', 'A')).toEqual({ total: 2, logins: ['n1', 'n4'] });
    expect(await everyPage('no such text')).toEqual({ total: 0, logins: [] });
  });
});
