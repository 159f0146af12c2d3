import { expect, it } from 'vitest';
import { describeEachEngineApp, PUBLIC_URL } from '../support/app.js';

const HOUR = 3600_000;
const SAME_SITE = { 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' };

describeEachEngineApp('/api2/reset/ and the reset page', (h) => {
  async function setup(settings = {}) {
    const { user, apiKey, account } = await h().newAccount(settings);
    const create = async (login: string, extra: Record<string, string> = {}) => {
      const reply = await h().post('/api2/create/', {
        user,
        api_key: apiKey,
        _login: login,
        _email: `${login}@example.com`,
        _password: 'correct-horse',
        ...extra,
      });
      expect(reply.json.result).toBe('OK');
      return reply.json;
    };
    const reset = async (params: Record<string, string>) => (await h().post('/api2/reset/', { user, api_key: apiKey, ...params })).json;
    const login = async (name: string, password: string) => (await h().post('/api2/login/', { user, login: name, password })).json;
    /** The page's path and query, from a reset_url. */
    const pathOf = (url: string) => url.slice(PUBLIC_URL.length);
    const open = (url: string) => h().request({ method: 'GET', url: pathOf(url) });
    const submit = (url: string, password: string, confirm = password, headers: Record<string, string> = SAME_SITE) =>
      h().request({
        method: 'POST',
        url: '/api2/reset-password/',
        headers,
        payload: new URLSearchParams({ token: new URL(url).searchParams.get('token')!, password, confirm }).toString(),
      });
    return { user, apiKey, account, create, reset, login, open, submit };
  }

  it('makes a single-use link whose page sets a new password, ends the member’s sessions and sends it to the ok URL', async () => {
    const { create, reset, login, open, submit, user } = await setup({ okUrl: 'https://site.example/welcome' });
    await create('alice');
    const session = (await login('alice', 'correct-horse')).session;
    const answer = await reset({ find_member_login: 'alice' });
    expect(Object.keys(answer)).toEqual(['result', 'message', 'reset_url']);
    // The link names its account: even cut short, it leads to that account's pages.
    expect(answer.reset_url).toMatch(new RegExp(`^${PUBLIC_URL}/api2/reset-password/\\?account=[A-Za-z0-9._-]+&token=[A-Za-z0-9_-]{32}$`));
    // Opening the link (twice: a mail scanner, then the member) changes nothing.
    for (let i = 0; i < 2; i++) {
      const page = await open(answer.reset_url);
      expect(page.status, page.body).toBe(200);
      expect(page.body).toContain('Choose a new password for <strong>alice</strong>');
      expect(page.body).not.toContain('<script');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      // Browsers hold the form's redirect to form-action: the ok URL's origin is allowed.
      expect(page.headers['content-security-policy']).toContain("form-action 'self' https://site.example;");
      expect(page.headers['cache-control']).toBe('no-store');
    }
    expect((await login('alice', 'correct-horse')).result).toBe('OK');
    const done = await submit(answer.reset_url, 'a-brand-new-horse');
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('https://site.example/welcome');
    expect((await login('alice', 'a-brand-new-horse')).result).toBe('OK');
    expect((await login('alice', 'correct-horse')).result).toBe('FAIL');
    expect((await h().post('/api2/session/', { user, session })).json).toEqual({ result: 'FAIL', message: 'session not found' });
    // Used: the page says so, and a second post changes nothing.
    const used = await open(answer.reset_url);
    expect(used.status).toBe(410);
    expect(used.body).toContain('already used');
    expect((await submit(answer.reset_url, 'yet-another-horse')).status).toBe(410);
    expect((await login('alice', 'a-brand-new-horse')).result).toBe('OK');
  });

  it('writes the change as the member’s own, in the event trail', async () => {
    const { create, reset, submit, user, apiKey } = await setup();
    await create('evan');
    await submit((await reset({ find_member_login: 'evan' })).reset_url, 'a-brand-new-horse');
    const feed = (await h().post('/api2/events/', { user, api_key: apiKey, types: 'member.updated' })).json;
    expect(feed.events.at(-1)).toMatchObject({
      type: 'member.updated',
      member: { login: 'evan' },
      actor: { kind: 'member' },
      data: { changed: expect.arrayContaining(['password']) },
    });
  });

  it('goes on to the sign-in page, saying so, when the account’s ok URL is a path of the integrator’s site, or none', async () => {
    const { create, reset, submit, user } = await setup({ okUrl: '/welcome' });
    await create('bob');
    const done = await submit((await reset({ find_member_login: 'bob' })).reset_url, 'a-brand-new-horse');
    // A redirect (a reload shows no used link's page), its notice in the flash cookie.
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe(`/auth/${user}/`);
    expect(String(done.headers['set-cookie'])).toContain('member_flash=');
  });

  it('expires after the account’s reset lifetime, and changes nothing then', async () => {
    const { create, reset, login, open, submit } = await setup({ resetLifetimeSeconds: 600 });
    h().clock.set('2026-11-23T10:00:00Z');
    await create('carol');
    const { reset_url } = await reset({ find_member_login: 'carol' });
    h().clock.advance(HOUR / 6 + 1);
    const page = await open(reset_url);
    expect(page.status).toBe(410);
    expect(page.body).toContain('expired');
    expect((await submit(reset_url, 'a-brand-new-horse')).status).toBe(410);
    expect((await login('carol', 'correct-horse')).result).toBe('OK');
  });

  it('answers a forged or cut link with a page that says it is not valid', async () => {
    const { create, reset, open } = await setup();
    await create('dan');
    const { reset_url } = await reset({ find_member_login: 'dan' });
    const forged = reset_url.replace(/token=.{4}/, 'token=AAAA');
    for (const url of [forged, reset_url.slice(0, -3), `${PUBLIC_URL}/api2/reset-password/`, `${PUBLIC_URL}/api2/reset-password/?token=<script>`]) {
      const page = await open(url);
      expect(page.status).toBe(404);
      expect(page.body).toContain('Link not valid');
      expect(page.body).not.toContain('<script>');
    }
  });

  it('refuses a form posted from another site, and keeps the link', async () => {
    const { create, reset, login, submit, open } = await setup();
    await create('erin');
    const { reset_url } = await reset({ find_member_login: 'erin' });
    const crossSite = await submit(reset_url, 'a-brand-new-horse', 'a-brand-new-horse', {
      'sec-fetch-site': 'cross-site',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(crossSite.status).toBe(403);
    const oldBrowser = await submit(reset_url, 'a-brand-new-horse', 'a-brand-new-horse', {
      origin: 'https://evil.example',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(oldBrowser.status).toBe(403);
    expect((await login('erin', 'correct-horse')).result).toBe('OK');
    expect((await open(reset_url)).status).toBe(200);
  });

  it('applies the account’s password rules on the page, and keeps the link for another try', async () => {
    const { create, reset, login, submit } = await setup({ minPasswordLength: 12 });
    await create('fay', { _password: 'correct-horse-1' });
    const { reset_url } = await reset({ find_member_login: 'fay' });
    const short = await submit(reset_url, 'short-one');
    expect(short.status).toBe(400);
    expect(short.body).toContain('too short: at least 12 characters');
    const common = await submit(reset_url, 'password1234');
    expect(common.status).toBe(400);
    expect(common.body).toContain('breached');
    const mismatch = await submit(reset_url, 'a-long-new-horse', 'a-long-new-horsf');
    expect(mismatch.body).toContain('not the same');
    expect((await login('fay', 'correct-horse-1')).result).toBe('OK');
    expect((await submit(reset_url, 'a-long-new-horse')).status).toBe(303);
    expect((await login('fay', 'a-long-new-horse')).result).toBe('OK');
  });

  it('needs one selector that finds one member that is not Deleted, and the key', async () => {
    const { create, reset, user, apiKey } = await setup();
    await create('g1', { _email: 'shared@example.com' });
    await create('g2', { _email: 'shared@example.com' });
    await create('gone');
    expect((await h().post('/api2/update/', { user, api_key: apiKey, find_member_login: 'gone', status: 'D' })).json.result).toBe('OK');
    expect(await reset({ find_member_login: 'gone' })).toEqual({ result: 'ERROR', message: 'member not found' });
    expect(await reset({ find_member_email: 'shared@example.com' })).toEqual({ result: 'ERROR', message: 'the selector finds several members' });
    expect(await reset({ find_member_login: 'nobody' })).toEqual({ result: 'ERROR', message: 'member not found' });
    expect(await reset({ find_member_id: '*' })).toEqual({ result: 'ERROR', message: expect.stringMatching(/^invalid parameter: find_member_id/) });
    expect(await reset({})).toEqual({ result: 'ERROR', message: 'exactly one selector is required' });
    expect(await reset({ find_member_login: 'g1', send_mail: 'x' })).toEqual({ result: 'ERROR', message: 'invalid parameter: send_mail (must be 0 or 1)' });
    expect((await h().post('/api2/reset/', { user, api_key: 'wrong', find_member_login: 'g1' })).json).toEqual({ result: 'ERROR', message: 'wrong api key' });
    // Without a mail server, send_mail=1 only answers the link.
    expect((await reset({ find_member_login: 'g1', send_mail: '1' })).result).toBe('OK');
  });

  it('keeps ok URLs header-safe, and answers a changed password as changed whatever URL was kept', async () => {
    const { create, reset, submit, user, apiKey, account } = await setup({ okUrl: 'https://bücher.example/accès' });
    // Kept with its host in punycode and what else lies beyond ASCII percent-encoded, the same address to a browser.
    const settings = (await h().services.accounts.find(user))!.settings;
    expect(settings.okUrl).toBe('https://xn--bcher-kva.example/acc%C3%A8s');
    await create('ines', { set_urlok: 'https://site.example/bienvenue?nom=Inès' });
    expect((await h().store.members.findMemberByLogin(account.id, 'ines'))!.urlOk).toBe('https://site.example/bienvenue?nom=In%C3%A8s');
    // A lone surrogate (JSON can carry one; a form cannot) has no encoding: refused.
    const loneSurrogate = await h().request({
      url: '/api2/update/',
      headers: { 'content-type': 'application/json' },
      payload: `{"user":"${user}","api_key":"${apiKey}","find_member_login":"ines","urlok":"https://site.example/\\ud800"}`,
    });
    expect(loneSurrogate.json).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: urlok (an absolute http(s) URL or a path starting with /, at most 2048 characters, no backslash)',
    });
    // A URL kept before URLs were made header-safe: the change is answered, with an ASCII Location.
    const id = await h().store.members.insertMember(
      account.id,
      {
        login: 'olaf',
        email: 'olaf@example.com',
        passwordHash: 'x',
        status: 'A',
        regType: 'A',
        regAt: Date.now(),
        regIp: null,
        urlOk: 'https://site.example/velkommen/Ålesund',
        urlFail: null,
        timeExpiry: null,
        loginExpiry: null,
        profile: new Map(),
      },
      { actor: 'api' },
    );
    expect(id).toBeGreaterThan(0);
    const done = await submit((await reset({ find_member_login: 'olaf' })).reset_url, 'a-brand-new-horse');
    expect([done.status, done.headers.location]).toEqual([303, 'https://site.example/velkommen/%C3%85lesund']);
  });
});
