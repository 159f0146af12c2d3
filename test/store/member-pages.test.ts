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
    for (const order of ['id', 'login', 'registered'] as const) {
      const query = (extra: Partial<MemberPageQuery>): MemberPageQuery => ({ filters: {}, order, limit: 5, profileFields: ['city'], ...extra });
      const forward: string[] = [];
      let page = await store.members.pageMembers(account.id, query({}), now);
      expect(page.total).toBe(23);
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
      expect(forward).toHaveLength(23);
      expect(new Set(forward).size).toBe(23);
      expect(backward).toEqual(forward);
      if (order === 'login') expect([...forward].sort()).toEqual(forward);
    }
    // More pages than there are readers: each is answered.
    for (let i = 0; i < 40; i++)
      expect((await store.members.pageMembers(account.id, { filters: { status: 'D' }, order: 'id', limit: 5, profileFields: [] }, now)).total).toBe(1);
  });
});
