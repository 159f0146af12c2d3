import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { signedIn } from '../support/console.js';
import { openStore } from '../../src/store/store.js';
import { servicesOver } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';

type Event = {
  id: string;
  type: string;
  time: string;
  account: string;
  member?: { id: string; login: string };
  actor: { kind: string };
  request_id?: string;
  data: Record<string, any>;
};

/** Every event of the account, following `next` page by page. */
async function allEvents(api: Awaited<ReturnType<typeof apiAccount>>, params: Record<string, string> = {}): Promise<Event[]> {
  const events: Event[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.events({ ...params, ...(after === undefined ? {} : { after }) });
    expect(page.result, JSON.stringify(page)).toBe('OK');
    events.push(...(page.events as Event[]));
    if (page.next === after || page.events.length === 0) return events;
    after = page.next;
  }
}

describeEachEngineApp('events and the change feed', (h) => {
  it('tells a creation, with the member, the actor and the request id, and never the password', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-11-22T23:14:34.123Z');
    const reply = await h().post('/api2/create/', {
      user: api.user,
      api_key: api.apiKey,
      _login: 'alice',
      _email: 'alice@example.com',
      _password: 'correct-horse',
      city: 'Oslo',
    });
    const [event] = await allEvents(api);
    expect(event).toMatchObject({
      id: '1',
      type: 'member.created',
      account: api.user,
      member: { id: String((await api.member('alice'))!.id), login: 'alice' },
      actor: { kind: 'api', name: 'default' },
      request_id: reply.headers['x-request-id'],
      data: { login: 'alice', email: 'alice@example.com', status: 'A', reg_type: 'A', profile: { city: 'Oslo' } },
    });
    expect(event!.time).toBe('2026-11-22T23:14:34.123Z');
    expect(JSON.stringify(event)).not.toMatch(/argon2|correct-horse|password_hash/);
  });

  it('names who made a change: the key a request came with, the file an import read, in the feed and in the console’s history', async () => {
    const api = await apiAccount(h());
    const added = await h().services.accounts.addKey(api.user, 'crm-sync', { scope: 'all' });
    if (added.kind !== 'issued') throw new Error(added.kind);
    expect((await h().post('/api2/create/', { user: api.user, api_key: added.apiKey, _login: 'kim', _email: 'kim@example.com' })).json.result).toBe('OK');
    const rows = (async function* () {
      yield {
        line: 2,
        values: new Map([
          ['login', 'lee'],
          ['email', 'lee@example.com'],
          ['password', 'imported-password-1'],
        ]),
      };
    })();
    const summary = await h().services.importer.run(api.account, rows, { dryRun: false, keepIds: false, source: 'members-2026.csv' });
    expect(summary.imported).toBe(1);
    const created = (await allEvents(api)).filter((event) => event.type === 'member.created');
    expect(created.map((event) => [event.member?.login, event.actor])).toEqual([
      ['kim', { kind: 'api', name: 'crm-sync' }],
      ['lee', { kind: 'import', name: 'members-2026.csv' }],
    ]);
    // The console's history says it in words.
    const cookie = await signedIn(h(), `viewer-${api.user}@example.com`, api.user, 'viewer');
    for (const [login, by] of [
      ['kim', 'the API, key crm-sync'],
      ['lee', 'the import of members-2026.csv'],
    ] as const) {
      const member = await api.member(login);
      const page = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members/${member!.id}`, headers: { cookie } });
      expect(page.body).toContain(`<td>${by}</td></tr>`);
    }
  });

  it('tells an update: which fields changed, old and new values, the password named only, profile fields by name', async () => {
    const api = await apiAccount(h());
    await api.create('bob', { city: 'Rome' });
    expect(
      await api.update({ find_member_login: 'bob', email: 'new@example.com', password: 'another-horse', city: 'Oslo', pfdelete: 'nothing-here' }),
    ).toMatchObject({ result: 'OK' });
    const events = await allEvents(api);
    expect(events.map((e) => e.type)).toEqual(['member.created', 'member.updated']);
    expect(events[1]!.data).toEqual({
      changed: ['email', 'password'],
      old: { email: 'bob@example.com' },
      new: { email: 'new@example.com' },
      profile: { city: { old: 'Rome', new: 'Oslo' } },
    });
    expect(JSON.stringify(events)).not.toMatch(/argon2|another-horse/);
  });

  it('chains the old and new values of concurrent updates of one member, in id order', async () => {
    const api = await apiAccount(h());
    await api.create('busy', { city: 'c0', _email: 'busy0@example.com' });
    const replies = await Promise.all(
      Array.from({ length: 16 }, (_, i) => api.update({ find_member_login: 'busy', city: `c${i + 1}`, email: `busy${i + 1}@example.com` })),
    );
    expect(replies.every((reply) => reply.result === 'OK')).toBe(true);
    const updates = (await allEvents(api)).filter((event) => event.type === 'member.updated');
    expect(updates).toHaveLength(16);
    // Each update found the member as the one before it left it: no value seen twice, none skipped.
    let city = 'c0';
    let email = 'busy0@example.com';
    for (const event of updates) {
      expect(event.data.profile.city.old).toBe(city);
      expect(event.data.old.email).toBe(email);
      city = event.data.profile.city.new;
      email = event.data.new.email;
    }
    expect((await api.profile('busy'))?.get('city')).toBe(city);
    expect((await api.member('busy'))?.email).toBe(email);
  });

  it('tells status changes with their cause: a suspension, a deletion, a restore', async () => {
    const api = await apiAccount(h());
    await api.create('carol');
    await api.update({ find_member_login: 'carol', status: 'S' });
    await api.update({ find_member_login: 'carol', status: 'D' });
    await api.update({ find_member_login: 'carol', status: 'A' });
    const events = (await allEvents(api)).filter((e) => e.type !== 'member.updated' && e.type !== 'member.created');
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['member.status_changed', { from: 'A', to: 'S', cause: 'update' }],
      ['member.status_changed', { from: 'S', to: 'D', cause: 'update' }],
      ['member.deleted', { cause: 'update' }],
      ['member.status_changed', { from: 'D', to: 'A', cause: 'restore' }],
    ]);
  });

  it('tells an update of every member as one bulk event, and an update that changes nothing as none', async () => {
    const api = await apiAccount(h());
    for (const login of ['d1', 'd2', 'd3']) await api.create(login);
    expect(await api.update({ find_member_id: '*', plan: 'gold', status: 'S' })).toMatchObject({ updated: 3 });
    await api.update({ find_member_login: 'd1', plan: 'gold' });
    const events = await allEvents(api);
    expect(events.map((e) => e.type)).toEqual(['member.created', 'member.created', 'member.created', 'member.bulk_updated']);
    expect(events[3]).not.toHaveProperty('member');
    expect(events[3]!.data).toEqual({ selector: '*', count: 3, set: { status: 'S' }, profile: { set: { plan: 'gold' }, deleted: [] } });
  });

  it('writes no event for a change that is refused (its transaction rolls back)', async () => {
    const api = await apiAccount(h());
    await api.create('e1');
    await api.create('e2');
    expect(await api.update({ find_member_login: 'e1', login: 'E2' })).toMatchObject({ result: 'ERROR' });
    expect(await api.update({ find_member_login: 'nobody', city: 'x' })).toMatchObject({ result: 'ERROR' });
    const events = await allEvents(api);
    expect(events.map((e) => e.id)).toEqual(['1', '2']);
    // The ids a refused change took are given back: the next change takes 3.
    await api.update({ find_member_login: 'e1', city: 'Oslo' });
    expect((await allEvents(api)).map((e) => e.id)).toEqual(['1', '2', '3']);
  });

  it('pages by after/next and limit, filters by type, and keeps accounts apart', async () => {
    const api = await apiAccount(h());
    const other = await apiAccount(h());
    await other.create('elsewhere');
    for (let i = 0; i < 5; i++) await api.create(`p${i}`);
    await api.update({ find_member_login: 'p2', status: 'S' });
    const first = await api.events({ limit: '2' });
    expect(first.events.map((e: Event) => e.id)).toEqual(['1', '2']);
    expect(first.next).toBe('2');
    const rest = await api.events({ after: first.next, limit: '100' });
    expect(rest.events.map((e: Event) => e.type)).toEqual(['member.created', 'member.created', 'member.created', 'member.updated', 'member.status_changed']);
    // Nothing new: next stays where it was.
    expect(await api.events({ after: rest.next })).toEqual({ result: 'OK', message: '', events: [], next: rest.next });
    const statuses = await api.events({ types: 'member.status_changed' });
    expect(statuses.events.map((e: Event) => e.type)).toEqual(['member.status_changed']);
    expect(statuses.next).toBe(rest.next);
    expect((await allEvents(other)).map((e) => e.member?.login)).toEqual(['elsewhere']);
  });

  it('refuses bad parameters, naming them', async () => {
    const api = await apiAccount(h());
    expect(await api.events({ limit: '0' })).toEqual({ result: 'ERROR', message: expect.stringContaining('invalid parameter: limit') });
    expect(await api.events({ limit: '1001' })).toEqual({ result: 'ERROR', message: expect.stringContaining('invalid parameter: limit') });
    expect(await api.events({ after: '-1' })).toEqual({ result: 'ERROR', message: expect.stringContaining('invalid parameter: after') });
    expect(await api.events({ types: 'member.exploded' })).toEqual({
      result: 'ERROR',
      message: expect.stringContaining('member.exploded is not an event type'),
    });
    expect(await api.events({ afterr: '1' })).toEqual({ result: 'ERROR', message: expect.stringContaining('unknown parameter: afterr') });
    expect((await h().post('/api2/events/', { user: api.user, api_key: 'wrong' })).json).toEqual({ result: 'ERROR', message: 'wrong api key' });
  });

  it('tells an import: members created and updated, with the actor import', async () => {
    const api = await apiAccount(h());
    await api.create('known', { city: 'Rome' });
    await h().store.transfer.writeImport(api.account.id, {
      inserts: [{ login: 'fresh', email: 'fresh@example.com', passwordHash: '!upstream', profile: new Map() }],
      updates: [{ id: (await api.member('known'))!.id, member: { login: 'known', email: 'moved@example.com', profile: new Map([['city', 'Oslo']]) } }],
      now: h().clock.now(),
      origin: { actor: 'import' },
    });
    const events = (await allEvents(api)).slice(1);
    expect(events.map((e) => [e.type, e.member?.login, e.actor.kind])).toEqual([
      ['member.created', 'fresh', 'import'],
      ['member.updated', 'known', 'import'],
    ]);
    expect(events[1]!.data).toMatchObject({
      changed: ['email'],
      old: { email: 'known@example.com' },
      new: { email: 'moved@example.com' },
      profile: { city: { old: 'Rome', new: 'Oslo' } },
    });
  });

  it('tells a verification once, and what the sweep did: expirations as one event per status, purges per member', async () => {
    const api = await apiAccount(h());
    const created = await api.create('vera');
    const link = new URL(created.verify_url as string);
    expect((await h().request({ method: 'GET', url: `${link.pathname}${link.search}` })).status).toBeLessThan(400);
    await h().request({ method: 'GET', url: `${link.pathname}${link.search}` });
    const now = h().clock.now();
    await api.insert({ login: 'due-s1', timeExpiry: { action: 'S', at: now - 1000 } });
    await api.insert({ login: 'due-s2', timeExpiry: { action: 'S', at: now - 1000 } });
    await api.insert({ login: 'due-d', timeExpiry: { action: 'D', at: now - 1000 } });
    await api.insert({ login: 'long-gone', status: 'D', deletedAt: now - 40 * 86_400_000 });
    await h().services.sweeper.sweep();
    const events = (await allEvents(api)).filter((e) => !['member.created'].includes(e.type));
    expect(events.map((e) => [e.type, e.member?.login ?? null, e.actor.kind, e.data])).toEqual([
      ['member.verified', 'vera', 'api', { email: 'vera@example.com' }],
      ['member.bulk_updated', null, 'system', { cause: 'time_expiry', status: 'D', count: 1 }],
      ['member.bulk_updated', null, 'system', { cause: 'time_expiry', status: 'S', count: 2 }],
      ['member.purged', 'long-gone', 'system', { cause: 'retention' }],
    ]);
  });

  it('tells login attempts when the account asks for them, a lock and its end, and a login allowance used up', async () => {
    const api = await apiAccount(h(), { loginEvents: true, lockout: { threshold: 2, stepSeconds: 60, maxSeconds: 600, resetSeconds: 3600 } });
    await api.create('lou', { set_exp_logins: '1', set_is_exp_logins: '1' });
    await api.create('sam');
    await api.update({ find_member_login: 'sam', status: 'S' });
    const signIn = (login: string, password: string) => h().post('/api2/login/', { user: api.user, api_key: api.apiKey, login, password, IP: '203.0.113.7' });
    expect((await signIn('lou', 'correct-horse')).json.result).toBe('OK');
    expect((await signIn('sam', 'correct-horse')).json.result).toBe('FAIL');
    expect((await signIn('nobody', 'whatever-horse')).json.result).toBe('FAIL');
    await api.create('max');
    for (let i = 0; i < 2; i++) expect((await signIn('max', 'wrong-horse')).json.result).toBe('FAIL');
    const max = (await api.member('max'))!;
    expect(await h().services.logins.unlock(api.account, max.id)).toBeGreaterThan(0);
    const events = (await allEvents(api)).filter(
      (e) => !['member.created', 'member.updated'].includes(e.type) && !(e.type === 'member.status_changed' && e.member?.login === 'sam'),
    );
    expect(events.map((e) => [e.type, e.member?.login ?? null, e.actor.kind, e.data])).toEqual([
      ['member.login', 'lou', 'api', { outcome: 'ok', ip: '203.0.113.7' }],
      ['member.status_changed', 'lou', 'system', { from: 'A', to: 'S', cause: 'login_expiry' }],
      ['member.login', 'sam', 'api', { outcome: 'suspended', ip: '203.0.113.7' }],
      ['member.login', null, 'api', { outcome: 'fail', ip: '203.0.113.7', login: 'nobody' }],
      ['member.login', 'max', 'api', { outcome: 'fail', ip: '203.0.113.7' }],
      ['member.login', 'max', 'api', { outcome: 'fail', ip: '203.0.113.7' }],
      ['member.locked', 'max', 'system', { until: expect.any(String), scope: 'address', failures: 2 }],
      ['member.unlocked', 'max', 'operator', {}],
    ]);
    // Without --login-events, attempts write no member.login (a lock still writes member.locked).
    const quiet = await apiAccount(h());
    await quiet.create('q');
    await h().post('/api2/login/', { user: quiet.user, login: 'q', password: 'correct-horse' });
    expect((await allEvents(quiet)).map((e) => e.type)).toEqual(['member.created']);
  });

  it('warns of a time expiration once, the account’s warning period before it', async () => {
    const api = await apiAccount(h(), { expiryWarningSeconds: 7 * 86_400 });
    const now = h().clock.now();
    await api.insert({ login: 'soon', timeExpiry: { action: 'S', at: now + 3 * 86_400_000 } });
    await api.insert({ login: 'later', timeExpiry: { action: 'D', at: now + 9 * 86_400_000 } });
    await h().services.sweeper.sweep();
    await h().services.sweeper.sweep();
    let events = (await allEvents(api)).filter((e) => e.type === 'member.expiring');
    expect(events.map((e) => [e.member?.login, e.actor.kind, e.data])).toEqual([
      ['soon', 'system', { expires_at: new Date(now + 3 * 86_400_000).toISOString(), action: 'S', seconds_left: 3 * 86_400 }],
    ]);
    // Two and a half days on, `later` is within the period; a renewed expiration is warned of again.
    h().clock.advance(2.5 * 86_400_000);
    await api.update({ find_member_login: 'soon', is_exp_time: 'S', exp_time: '2', exp_time_type: 'D' });
    await h().services.sweeper.sweep();
    events = (await allEvents(api)).filter((e) => e.type === 'member.expiring');
    expect(events.map((e) => e.member?.login)).toEqual(['soon', 'soon', 'later']);
  });

  it('sweeps events past EVENT_RETENTION_DAYS', async () => {
    const api = await apiAccount(h());
    await api.create('old');
    h().clock.advance(91 * 86_400_000);
    await api.create('new');
    const report = await h().services.sweeper.sweep();
    expect(report?.purgedEvents).toBeGreaterThanOrEqual(1);
    const events = await allEvents(api);
    expect(events.map((e) => e.member?.login)).toEqual(['new']);
  });

  it('gives a reader every event once, in order, while 8 writers run on two servers', async () => {
    const api = await apiAccount(h());
    const logins = Array.from({ length: 8 }, (_, i) => `w${i}`);
    for (const login of logins) await api.create(login);
    // A second server on the same database: its own store (connections) and services.
    const store = openStore(h().database.url);
    const second = await servicesOver(store, { config: loadConfig({}) });
    try {
      const servers = [h().services, second];
      const rounds = 15;
      let writing = true;
      const writers = Promise.all(
        logins.map(async (login, i) => {
          const services = servers[i % 2]!;
          const account = (await services.accounts.find(api.user))!;
          for (let round = 0; round < rounds; round++) {
            const outcome = await services.members.update(
              account,
              { selector: { by: 'login', login }, deleteFields: [], setFields: new Map([['round', String(round)]]) },
              { actor: 'api' },
            );
            expect(outcome.kind).toBe('updated');
          }
        }),
      ).finally(() => (writing = false));
      const seen: string[] = [];
      let after = '0';
      for (;;) {
        // Whether every write had committed before this page was read (not after: a page read
        // just before the last commit may rightly end short of it).
        const done = !writing;
        const page = await api.events({ after, limit: '7' });
        for (const event of page.events as Event[]) seen.push(event.id);
        after = page.next;
        if (done && page.events.length === 0) break;
      }
      await writers;
      // On a failure, say which ids are missing or repeated (a skipped id is the bug this looks for).
      const expected = Array.from({ length: 8 + 8 * rounds }, (_, i) => String(i + 1));
      expect({ missing: expected.filter((id) => !seen.includes(id)), repeated: seen.filter((id, i) => seen.indexOf(id) !== i) }).toEqual({
        missing: [],
        repeated: [],
      });
      expect(seen).toEqual(Array.from({ length: 8 + 8 * rounds }, (_, i) => String(i + 1)));
    } finally {
      await store.close();
    }
  });
});
