/**
 * What a change to a member's credentials ends, through every door, on both engines: a reset
 * link ends with a new password or address, revoked sessions, a suspension or a deletion (by
 * /update/, the console's service, an import, an expiry, the last login of an allowance, the
 * reset page itself); an address verification is of that address only (a new one is not
 * verified, and a link made for the old one verifies nothing).
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp, PUBLIC_URL } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

const SAME_SITE = { 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' };
const NOW = Date.parse('2026-11-23T12:00:00Z');

describeEachEngineApp('what ends with a credential change', (h) => {
  async function setup() {
    const api = await apiAccount(h());
    const linkFor = async (login: string) => {
      const answer = (await h().post('/api2/reset/', { user: api.user, api_key: api.apiKey, find_member_login: login })).json;
      expect(answer.result, JSON.stringify(answer)).toBe('OK');
      return answer.reset_url as string;
    };
    const page = async (url: string) => (await h().request({ method: 'GET', url: url.slice(PUBLIC_URL.length) })).status;
    const submit = async (url: string, password: string) =>
      (
        await h().request({
          method: 'POST',
          url: '/api2/reset-password/',
          headers: SAME_SITE,
          payload: new URLSearchParams({ token: new URL(url).searchParams.get('token')!, password, confirm: password }).toString(),
        })
      ).status;
    /**
     * The link no longer holds: its page says so (410; 404 once the sweep has purged it), and
     * its form changes no password.
     */
    const ended = async (url: string, login: string) => {
      expect([404, 410]).toContain(await page(url));
      expect([404, 410]).toContain(await submit(url, 'taken-over-horse'));
      expect((await api.login(login, 'taken-over-horse')).result).toBe('FAIL');
    };
    return { api, linkFor, page, submit, ended };
  }

  it('ends every outstanding reset link with a new password, a new address, revoked sessions, a suspension or a deletion', async () => {
    const { api, linkFor, page, ended } = await setup();
    const changes: Array<[string, Record<string, string>]> = [
      ['password', { password: 'a-changed-horse' }],
      ['email', { email: 'somebody-else@example.com' }],
      ['revoked', { revoke_sessions: '1' }],
      ['suspended', { status: 'S' }],
      ['deleted', { status: 'D' }],
    ];
    for (const [login, change] of changes) {
      await api.create(login);
      const links = [await linkFor(login), await linkFor(login)];
      expect(await page(links[0]!)).toBe(200);
      expect(await api.update({ find_member_login: login, ...change })).toMatchObject({ result: 'OK', updated: 1 });
      if (login === 'suspended' || login === 'deleted') await api.update({ find_member_login: login, status: 'A' });
      for (const link of links) await ended(link, login);
    }
    // The same address in another case is not a new one: the link holds.
    await api.create('same');
    const kept = await linkFor('same');
    await api.update({ find_member_login: 'same', email: 'SAME@example.com' });
    expect(await page(kept)).toBe(200);
  });

  it('ends the other links of a member whose password a reset link changed', async () => {
    const { api, linkFor, submit, ended } = await setup();
    await api.create('twice');
    const [first, second] = [await linkFor('twice'), await linkFor('twice')];
    expect(await submit(first, 'a-reset-horse')).toBe(303);
    await ended(second, 'twice');
    expect((await api.login('twice', 'a-reset-horse')).result).toBe('OK');
  });

  it('ends them through an import, an expiry and the last login of an allowance', async () => {
    const { api, linkFor, ended, page, submit } = await setup();
    h().clock.set(NOW);
    // An import that gives a new address, and one that gives the same address again.
    const moved = await api.create('moved');
    const stayed = await api.create('stayed');
    const [movedLink, stayedLink] = [await linkFor('moved'), await linkFor('stayed')];
    await h().store.transfer.writeImport(api.account.id, {
      inserts: [],
      updates: [
        { id: Number(moved.id), member: { login: 'moved', email: 'elsewhere@example.com', profile: new Map() } },
        { id: Number(stayed.id), member: { login: 'stayed', email: 'stayed@example.com', profile: new Map() } },
      ],
      now: NOW,
      origin: { actor: 'import' },
    });
    await ended(movedLink, 'moved');
    expect(await page(stayedLink)).toBe(200);
    // A time expiration that falls due, written down by the sweep.
    // (A minute: the link itself lives an hour.)
    await api.create('expiring', { set_isexptime: '1', set_exptime: '1', set_exptimet: 'm' });
    const expiringLink = await linkFor('expiring');
    h().clock.advance(2 * 60_000);
    // Due, not yet written down by the sweep: the link already no longer holds.
    expect(await page(expiringLink)).toBe(410);
    expect(await submit(expiringLink, 'taken-over-horse')).toBe(410);
    await h().services.sweeper.sweep();
    await api.update({ find_member_login: 'expiring', status: 'A' });
    await ended(expiringLink, 'expiring');
    // A login allowance of one: the login that uses it up suspends the member.
    await api.create('counted', { set_is_exp_logins: '1', set_exp_logins: '1' });
    const countedLink = await linkFor('counted');
    expect((await api.login('counted')).result).toBe('OK');
    await api.update({ find_member_login: 'counted', status: 'A' });
    await ended(countedLink, 'counted');
  });

  it('clears a verification when the address changes, and a link made for the old address verifies nothing', async () => {
    const { api } = await setup();
    const created = await api.create('verified');
    const oldLink = new URL(created.verify_url as string);
    const open = async (link: URL) => (await h().request({ method: 'GET', url: `${link.pathname}${link.search}` })).status;
    expect(await open(oldLink)).toBe(200);
    expect((await api.member('verified'))!.emailVerifiedAt).not.toBeNull();
    // Another case of the same address keeps it verified; another address does not.
    await api.update({ find_member_login: 'verified', email: 'Verified@Example.com' });
    expect((await api.member('verified'))!.emailVerifiedAt).not.toBeNull();
    await api.update({ find_member_login: 'verified', email: 'victim@example.com' });
    expect((await api.member('verified'))!.emailVerifiedAt).toBeNull();
    // The link of the old address, opened after the change, verifies nothing.
    expect(await open(oldLink)).toBe(400);
    expect((await api.member('verified'))!.emailVerifiedAt).toBeNull();
    const updated = (await api.events({ types: 'member.updated' })).events.at(-1);
    expect(updated.data).toMatchObject({ changed: ['email', 'email_verified_time'], new: { email: 'victim@example.com', email_verified_time: null } });
    // An import that moves a verified member to another address clears it too.
    const other = await api.create('imported');
    await open(new URL(other.verify_url as string));
    await h().store.transfer.writeImport(api.account.id, {
      inserts: [],
      updates: [{ id: Number(other.id), member: { login: 'imported', email: 'moved@example.com', profile: new Map() } }],
      now: Date.now(),
      origin: { actor: 'import' },
    });
    expect((await api.member('imported'))!.emailVerifiedAt).toBeNull();
  });
});
