import { expect, it } from 'vitest';
import { UniqueViolation } from '../../src/common/store-errors.js';
import type { MemberChanges } from '../../src/members/member-store.js';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount, insertMember } from '../support/factories.js';

const NO_LIMITS = { maxProfileBytes: Number.POSITIVE_INFINITY, storageQuota: Number.POSITIVE_INFINITY };
const NOW = Date.UTC(2026, 10, 24);
const city = (value: string): MemberChanges => ({ deleteFields: [], setFields: new Map([['city', value]]) });

describeEachEngine('updates sent together (SQLite: committed as a group)', (context) => {
  it('ends each update as if it ran alone: the refused ones leave nothing, the others land with their events', async () => {
    const { store, database } = context();
    const account = await insertAccount(store);
    const ids: number[] = [];
    for (let i = 0; i < 24; i++)
      ids.push(await insertMember(store, account.id, { login: `g${i}`, email: `g${i}@example.com`, profile: new Map([['city', 'Oslo']]) }));
    await store.events.sequence();
    const before = store.poolStats().groupCommits;
    const eventsBefore = (await store.events.page(account.id, 0, 1000, undefined, 10_000)).events.length;

    // All asked for at once: on SQLite they queue for the writer together.
    const updates = ids.map((id, i) => {
      // Member 5 asks for member 6's login (refused: taken), member 7's is refused by the
      // account's storage left (a rollback of its own), the tenth finds no member.
      if (i === 5) return store.members.updateMembers(account.id, { by: 'id', id }, { ...city('Lima'), login: 'g6' }, NOW, NO_LIMITS, { actor: 'api' });
      if (i === 7) return store.members.updateMembers(account.id, { by: 'id', id }, city('Quito'), NOW, { ...NO_LIMITS, storageQuota: 0 }, { actor: 'api' });
      if (i === 9) return store.members.updateMembers(account.id, { by: 'id', id: 1_000_000_000 }, city('Nowhere'), NOW, NO_LIMITS, { actor: 'api' });
      return store.members.updateMembers(account.id, { by: 'id', id }, city(`City ${i}`), NOW, NO_LIMITS, { actor: 'api' });
    });
    const outcomes = await Promise.allSettled(updates);

    expect(outcomes[5]).toMatchObject({ status: 'rejected', reason: expect.any(UniqueViolation) });
    expect(outcomes[7]).toMatchObject({ status: 'fulfilled', value: { kind: 'over-quota' } });
    expect(outcomes[9]).toEqual({ status: 'fulfilled', value: { kind: 'not-found' } });
    for (const [i, id] of ids.entries()) {
      const profile = await store.members.findProfile(account.id, id);
      if (i === 5 || i === 7 || i === 9) {
        expect(profile.get('city'), `member ${i}`).toBe('Oslo');
        expect((await store.members.findMemberById(account.id, id))?.login).toBe(`g${i}`);
      } else {
        expect(profile.get('city'), `member ${i}`).toBe(`City ${i}`);
        expect(outcomes[i]).toEqual({ status: 'fulfilled', value: { kind: 'updated', count: 1 } });
      }
    }
    // One member.updated per update that went through, none for the others, ids dense and in order.
    await store.events.sequence();
    const events = (await store.events.page(account.id, 0, 1000, undefined, 10_000)).events.slice(eventsBefore);
    const changed = ids.filter((_, i) => i !== 5 && i !== 7 && i !== 9);
    expect(events.map((event) => event.type)).toEqual(changed.map(() => 'member.updated'));
    expect(events.map((event) => event.member?.id).sort((a, b) => a! - b!)).toEqual(changed);
    expect(events.map((event) => event.id)).toEqual(events.map((_, i) => events[0]!.id + i));

    if (database.engine === 'sqlite') {
      // Fewer commits than updates: they shared them (the sequencer's rounds are writes too).
      const after = store.poolStats().groupCommits!;
      const writes = after.writes - before!.writes;
      const commits = after.commits - before!.commits;
      expect(writes).toBeGreaterThanOrEqual(ids.length);
      expect(commits).toBeLessThan(writes);
    } else expect(store.poolStats().groupCommits).toBeUndefined();
  });

  it('commits an update of every member on its own, so that short updates queued beside it are not held until it ends', async () => {
    const { store, database } = context();
    const account = await insertAccount(store);
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await insertMember(store, account.id, { login: `l${i}`, email: `l${i}@example.com` }));
    await store.events.sequence();
    const before = store.poolStats().groupCommits;
    const all = (value: string) => store.members.updateMembers(account.id, { by: 'all' }, city(value), NOW, NO_LIMITS, { actor: 'api' });
    const one = (i: number, value: string) => store.members.updateMembers(account.id, { by: 'id', id: ids[i]! }, city(value), NOW, NO_LIMITS, { actor: 'api' });
    // The first holds the writer; the next three queue meanwhile: short, long, short.
    const outcomes = await Promise.all([all('First'), one(1, 'Short one'), all('Everyone'), one(2, 'Short two')]);
    expect(outcomes).toEqual([
      { kind: 'updated', count: 20 },
      { kind: 'updated', count: 1 },
      { kind: 'updated', count: 20 },
      { kind: 'updated', count: 1 },
    ]);
    const untouched = (await store.members.findProfile(account.id, ids[3]!)).get('city');
    if (database.engine === 'sqlite') {
      // In the order asked (one writer, one queue): the second update of all overwrote the
      // first one and the first short one, not the second. (PostgreSQL runs them side by
      // side, in no set order: either update of all may be the last.)
      expect(untouched).toBe('Everyone');
      expect((await store.members.findProfile(account.id, ids[1]!)).get('city')).toBe('Everyone');
      expect((await store.members.findProfile(account.id, ids[2]!)).get('city')).toBe('Short two');
      // Four groups, one each: neither update of all shared a commit with a short one.
      const after = store.poolStats().groupCommits!;
      expect(after.commits - before!.commits).toBeGreaterThanOrEqual(4);
    } else expect(['First', 'Everyone']).toContain(untouched);
  });
});
