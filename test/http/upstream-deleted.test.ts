/**
 * Members Deleted at the upstream, brought over by migrate-members: as Deleted, their logins
 * kept until this store's retention (30 days) ends, each with the latest time its deletion can
 * have been (the upstream's /list/ tells only "deleted in the last NNN seconds"), else the
 * run's time. A second server of this project plays the upstream, on the same engine.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp, type Harness } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { cheapHash, startUpstream, type Upstream } from '../support/upstream.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FIRST_ID = 3_000_000;
const RECORD = '{id}{login}{email}{status}{reg_type}{reg_time}{exp_time}{bill_id}{plan}';
/** How long ago each was deleted at the upstream. */
const DELETED_AGO = { 'gone-lately': 10 * MINUTE, 'gone-days': 3 * DAY, 'gone-weeks': 20 * DAY, 'gone-long': 40 * DAY } as const;

describeEachEngineApp('members Deleted at the upstream', (harness) => {
  let h: Harness;
  let upstream: Upstream;
  let site: Awaited<ReturnType<typeof apiAccount>>;
  /** When the first run began and ended. */
  let firstRun: { from: number; to: number };

  const migrate = (options: { sinceLast?: boolean } = {}) => h.services.upstream.migration.run(site.account, { fields: ['plan'], ...options });
  const localDeleted = async () => (await site.list({ record: RECORD, status: 'D' })).members as Array<Record<string, string>>;
  const upstreamDeleted = async () => (await upstream.post('list', { record: RECORD, status: 'D' })).members as Array<Record<string, string>>;
  const create = async (login: string) =>
    (await h.post('/api2/create/', { user: site.user, api_key: site.apiKey, _login: login, _email: `${login}@example.net`, _password: 'a-new-password' })).json;
  const deletedAt = async (login: string) => (await site.member(login))?.deletedAt;

  beforeAll(async () => {
    h = harness();
    upstream = await startUpstream(h.database.engine);
    const now = Date.now();
    await upstream.importRows([
      { id: String(FIRST_ID), login: 'still-here', email: 'still-here@example.org', password_hash: cheapHash('pw-still-here') },
      ...Object.entries(DELETED_AGO).map(([login, ago], i) => ({
        id: String(FIRST_ID + 1 + i),
        login,
        email: `${login}@example.org`,
        password_hash: cheapHash(`pw-${login}`),
        status: 'D',
        deleted_time: new Date(now - ago).toISOString(),
        reg_type: 'P',
        bill_id: `cus_${i}`,
        plan: 'gold',
      })),
    ]);
    site = await apiAccount(h);
    const linked = await h.services.upstream.links.link(site.account, {
      url: upstream.url,
      user: upstream.user,
      key: upstream.apiKey,
      captureUnknown: false,
      mirrorWrites: false,
    });
    expect(linked).toEqual({ kind: 'linked', upstreamMembers: 1 });
  }, 60_000);

  afterAll(async () => {
    await upstream?.close();
  });

  it('come over as Deleted, as the upstream lists them, with the latest time each can have been deleted', async () => {
    const from = Date.now();
    const summary = await migrate();
    firstRun = { from, to: Date.now() };
    expect(summary).toMatchObject({ imported: 1, deletions: 3, rejected: 0 });
    // Deleted within the retention: every field the list gives, ids kept. Deleted 40 days ago:
    // past this store's retention, so it would be purged at once: it does not come.
    expect(await localDeleted()).toEqual((await upstreamDeleted()).filter((m) => m.login !== 'gone-long'));
    expect((await localDeleted()).map((m) => m.status)).toEqual(['Deleted', 'Deleted', 'Deleted']);
    expect(await site.member('gone-long')).toBeUndefined();

    // Deleted within the hour (the smallest window asked): the run's time.
    expect(await deletedAt('gone-lately')).toBeGreaterThanOrEqual(firstRun.from);
    expect(await deletedAt('gone-lately')).toBeLessThanOrEqual(firstRun.to);
    // Within the week but not the day: no later than a day before the run (and not before it was).
    expect(await deletedAt('gone-days')).toBeGreaterThanOrEqual(firstRun.from - DAY);
    expect(await deletedAt('gone-days')).toBeLessThanOrEqual(firstRun.to - DAY);
    // Within the retention but not the week: no later than a week before the run.
    expect(await deletedAt('gone-weeks')).toBeGreaterThanOrEqual(firstRun.from - 7 * DAY);
    expect(await deletedAt('gone-weeks')).toBeLessThanOrEqual(firstRun.to - 7 * DAY);
    // As this store's own limitd answers (each as deleted as late as it can have been).
    expect(await site.logins({ limitd: '3600s' })).toEqual(['gone-lately']);
    expect(await site.logins({ limitd: `${23 * 3600}s` })).toEqual(['gone-lately']);
    expect(await site.logins({ limitd: `${2 * 86_400}s` })).toEqual(['gone-lately', 'gone-days']);
    expect(await site.logins({ limitd: `${8 * 86_400}s` })).toEqual(['gone-lately', 'gone-days', 'gone-weeks']);
  });

  it('a rerun changes nothing: the members, their deletion times and the change feed stay as they were', async () => {
    const logins = ['still-here', 'gone-lately', 'gone-days', 'gone-weeks'];
    const members = async () => Promise.all(logins.map((login) => site.member(login)));
    const before = { members: await members(), feed: await site.events({ limit: '1000' }) };
    expect(before.members.map((member) => member?.status)).toEqual(['A', 'D', 'D', 'D']);
    expect(before.feed.events.length).toBeGreaterThan(0);
    expect(await migrate()).toMatchObject({ imported: 0, rejected: 0, renumbered: 0 });
    expect(await migrate({ sinceLast: true })).toMatchObject({ imported: 0, rejected: 0 });
    expect(await members()).toEqual(before.members);
    expect(await site.events({ limit: '1000' })).toEqual(before.feed);
    expect(await site.member('gone-long')).toBeUndefined();
  });

  it('a member created and deleted at the upstream since the last run comes over Deleted with --since-last, stamped with the run’s time', async () => {
    expect(await upstream.post('create', { _login: 'came-and-went', _email: 'came-and-went@example.org' })).toMatchObject({ result: 'OK' });
    expect(await upstream.post('update', { find_member_login: 'came-and-went', status: 'D' })).toMatchObject({ result: 'OK', updated: 1 });
    const from = Date.now();
    expect(await migrate({ sinceLast: true })).toMatchObject({ imported: 0, deletions: 1 });
    expect(await site.member('came-and-went')).toMatchObject({ status: 'D', deletedAt: expect.any(Number) });
    expect(await deletedAt('came-and-went')).toBeGreaterThanOrEqual(from);
    expect(await deletedAt('came-and-went')).toBeLessThanOrEqual(Date.now());
    expect(await localDeleted()).toEqual((await upstreamDeleted()).filter((m) => m.login !== 'gone-long'));
  });

  it('keeps a Deleted member’s login from a new member until the retention purge frees it', async () => {
    for (const login of ['gone-lately', 'GONE-DAYS', 'gone-weeks', 'came-and-went'])
      expect(await create(login)).toEqual({ result: 'ERROR', message: 'login already taken' });
    // Past the retention already: free.
    expect(await create('gone-long')).toMatchObject({ result: 'OK', login: 'gone-long' });

    // 29 days and an hour after the run: the two deleted a day or more before it are purged,
    // the one deleted within the hour before it is not.
    h.clock.set(firstRun.to + 29 * DAY + HOUR);
    await h.services.sweeper.sweep();
    expect(await create('gone-days')).toMatchObject({ result: 'OK' });
    expect(await create('gone-weeks')).toMatchObject({ result: 'OK' });
    expect(await create('gone-lately')).toEqual({ result: 'ERROR', message: 'login already taken' });
    h.clock.set(firstRun.to + 30 * DAY + HOUR);
    await h.services.sweeper.sweep();
    expect(await create('gone-lately')).toMatchObject({ result: 'OK' });
  });

  it('after a gap longer than the retention, a member here deleted at the upstream in it is ended (and purged), one never here does not come', async () => {
    const now = Date.now();
    await upstream.importRows([
      { login: 'still-here', status: 'D', deleted_time: new Date(now - 33 * DAY).toISOString() },
      {
        id: String(FIRST_ID + 10),
        login: 'never-here',
        email: 'never-here@example.org',
        password_hash: cheapHash('pw-never-here'),
        status: 'D',
        deleted_time: new Date(now - 33 * DAY).toISOString(),
      },
    ]);
    // The last run, 35 days ago.
    await h.store.upstream.finishSync(site.account.id, now - 35 * DAY);
    expect(await site.member('still-here')).toMatchObject({ status: 'A' });
    const summary = await migrate();
    expect(summary).toMatchObject({ imported: 0, rejected: 0 });
    const ended = (await site.member('still-here'))!;
    // Deleted between 33 days ago and the retention's start: as late as it can have been.
    expect(ended.status).toBe('D');
    expect(ended.deletedAt).toBeGreaterThanOrEqual(now - 33 * DAY);
    expect(ended.deletedAt).toBeLessThanOrEqual(Date.now() - 30 * DAY);
    expect(await site.member('never-here')).toBeUndefined();
    await h.services.sweeper.sweep();
    expect(await site.member('still-here')).toBeUndefined();
  });
});
