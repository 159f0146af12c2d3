/**
 * What the member pages give away, on both engines: which account names exist (nothing: a name
 * no account has is answered as an account with registration off), where the operators' mail
 * about a registration links to (never the registrant's Host), and whose budget a visitor
 * spends (an IPv6 client counted by its /64).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp, type Harness } from '../support/app.js';
import { addOperator } from '../support/console.js';
import { apiAccount } from '../support/member-api.js';
import { peek } from '../support/peek.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';

const OWN = { 'sec-fetch-site': 'same-origin' };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Every page a visitor can reach without a session, as a name would be probed. */
async function probe(h: Harness, name: string) {
  const get = (path: string) => h.request({ method: 'GET', url: `/auth/${name}/${path}` });
  const post = (path: string, params: Record<string, string>) =>
    h.request({ url: `/auth/${name}/${path}`, payload: new URLSearchParams(params).toString(), headers: { ...FORM, ...OWN } });
  const answers = [
    await get(''),
    await get('?action=reg'),
    await get('?action=lost'),
    await get('?action=logout'),
    await get('?mode=API&action=session&id=abcdefghijklmnopqrstuvwx'),
    await get('profile'),
    await get('my-data'),
    await get('no-such-page'),
    await get('check'),
    await post('', { action: 'login', login: 'someone', password: 'wrong-password-1' }),
    await post('register', { login: 'someone', email: 's@example.com', password: 'a-long-password-1', confirm: 'a-long-password-1' }),
    await post('lost', { who: 'someone@example.com' }),
  ];
  return answers.map((answer) => ({
    status: answer.status,
    location: String(answer.headers.location ?? '').replaceAll(name, 'NAME'),
    // The form token is the browser's own (each of these requests is a new browser).
    body: answer.body.replaceAll(name, 'NAME').replace(/name="form_token" value="[^"]*"/g, 'name="form_token"'),
  }));
}

describeEachEngineApp(
  'what the member pages give away',
  (h) => {
    let smtp: MailCatcher;
    beforeAll(async () => {
      smtp = await startSmtp();
    });
    afterAll(async () => {
      await smtp.close();
    });

    it('answers a name no account has exactly as an account with registration off: every page, status and word', async () => {
      const { user } = await h().newAccount({ registration: 'off' });
      const unknown = `nope${user.slice(4)}`;
      const known = await probe(h(), user);
      const none = await probe(h(), unknown);
      expect(none).toEqual(known);
      // The page interface's session check too: FAIL, as for a session that is not valid.
      expect(none[4]!.body).toBe('FAIL');
      // A name no account can have is a missing page, which tells nothing either.
      expect((await h().request({ method: 'GET', url: '/auth/a%20b/' })).status).toBe(404);
    });

    it('links the operators’ registration mail to the configured address only, never to the registrant’s Host', async () => {
      const { user, account } = await h().newAccount({ registration: 'approval', smtpUrl: smtp.url, mailFrom: 'site@example.com' });
      await addOperator(h(), `approver-${user}@example.com`, user, 'editor');
      const registered = await h().request({
        url: `/auth/${user}/register`,
        payload: new URLSearchParams({ login: 'newbie', email: 'newbie@example.com', password: 'a-long-password-1', confirm: 'a-long-password-1' }).toString(),
        headers: { ...FORM, ...OWN, host: 'evil.test' },
      });
      expect(registered.headers.location).toBe(`/auth/${user}/?action=reg`);
      await h().services.mailer.run();
      const mail = (await smtp.waitFor(1)).find((m) => m.to.includes(`approver-${user}@example.com`));
      expect(mail?.subject).toBe('newbie registered and waits for approval');
      expect(mail!.text).not.toContain('evil.test');
      // This suite's server has no PUBLIC_URL: the path, and word that the address is not configured.
      expect(mail!.text).toContain(
        `/admin/accounts/${encodeURIComponent(account.name)}/registrations (this server's public address is not configured: its administrator sets PUBLIC_URL)`,
      );
    });

    it('erases a member who deletes its own account: only its id, login and deletion time stay, in the store and in the feed', async () => {
      const api = await apiAccount(h(), { returnOrigins: [] });
      const { id } = await api.create('erin', { _email: 'erin@example.com', city: 'Lyon', phone: '+33 6 12 34 56 78', set_urlok: 'https://erin.example/home' });
      await api.update({ find_member_login: 'erin', email: 'erin@new.example' });
      // Signed in from an address the integrator recorded, then on the pages.
      expect(
        (await h().post('/api2/login/', { user: api.user, api_key: api.apiKey, login: 'erin', password: 'correct-horse', IP: '203.0.113.9' })).json.result,
      ).toBe('OK');
      const signIn = await h().request({
        url: `/auth/${api.user}/`,
        payload: new URLSearchParams({ action: 'login', login: 'erin', password: 'correct-horse' }).toString(),
        headers: { ...FORM, ...OWN },
      });
      const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
      const deleted = await h().request({
        url: `/auth/${api.user}/delete`,
        payload: new URLSearchParams({ delete_password: 'correct-horse' }).toString(),
        headers: { ...FORM, ...OWN, cookie },
      });
      // Answered with the sign-in page (a redirect), which says what is kept.
      expect(deleted.status).toBe(303);
      const cookies = [deleted.headers['set-cookie'] ?? []].flat().map((line) => String(line).split(';')[0]!).filter((pair) => !pair.endsWith('='));
      const landed = await h().request({ method: 'GET', url: String(deleted.headers.location), headers: { cookie: [...cookies, cookie].join('; ') } });
      expect(landed.body).toContain('only your member number, your login and the date of the deletion are kept');

      const member = (await api.member('erin'))!;
      expect(member).toMatchObject({ id: Number(id), login: 'erin', status: 'D', email: '', regIp: null, lastLoginIp: null, urlOk: null });
      expect(member.deletedAt).toBeGreaterThan(0);
      expect(member.passwordHash).not.toMatch(/argon2/);
      expect([...(await api.profile('erin'))!]).toEqual([]);
      const left = await peek(h().database, async (db) => ({
        sessions: (await db.selectFrom('sessions').select('member_id').where('member_id', '=', Number(id)).execute()).length,
        logins: (await db.selectFrom('login_events').select('member_id').where('member_id', '=', Number(id)).execute()).length,
      }));
      expect(left).toEqual({ sessions: 0, logins: 0 });
      // The feed: no address, no profile value, no URL in any of its events; its deletion told.
      const feed = JSON.stringify((await api.events()).events);
      for (const personal of ['erin@example.com', 'erin@new.example', 'Lyon', '+33 6', 'erin.example', '203.0.113.9']) expect(feed).not.toContain(personal);
      expect(feed).toContain('"cause":"erased"');
      // What an integrator's sync reads: the member among the recently deleted, by id and login.
      expect((await api.list({ record: '{id}{login}{email}', limitd: '3600s' })).members).toEqual([{ id: String(id), login: 'erin', email: '' }]);
      // Restoring it brings back no password and no address: nobody signs in as it.
      await api.update({ find_member_login: 'erin', status: 'A' });
      expect((await api.login('erin')).result).toBe('FAIL');

      // The API's (and an operator's) status=D stays the seed's restorable Deleted.
      await api.create('fred', { _email: 'fred@example.com', city: 'Nice' });
      await api.update({ find_member_login: 'fred', status: 'D' });
      await api.update({ find_member_login: 'fred', status: 'A' });
      expect((await api.member('fred'))!.email).toBe('fred@example.com');
      expect((await api.profile('fred'))!.get('city')).toBe('Nice');
      expect((await api.login('fred')).result).toBe('OK');
    });

    it('counts an IPv6 visitor by its /64 on the registration, reminder and sign-in budgets, never spending the other visitors’', async () => {
      const { user } = await h().newAccount({ registration: 'open' });
      const from = (address: string) => ({ ...FORM, ...OWN, 'x-forwarded-for': address });
      const register = (i: number, address: string) =>
        h().request({
          url: `/auth/${user}/register`,
          payload: new URLSearchParams({
            login: `v6-${i}`,
            email: `v6-${i}@example.com`,
            password: 'a-long-password-1',
            confirm: 'a-long-password-1',
          }).toString(),
          headers: from(address),
        });
      // Twelve addresses of one /64: ten registrations, then refused, whatever the address.
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await register(i, `2001:db8:1:2::${(i + 1).toString(16)}`)).status);
      expect(statuses.slice(0, 10).every((status) => status === 303)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
      // Another /64 of the same /48 has its own budget.
      expect((await register(12, '2001:db8:1:3::1')).status).toBe(303);

      const remind = (address: string) =>
        h().request({ url: `/auth/${user}/lost`, payload: new URLSearchParams({ who: 'someone' }).toString(), headers: from(address) });
      const reminders: number[] = [];
      for (let i = 0; i < 11; i++) reminders.push((await remind(`2001:db8:7:7:${i}::1`)).status);
      expect(reminders.slice(0, 10).every((status) => status === 303)).toBe(true);
      expect(reminders[10]).toBe(429);
      expect((await remind('2001:db8:7:8::1')).status).toBe(303);

      // Sign-ins without a key: five a minute per client, the /64 being one client.
      const limited = await h().newAccount({ loginRateLimitPerMinute: 5 });
      const signIn = (i: number, address: string) =>
        h().request({
          url: `/auth/${limited.user}/`,
          payload: new URLSearchParams({ action: 'login', login: `v6-sign-in-${i}`, password: 'wrong-password-1' }).toString(),
          headers: from(address),
        });
      // (A wrong password is answered by a redirect to the sign-in page, which says so; too many, by a 429 page.)
      const answers: Array<{ status: number; body: string }> = [];
      for (let i = 0; i < 6; i++) answers.push(await signIn(i, `2001:db8:9:9::${i + 1}`));
      expect(answers.slice(0, 5).map((answer) => answer.status)).toEqual([303, 303, 303, 303, 303]);
      expect(answers[5]!.status).toBe(429);
      expect(answers[5]!.body).toContain('Too many attempts');
      expect((await signIn(7, '2001:db8:9:a::1')).status).toBe(303);
    });
  },
  { env: { TRUST_PROXY: 'true' } },
);
