/**
 * No single request may freeze the server: what one request may ask is capped (record
 * fields, profile: filters, pfdelete names, profile bytes written), every request beyond a
 * database's own limits is a 200 ERROR naming the parameter, an account's profile data is
 * held to its storage quota, and the largest request allowed runs without holding the event
 * loop (long reads in worker threads, long writes in chunks).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { figure } from '../support/report.js';

const ERROR = (message: string) => ({ result: 'ERROR', message });

async function seed(
  h: ReturnType<Parameters<Parameters<typeof describeEachEngineApp>[1]>[0]>,
  accountId: number,
  count: number,
  profile: Record<string, string> = {},
) {
  for (let start = 0; start < count; start += 1000) {
    await h.store.transfer.writeImport(accountId, {
      inserts: Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
        login: `m${start + i}`,
        email: `m${start + i}@example.com`,
        passwordHash: 'x',
        profile: new Map(Object.entries(profile)),
      })),
      updates: [],
      now: Date.now(),
      origin: { actor: 'import' },
    });
  }
}

describeEachEngineApp('bounded work', (h) => {
  it('caps a record at 128 fields, and answers one beyond the database’s limits with an ERROR, never 500', async () => {
    const api = await apiAccount(h());
    await api.create('solo');
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `{f${i}}`).join('');
    expect((await api.list({ record: `{login}${fields(127)}` })).members).toHaveLength(1);
    for (const n of [128, 2001]) {
      const reply = await h().post('/api2/list/', { user: api.user, api_key: api.apiKey, record: fields(n) + '{login}' });
      expect([reply.status, reply.json]).toEqual([200, ERROR('invalid parameter: record (at most 128 fields)')]);
    }
  });

  it('caps profile: filters at 10, and pfdelete at 100 names, naming the parameter', async () => {
    const api = await apiAccount(h());
    await api.create('solo', { a: 'x' });
    const filters = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`profile:f${i}`, 'x']);
    expect((await api.list(filters(10))).members_total).toBe(0);
    for (const n of [11, 990]) expect(await api.list(filters(n))).toEqual(ERROR('invalid parameter: profile:f10 (at most 10 profile: filters)'));
    const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`).join(',');
    expect(await api.update({ find_member_login: 'solo', pfdelete: `a,${names(99)}` })).toEqual({ result: 'OK', message: '', updated: 1 });
    for (const n of [101, 32_767]) {
      expect(await api.update({ find_member_login: 'solo', pfdelete: names(n) })).toEqual(ERROR('invalid parameter: pfdelete (at most 100 names)'));
    }
  });

  it('refuses an update whose values times the members it matches are over 64 MiB, changing nothing', async () => {
    const api = await apiAccount(h(), { storageQuotaMb: 4096 });
    await seed(h(), api.account.id, 4200);
    const big = 'x'.repeat(16 * 1024);
    const reply = await api.update({ find_member_id: '*', small: 'ok', bio: big });
    expect(reply).toEqual(ERROR('invalid parameter: bio (profile values × members matched over 64 MiB per update)'));
    expect((await api.list({ profile: 'ok', limit: '1' })).members_total).toBe(0);
    // Within the budget it goes through.
    expect(await api.update({ find_member_id: '*', small: 'ok' })).toEqual({ result: 'OK', message: '', updated: 4200 });
  }, 120_000);

  it('holds an account to its storage quota, on create and on update', async () => {
    const api = await apiAccount(h(), { storageQuotaMb: 1 });
    const value = 'v'.repeat(60 * 1024);
    let created = 0;
    for (; created < 30; created++) {
      const reply = await h().post('/api2/create/', { user: api.user, api_key: api.apiKey, _login: `q${created}`, _email: 'q@example.com', bio: value });
      if (reply.json.result !== 'OK') {
        expect(reply.json).toEqual(ERROR('storage quota exceeded'));
        break;
      }
    }
    expect(created).toBe(17);
    // A member without profile data is still welcome; setting more data is not.
    await api.create('plain');
    expect(await api.update({ find_member_login: 'plain', bio: value })).toEqual(ERROR('storage quota exceeded'));
    // Deleting data makes room.
    expect(await api.update({ find_member_id: '*', pfdelete: 'bio' })).toMatchObject({ result: 'OK' });
    expect(await api.update({ find_member_login: 'plain', bio: value })).toMatchObject({ result: 'OK' });
  }, 60_000);

  it('answers a 16 KiB path of slashes at once, and /healthz beside it (every transform of a path is linear)', async () => {
    // A run of slashes followed by anything else made an end-anchored /\/+$/ retry at every
    // position: 0.34 s per request, quadratic in the path's length.
    const long = '/'.repeat(16_000) + 'a';
    const started = performance.now();
    let healthzMs = 0;
    const [answers] = await Promise.all([
      Promise.all(Array.from({ length: 4 }, () => h().request({ method: 'GET', url: long }))),
      h()
        .request({ method: 'GET', url: '/healthz' })
        .then((reply) => {
          healthzMs = performance.now() - started;
          return reply;
        }),
    ]);
    for (const reply of answers) expect([reply.status, reply.json]).toEqual([404, ERROR('not found')]);
    // The same path with a method it does not take, and one of a real route's with slashes after it.
    expect((await h().request({ method: 'DELETE', url: '/api2/list' + '/'.repeat(16_000) })).status).toBe(405);
    figure(`bounded work [${h().store.engine}] four 16 KiB paths of slashes: /healthz beside them ms`, healthzMs.toFixed(1));
    expect(healthzMs).toBeLessThan(150);
  });

  it('runs the largest allowed update and a scan of every member without holding the event loop', async () => {
    const api = await apiAccount(h());
    await seed(h(), api.account.id, 20_000, { city: 'Oslo' });
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    // A value of 3 KiB on 20,000 members is 60 MB, just within one update's budget.
    expect(await api.update({ find_member_id: '*', bio: 'b'.repeat(3 * 1024), city: 'Bergen' })).toEqual({ result: 'OK', message: '', updated: 20_000 });
    // Two characters: no index can serve it; every member and field is read.
    const scan = await api.list({ profile: 'er', record: '{id}{login}{bio}{city}', limit: '10' });
    const took = performance.now() - started;
    delay.disable();
    expect(scan.members_total).toBe(20_000);
    figure(
      `bounded work [${h().store.engine}] 60 MB update + scan: took ms / longest event-loop stall ms`,
      `${took.toFixed(0)} / ${(delay.max / 1e6).toFixed(1)}`,
    );
    // Each chunk is short: the loop never waited anywhere near the time the work took.
    expect(delay.max / 1e6).toBeLessThan(Math.max(500, took / 10));
  }, 240_000);
});
