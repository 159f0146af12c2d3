/**
 * The move from an upstream service: a second server of this project plays the upstream (it
 * speaks the same API), on the same engine; this server's account is linked to it, its
 * members migrated, their passwords captured at their first login here, writes mirrored.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_LOCKOUT } from '../../src/accounts/account.js';
import { PASSWORD_AT_UPSTREAM } from '../../src/auth/legacy-hashes.js';
import { describeEachEngineApp, type Harness } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { blackHole, cheapHash, startUpstream, type Upstream } from '../support/upstream.js';

const MEMBERS = 5000;
/** Upstream ids start high, as a hosted service's do (and clear of this store's own). */
const FIRST_ID = 1_000_000;
const PROFILE_FIELDS = ['first_name', 'plan'];
/** Every field the seed's /list/ gives, and the profile fields. */
const FULL_RECORD =
  '{id}{login}{email}{status}{reg_type}{reg_date}{reg_time}{exp_date}{exp_time}{last_login_date}{last_login_time}{bill_pc}{bill_id}{bill_item}{bill_cust}{bill_subscr}{bill_qty}{first_name}{plan}';

function upstreamRow(i: number): Record<string, string> {
  return {
    id: String(FIRST_ID + i),
    login: `m${i}`,
    email: `m${i}@example.org`,
    password_hash: cheapHash(`pw-${i}`),
    status: i % 7 === 0 ? 'S' : 'A',
    reg_type: ['F', 'P', 'A', 'M'][i % 4]!,
    reg_time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
    ...(i % 5 === 0 ? { exp_time: '2031-06-01T12:30:00Z' } : {}),
    // Expired already: listed as Suspended by both.
    ...(i % 11 === 0 ? { exp_time: '2025-01-01T00:00:00Z' } : {}),
    ...(i % 3 === 0 ? { last_login_time: '2025-05-05T10:00:07Z' } : {}),
    ...(i % 4 === 1 ? { bill_pc: 'stripe', bill_id: `cus_${i}`, bill_item: 'gold', bill_cust: 'acme', bill_subscr: `sub_${i}`, bill_qty: '2' } : {}),
    first_name: `Nämé ${i}`,
    ...(i % 2 === 0 ? { plan: 'pro' } : {}),
  };
}

describeEachEngineApp('moving from an upstream service', (harness) => {
  let h: Harness;
  let upstream: Upstream;
  let site: Awaited<ReturnType<typeof apiAccount>>;

  const localList = async (params: Record<string, string> = {}) =>
    (await site.list({ record: FULL_RECORD, ...params })).members as Array<Record<string, string>>;
  const upstreamList = async (params: Record<string, string> = {}) =>
    (await upstream.post('list', { record: FULL_RECORD, ...params })).members as Array<Record<string, string>>;
  const link = (settings: { captureUnknown?: boolean; mirrorWrites?: boolean; url?: string } = {}, check = true) =>
    h.services.upstream.links.link(
      site.account,
      {
        url: settings.url ?? upstream.url,
        user: upstream.user,
        key: upstream.apiKey,
        captureUnknown: Boolean(settings.captureUnknown),
        mirrorWrites: Boolean(settings.mirrorWrites),
      },
      { check },
    );
  const migrate = (options: { sinceLast?: boolean; dryRun?: boolean } = {}) =>
    h.services.upstream.migration.run(site.account, { fields: PROFILE_FIELDS, ...options });
  const status = async () => (await h.services.upstream.links.status(site.account))!;

  beforeAll(async () => {
    h = harness();
    upstream = await startUpstream(h.database.engine);
    await upstream.importRows(Array.from({ length: MEMBERS }, (_, i) => upstreamRow(i + 1)));
    site = await apiAccount(h);
  }, 120_000);

  afterAll(async () => {
    await upstream?.close();
  });

  it('links only to an upstream that answers with the credentials given', async () => {
    const wrongKey = await h.services.upstream.links.link(site.account, {
      url: upstream.url,
      user: upstream.user,
      key: 'not-the-key',
      captureUnknown: false,
      mirrorWrites: false,
    });
    expect(wrongKey).toEqual({ kind: 'unreachable', reason: 'wrong api key' });
    expect(
      await h.services.upstream.links.link(site.account, { url: 'ftp://x', user: 'u', key: 'k', captureUnknown: false, mirrorWrites: false }),
    ).toMatchObject({ kind: 'invalid', setting: '--upstream-url' });
    expect(await h.services.upstream.links.status(site.account)).toBeUndefined();
    expect(await link()).toEqual({ kind: 'linked', upstreamMembers: MEMBERS });
  });

  it('a dry run reads every member and writes nothing', async () => {
    const summary = await migrate({ dryRun: true });
    expect(summary).toMatchObject({ read: MEMBERS, imported: MEMBERS, rejected: 0, dryRun: true });
    expect(await localList()).toEqual([]);
    expect((await status()).lastSync).toBeNull();
  });

  it('migrates 5,000 members keeping every field and status the list gives, with no password', async () => {
    const summary = await migrate();
    expect(summary).toMatchObject({ read: MEMBERS, imported: MEMBERS, updated: 0, rejected: 0, deletions: 0, resumedAfter: null });
    const here = await localList();
    expect(here).toHaveLength(MEMBERS);
    expect(here).toEqual(await upstreamList());
    // Spot checks that the comparison compares something: statuses, expirations, billing, profile.
    expect(here.filter((m) => m.status === 'Suspended').length).toBeGreaterThan(MEMBERS / 7);
    expect(here.find((m) => m.login === 'm95')).toMatchObject({
      exp_time: '2031-06-01 12:30:00',
      plan: '',
      first_name: 'Nämé 95',
      bill_id: '',
      status: 'Active',
    });
    expect(here.find((m) => m.login === 'm55')).toMatchObject({ exp_time: '2025-01-01 00:00:00', status: 'Suspended' });
    expect(here.find((m) => m.login === 'm1')).toMatchObject({ bill_item: 'gold', bill_subscr: 'sub_1', reg_type: 'Paid' });
    expect((await site.member('m1'))!.passwordHash).toBe(PASSWORD_AT_UPSTREAM);
    expect(await status()).toMatchObject({ migrated: MEMBERS, passwordsCaptured: 0, waiting: MEMBERS, interruptedRun: null });
    expect((await status()).lastSync).not.toBeNull();
  }, 60_000);

  it('a member logs in with the password it had upstream, which is kept here; then logs in with the upstream stopped', async () => {
    expect(await site.login('m2', 'pw-2')).toMatchObject({ result: 'OK' });
    const member = (await site.member('m2'))!;
    expect(member.passwordHash).toMatch(/^\$argon2id\$/);
    expect(member.loginCount).toBe(1);
    expect(await status()).toMatchObject({ passwordsCaptured: 1, waiting: MEMBERS - 1 });

    await upstream.stop();
    try {
      expect(await site.login('m2', 'pw-2')).toMatchObject({ result: 'OK' });
      // A member whose password is still upstream cannot log in while it is away.
      expect(await site.login('m4', 'pw-4')).toEqual({ result: 'FAIL', message: 'wrong login or password', fail_url: '' });
    } finally {
      await upstream.start();
    }
    expect((await status()).lastError).toMatch(/^login: cannot reach/);
  });

  it('a wrong password is FAIL, and nothing is captured', async () => {
    expect(await site.login('m3', 'pw-4')).toEqual({ result: 'FAIL', message: 'wrong login or password', fail_url: '' });
    expect((await site.member('m3'))!.passwordHash).toBe(PASSWORD_AT_UPSTREAM);
    expect((await status()).passwordsCaptured).toBe(1);
    // A suspended member's right password is kept, and the answer is this store's.
    expect(await site.login('m7', 'pw-7')).toMatchObject({ result: 'FAIL', message: 'member suspended' });
    expect((await site.member('m7'))!.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('the lockout counts attempts checked at the upstream like any other', async () => {
    expect((await h.services.accounts.change(site.user, { lockout: { threshold: 3, stepSeconds: 600, maxSeconds: 600 } })).kind).toBe('ok');
    try {
      for (let attempt = 0; attempt < 3; attempt++) expect(await site.login('m9', 'wrong-password')).toMatchObject({ result: 'FAIL' });
      // Locked: the right password is refused, and nothing is captured.
      expect(await site.login('m9', 'pw-9')).toEqual({ result: 'FAIL', message: 'wrong login or password', fail_url: '' });
      expect((await site.member('m9'))!.passwordHash).toBe(PASSWORD_AT_UPSTREAM);
    } finally {
      await h.services.accounts.change(site.user, { lockout: DEFAULT_LOCKOUT });
    }
  });

  it('while linked, every failure waits for the upstream: members moved, waiting and unknown fail in the same time', async () => {
    // Members the upstream hashed itself (argon2id), as a real upstream's are.
    for (const login of ['timing-waiting', 'timing-moved']) {
      expect(await upstream.post('create', { _login: login, _email: `${login}@example.org`, _password: `pw-${login}` })).toMatchObject({ result: 'OK' });
    }
    expect(await migrate({ sinceLast: true })).toMatchObject({ imported: 2 });
    expect(await site.login('timing-moved', 'pw-timing-moved')).toMatchObject({ result: 'OK' });
    const kinds = { unknown: 'timing-nobody', waiting: 'timing-waiting', moved: 'timing-moved' } as const;
    const samples: Record<keyof typeof kinds, number[]> = { unknown: [], waiting: [], moved: [] };
    const bodies = new Set<string>();
    for (let round = 0; round < 12; round++) {
      for (const kind of (Object.keys(kinds) as Array<keyof typeof kinds>).sort(() => Math.random() - 0.5)) {
        const started = performance.now();
        bodies.add(JSON.stringify(await site.login(kinds[kind], 'wrong-password')));
        samples[kind].push(performance.now() - started);
      }
    }
    expect([...bodies]).toEqual([JSON.stringify({ result: 'FAIL', message: 'wrong login or password', fail_url: '' })]);
    const medians = Object.values(samples).map((values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
    expect(Math.max(...medians) / Math.min(...medians), JSON.stringify(medians)).toBeLessThanOrEqual(1.2);
    expect((await site.member('timing-waiting'))!.passwordHash).toBe(PASSWORD_AT_UPSTREAM);
  }, 60_000);

  it('a dead upstream answers FAIL within 5 s, counted in the metrics', async () => {
    const hole = await blackHole();
    try {
      expect(await link({ url: hole.url }, false)).toEqual({ kind: 'linked', upstreamMembers: null });
      const started = performance.now();
      expect(await site.login('m6', 'pw-6')).toEqual({ result: 'FAIL', message: 'wrong login or password', fail_url: '' });
      const seconds = (performance.now() - started) / 1000;
      expect(seconds).toBeLessThanOrEqual(5);
      expect(seconds).toBeGreaterThan(1);
      const { body } = await h.metrics.exposition();
      expect(body).toMatch(/member_api_upstream_calls_total\{call="login",outcome="error"\} [1-9]/);
      expect(body).toMatch(new RegExp(`member_api_upstream_members_waiting\\{account="${site.user}"\\} ${MEMBERS - 1}`));
    } finally {
      await hole.close();
      await link();
    }
  }, 20_000);

  it('after three calls without an answer the upstream is left alone for a while; relinking tries it again', async () => {
    const skipped = async () =>
      Number(/member_api_upstream_calls_total\{call="login",outcome="skipped"\} (\d+)/.exec((await h.metrics.exposition()).body)?.[1] ?? 0);
    await upstream.stop();
    try {
      for (let attempt = 0; attempt < 3; attempt++) expect(await site.login('m13', 'pw-13')).toMatchObject({ result: 'FAIL' });
      const before = await skipped();
      expect(await site.login('m13', 'pw-13')).toMatchObject({ result: 'FAIL' });
      expect(await skipped()).toBe(before + 1);
    } finally {
      await upstream.start();
    }
    // Still paused, though the upstream is back; a relink (this server's) ends the pause.
    expect(await site.login('m13', 'pw-13')).toMatchObject({ result: 'FAIL' });
    await link();
    expect(await site.login('m13', 'pw-13')).toMatchObject({ result: 'OK' });
  });

  it('a rerun catches up creations and deletions at the upstream, and so does --since-last', async () => {
    for (const login of ['late1', 'late2']) {
      expect(await upstream.post('create', { _login: login, _email: `${login}@example.org`, _password: `pw-${login}` })).toMatchObject({ result: 'OK' });
    }
    expect(await upstream.post('update', { find_member_login: 'm10', status: 'D' })).toMatchObject({ result: 'OK', updated: 1 });
    expect(await upstream.post('update', { find_member_login: 'm12', email: 'moved@example.org' })).toMatchObject({ result: 'OK' });
    const rerun = await migrate();
    // Every member listed is written again (the 5,000 and the two timing ones, but m10, no
    // longer listed); the two new ones are added.
    expect(rerun).toMatchObject({ imported: 2, updated: MEMBERS + 2 - 1, deletions: 1 });
    expect(await localList()).toEqual(await upstreamList());
    expect(await site.logins({ login_full: 'm10' })).toEqual([]);
    expect(await site.logins({ login_full: 'm10', status: 'D' })).toEqual(['m10']);
    // A rerun keeps passwords captured since the move.
    expect((await site.member('m2'))!.passwordHash).toMatch(/^\$argon2id\$/);

    expect(await upstream.post('create', { _login: 'late3', _email: 'late3@example.org', _password: 'pw-late3' })).toMatchObject({ result: 'OK' });
    expect(await upstream.post('update', { find_member_login: 'm14', status: 'D' })).toMatchObject({ result: 'OK' });
    const quick = await migrate({ sinceLast: true });
    expect(quick).toMatchObject({ mode: 'since-last', imported: 1, deletions: expect.any(Number) });
    expect(await localList()).toEqual(await upstreamList());
    expect(await site.login('late3', 'pw-late3')).toMatchObject({ result: 'OK' });
  }, 60_000);

  it('an interrupted run goes on after the last member it wrote', async () => {
    const cursor = FIRST_ID + 4000;
    await h.store.upstream.recordSyncProgress(site.account.id, Date.now(), cursor, 0);
    const resumed = await migrate();
    expect(resumed.resumedAfter).toBe(cursor);
    expect(resumed.imported + resumed.updated).toBe((await upstreamList()).filter((m) => Number(m.id) > cursor).length);
    expect((await status()).interruptedRun).toBeNull();
  }, 60_000);

  it('with --capture-unknown, a member created upstream since the last run logs in here and is brought over', async () => {
    expect(await upstream.post('create', { _login: 'newcomer', _email: 'newcomer@example.org', _password: 'pw-newcomer' })).toMatchObject({ result: 'OK' });
    expect(await site.login('newcomer', 'pw-newcomer')).toMatchObject({ result: 'FAIL' });
    expect(await site.member('newcomer')).toBeUndefined();
    await link({ captureUnknown: true });
    expect(await site.login('newcomer', 'wrong-password')).toMatchObject({ result: 'FAIL' });
    expect(await site.member('newcomer')).toBeUndefined();
    expect(await site.login('newcomer', 'pw-newcomer')).toMatchObject({ result: 'OK' });
    const brought = (await site.member('newcomer'))!;
    expect(brought.passwordHash).toMatch(/^\$argon2id\$/);
    // As listed upstream, but for the last login: each side wrote its own (in the same second, or the next).
    const withoutLastLogin = ({ last_login_date, last_login_time, ...rest }: Record<string, string>) => rest;
    expect((await localList({ login_full: 'newcomer' })).map(withoutLastLogin)).toEqual((await upstreamList({ login_full: 'newcomer' })).map(withoutLastLogin));
  });

  it('numbers here a member whose upstream id another member of this store holds (ids are global), in a run and at a login', async () => {
    // Another tenant's members hold the ids the upstream gives two of its members.
    const other = await apiAccount(h);
    const first = Number((await other.create('holder-one')).id);
    const second = Number((await other.create('holder-two')).id);
    await upstream.importRows([{ id: String(first), login: 'clash-run', email: 'clash-run@example.org', password_hash: cheapHash('pw-clash-run') }]);
    const run = await migrate();
    expect(run).toMatchObject({ rejected: 0, renumbered: 1 });
    const moved = (await site.member('clash-run'))!;
    expect(moved.id).not.toBe(first);
    expect(moved.passwordHash).toBe(PASSWORD_AT_UPSTREAM);
    expect(await other.member('holder-one')).toMatchObject({ id: first, email: 'holder-one@example.com' });
    expect(await site.login('clash-run', 'pw-clash-run')).toMatchObject({ result: 'OK' });
    // Found by its login from then on: a rerun updates it, and a write here reaches it there.
    expect(await migrate()).toMatchObject({ rejected: 0, renumbered: 0 });
    expect(await site.logins({ login_full: 'clash-run' })).toEqual(['clash-run']);
    await link({ captureUnknown: true, mirrorWrites: true });
    expect(await site.update({ find_member_id: String(moved.id), plan: 'renumbered' })).toMatchObject({ result: 'OK', updated: 1 });
    expect(await h.services.upstream.mirror.drain()).toBe(1);
    expect(await upstreamList({ login_full: 'clash-run' })).toEqual([expect.objectContaining({ id: String(first), plan: 'renumbered' })]);

    // Brought over at its first login (--capture-unknown) the same way.
    await upstream.importRows([{ id: String(second), login: 'clash-login', email: 'clash-login@example.org', password_hash: cheapHash('pw-clash-login') }]);
    expect(await site.login('clash-login', 'pw-clash-login')).toMatchObject({ result: 'OK' });
    const brought = (await site.member('clash-login'))!;
    expect(brought.id).not.toBe(second);
    expect(brought.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await other.member('holder-two')).toMatchObject({ id: second, email: 'holder-two@example.com' });
    expect((await status()).mirrorPending).toBe(0);
  }, 60_000);

  it('mirrors writes made here to the upstream, in order, after the local answer', async () => {
    await link({ mirrorWrites: true });
    const created = await site.create('mirrored', { _password: 'pw-mirrored', first_name: 'Mira' });
    // A member named by its id here is named by its login there.
    expect(await site.update({ find_member_id: created.id, email: 'mira@example.net', plan: 'team' })).toMatchObject({ result: 'OK' });
    expect(await site.update({ find_member_login: 'm20', status: 'S' })).toMatchObject({ result: 'OK' });
    expect((await status()).mirrorPending).toBe(3);
    expect(await h.services.upstream.mirror.drain()).toBe(3);
    expect((await status()).mirrorPending).toBe(0);
    expect(await upstreamList({ login_full: 'mirrored' })).toEqual([expect.objectContaining({ email: 'mira@example.net', first_name: 'Mira', plan: 'team' })]);
    expect(await upstream.post('login', { login: 'mirrored', password: 'pw-mirrored' })).toMatchObject({ result: 'OK' });
    expect((await upstreamList({ login_full: 'm20' }))[0]!.status).toBe('Suspended');
  });

  it('a mirrored write the upstream cannot take is kept and retried; the local answer does not wait', async () => {
    await upstream.stop();
    try {
      const started = performance.now();
      expect(await site.update({ find_member_login: 'm21', plan: 'solo' })).toMatchObject({ result: 'OK', updated: 1 });
      expect(performance.now() - started).toBeLessThan(2000);
      expect(await h.services.upstream.mirror.drain()).toBe(1);
      expect(await status()).toMatchObject({ mirrorPending: 1, mirrorLastError: expect.stringMatching(/^update: cannot reach/) });
    } finally {
      await upstream.start();
    }
    // Due again after its wait: taken once the clock passes it.
    h.clock.advance(60_000);
    expect(await h.services.upstream.mirror.drain()).toBe(1);
    expect((await status()).mirrorPending).toBe(0);
    expect((await upstreamList({ login_full: 'm21' }))[0]!.plan).toBe('solo');
  });

  it('unlinking says how many members still need a password', async () => {
    const waiting = (await status()).waiting;
    expect(await h.services.upstream.links.unlink(site.account)).toBe(waiting);
    expect(await h.services.upstream.links.status(site.account)).toBeUndefined();
    expect(await site.login('m8', 'pw-8')).toMatchObject({ result: 'FAIL' });
  });
});
