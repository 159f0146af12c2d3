/**
 * The member pages under /auth/ACCOUNT/, as a browser meets them (form posts with the headers
 * a browser sends, the session cookie carried from answer to answer), on both engines: the
 * original's page interface, sign-in and its redirects (never an open one), forms refused
 * from other sites, session fixation, registration (off, open, approval, its fields, its
 * honeypot and rate limits), the reminder's one answer, the profile, the password change,
 * my data, deletion, and /check for reverse proxies.
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp, PUBLIC_URL, type Reply } from '../support/app.js';
import { figure } from '../support/report.js';
import { peek } from '../support/peek.js';
import type { SettingsPatch } from '../../src/accounts/account.js';
import { parseRegistrationFields } from '../../src/accounts/registration-fields.js';

const SITE = 'https://www.site.test';
const OWN = { 'sec-fetch-site': 'same-origin', origin: PUBLIC_URL };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describeEachEngineApp('the member pages', (h) => {
  /** A browser: its cookie for the account's pages, kept from answer to answer. */
  async function setup(settings: SettingsPatch = {}) {
    const { user, apiKey, account } = await h().newAccount({ returnOrigins: [SITE], ...settings });
    let cookie: string | undefined;
    // The pages' other cookies (the form token, what a form's redirect leaves for its page).
    const others = new Map<string, string>();
    const remember = (reply: Reply) => {
      const set = [reply.headers['set-cookie'] ?? []].flat().map(String);
      for (const line of set) {
        const match = new RegExp(`^member_${user.replace(/\./g, '\\.')}=([^;]*)`).exec(line);
        if (match) cookie = match[1] === '' ? undefined : match[1];
        const other = /^(member_form|member_flash)=([^;]*)/.exec(line);
        if (other?.[2] === '') others.delete(other[1]!);
        else if (other) others.set(other[1]!, other[2]!);
      }
      return reply;
    };
    const headers = (extra: Record<string, string> = {}) => {
      const jar = [...(cookie ? [`member_${user}=${cookie}`] : []), ...[...others].map(([name, value]) => `${name}=${value}`)];
      return { ...(jar.length > 0 ? { cookie: jar.join('; ') } : {}), ...extra };
    };
    /**
     * A redirect back to the pages that carries an outcome (post-redirect-get, a sign-out's
     * notice) is followed as the browser follows it: the page it leads to is the answer,
     * `posted` the first answer's own status.
     */
    const follow = async (answer: Reply): Promise<Reply & { posted: number }> => {
      const location = answer.headers.location === undefined ? '' : String(answer.headers.location);
      const flashed = [answer.headers['set-cookie'] ?? []].flat().some((line) => String(line).startsWith('member_flash='));
      if (answer.status !== 303 || !flashed || !location.startsWith(`/auth/${user}/`)) return { ...answer, posted: answer.status };
      const followed = remember(await h().request({ method: 'GET', url: location.replace(/#.*$/, ''), headers: headers() }));
      return { ...followed, posted: answer.status };
    };
    const page = async (path: string, extra: Record<string, string> = {}) =>
      follow(remember(await h().request({ method: 'GET', url: `/auth/${user}/${path}`, headers: headers(extra) })));
    /** A form posted as the browser posts it, its redirect followed (see follow). */
    const submit = async (path: string, params: Record<string, string>, extra: Record<string, string> = OWN) =>
      follow(remember(await h().request({ url: `/auth/${user}/${path}`, payload: new URLSearchParams(params).toString(), headers: headers({ ...FORM, ...extra }) })));
    const create = async (params: Record<string, string>) => {
      const reply = await h().post('/api2/create/', { user, api_key: apiKey, _email: 'm@example.com', _password: 'correct-horse-9', ...params });
      expect(reply.json.result).toBe('OK');
      return reply.json;
    };
    const apiLogin = async (login: string, password = 'correct-horse-9') => (await h().post('/api2/login/', { user, login, password })).json;
    const check = async () => h().request({ method: 'GET', url: `/auth/${user}/check`, headers: headers() });
    const sessionApi = async (id: string) =>
      (await h().request({ method: 'GET', url: `/auth/${user}/?mode=API&action=session&id=${encodeURIComponent(id)}` })).body;
    return {
      user,
      apiKey,
      account,
      page,
      submit,
      create,
      apiLogin,
      check,
      sessionApi,
      cookie: () => cookie,
      setCookie: (value: string | undefined) => (cookie = value),
    };
  }

  it('opens every page of the original’s interface, ignoring parameters it does not know', async () => {
    const b = await setup({ registration: 'open' });
    for (const [query, marker] of [
      ['', 'name="password"'],
      ['?action=ppfail&cache=123', 'name="password"'],
      [`?action=ppreturn&url=${encodeURIComponent(`${SITE}/a`)}&x=1`, `value="${SITE}/a"`],
      ['?action=lost&lang=x', 'name="who"'],
      ['?action=reg', 'name="confirm"'],
      ['?action=logout', 'signed out'],
    ] as const) {
      const reply = await b.page(query);
      expect(reply.status, query).toBe(200);
      expect(reply.body, query).toContain(marker);
      // Framed by the account's allowed origin only (the site may show its sign-in in a frame).
      expect(reply.headers['content-security-policy'], query).toContain(`frame-ancestors 'self' ${SITE};`);
      expect(reply.headers['x-frame-options']).toBeUndefined();
      expect(reply.headers['cache-control']).toBe('no-store');
      expect(reply.body).not.toContain('<script');
    }
    const closed = await (await setup()).page('?action=reg');
    expect(closed.status).toBe(200);
    expect(closed.body).toContain('Registration is closed');
    // A name no account has: the sign-in page, as an account's (nothing tells which names exist).
    const unknown = await h().request({ method: 'GET', url: '/auth/no-such-account/' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toContain('name="password"');
    expect((await h().request({ method: 'GET', url: '/auth/%E0%A4%A/x' })).status).toBeLessThan(500);
    const unreadable = await b.submit('', { action: 'login', login: 'a\u0000b', password: 'x' });
    expect([unreadable.status, unreadable.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
    const missing = await b.page('nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain(`href="/auth/${b.user}/"`);
    // A form's address opened by GET leads to its page.
    expect((await b.page('register')).headers.location).toBe(`/auth/${b.user}/?action=reg`);
    expect((await b.page('lost')).headers.location).toBe(`/auth/${b.user}/?action=lost`);
  });

  it('signs in as /login/ does, lands on the member’s own urlok, and the session is the same one /session/ and the page interface check', async () => {
    const b = await setup();
    const { id } = await b.create({ _login: 'alice', set_urlok: 'https://alice.site.test/home' });
    const wrong = await b.submit('', { action: 'login', login: 'alice', password: 'nope' });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toContain('Wrong login or password.');
    expect(wrong.body).toContain('value="alice"');
    expect(b.cookie()).toBeUndefined();

    const ok = await b.submit('', { action: 'login', login: 'alice', password: 'correct-horse-9' });
    // The member's own URL is not on the form's policy: a page that goes on (meta refresh and a link).
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('content="0;url=https://alice.site.test/home"');
    const cookie = [ok.headers['set-cookie']]
      .flat()
      .map(String)
      .find((line) => line.startsWith(`member_${b.user}=`))!;
    expect(cookie).toMatch(/; Path=\/; HttpOnly; SameSite=Lax/);
    expect(cookie).not.toContain('Max-Age');
    expect(cookie).not.toContain('Domain');
    const session = b.cookie()!;
    expect(await b.sessionApi(session)).toBe('OK');
    expect((await h().post('/api2/session/', { user: b.user, session })).json).toMatchObject({ result: 'OK', login: 'alice', id: String(id) });
    const checked = await b.check();
    expect(checked.status).toBe(200);
    expect(checked.headers).toMatchObject({ 'x-member-id': String(id), 'x-member-login': 'alice', 'x-member-email': 'm@example.com' });

    // The account's ok URL, on an allowed origin: a redirect.
    await h().services.accounts.change(b.user, { okUrl: `${SITE}/welcome` });
    const other = await b.create({ _login: 'bob' });
    b.setCookie(undefined);
    const remembered = await b.submit('', { action: 'login', login: 'bob', password: 'correct-horse-9', remember: '1' });
    expect(remembered.status).toBe(303);
    expect(remembered.headers.location).toBe(`${SITE}/welcome`);
    expect(String(remembered.headers['set-cookie'])).toContain(`Max-Age=${30 * 86400}`);
    expect(other.id).toBeDefined();

    // Another site's image or frame asks first (a button, not the request, signs out).
    const bobSession = b.cookie()!;
    const asked = await b.page('?action=logout', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' });
    expect(asked.body).toContain('Do you want to sign out?');
    expect(await b.sessionApi(bobSession)).toBe('OK');
    // Signed out by the original's link from the site: the session ends everywhere.
    const out = await b.page('?action=logout');
    expect(out.posted).toBe(303);
    expect(out.body).toContain('You are signed out.');
    expect(out.body).toContain('<h1>Sign in</h1>');
    expect(b.cookie()).toBeUndefined();
    expect(await b.sessionApi(bobSession)).toBe('FAIL');
    expect(await b.sessionApi(session)).toBe('OK');
    expect(await b.sessionApi('x'.repeat(300))).toBe('FAIL');
  });

  it('sends a browser back only to an allowed origin: never an open redirect', async () => {
    const b = await setup();
    await b.create({ _login: 'carol' });
    for (const wanted of [
      'https://evil.test/steal',
      '//evil.test/steal',
      'javascript:alert(1)',
      `${SITE}.evil.test/x`,
      `https://www.site.test@evil.test/`,
      'data:text/html,hi',
      `/\\evil.test`,
    ]) {
      const shown = await b.page(`?action=ppreturn&url=${encodeURIComponent(wanted)}`);
      expect(shown.body, wanted).toContain('not one this site allows');
      expect(shown.body, wanted).not.toContain('name="return"');
      b.setCookie(undefined);
      const posted = await b.submit('', { action: 'login', login: 'carol', password: 'correct-horse-9', return: wanted });
      expect(posted.status, wanted).toBe(303);
      expect(posted.headers.location, wanted).toBe(`/auth/${b.user}/`);
    }
    b.setCookie(undefined);
    const back = await b.submit('', { action: 'login', login: 'carol', password: 'correct-horse-9', return: `${SITE}/members/page?x=1` });
    expect(back.headers.location).toBe(`${SITE}/members/page?x=1`);
    // Already signed in: the page asked for at once.
    const again = await b.page(`?action=ppfail&return=${encodeURIComponent(`${SITE}/other`)}`);
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(`${SITE}/other`);
    // A url written last and not encoded (as nginx writes it) comes back whole, its query too.
    b.setCookie(undefined);
    const bare = await b.page(`?action=ppreturn&url=${SITE}/page?a=1&b=2`);
    expect(bare.body).toContain(`value="${SITE}/page?a=1&amp;b=2"`);
    // The page's own parameters stay its own: none is read as the sign-in page's.
    const smuggled = await b.page(`?action=ppreturn&url=${SITE}/r?x=1&mode=API&id=abc`);
    expect(smuggled.headers['content-type']).toContain('text/html');
    expect(smuggled.body).toContain(`value="${SITE}/r?x=1&amp;mode=API&amp;id=abc"`);
  });

  it('takes the sign-in form pasted on an allowed origin’s page, and no form from anywhere else', async () => {
    const b = await setup({ failUrl: `${SITE}/failed` });
    await b.create({ _login: 'dan' });
    const pasted = { action: 'login', login: 'dan', password: 'correct-horse-9', remember: '1', hide: '' };
    // From elsewhere: nobody signed in, the sign-in page asks to sign in here.
    const evil = await b.submit('', pasted, { 'sec-fetch-site': 'cross-site', origin: 'https://evil.test' });
    expect(evil.body).toContain('to be safe, sign in here');
    expect(b.cookie()).toBeUndefined();
    const noOrigin = await b.submit('', pasted, { 'sec-fetch-site': 'cross-site' });
    expect(noOrigin.body).toContain('to be safe, sign in here');
    expect(b.cookie()).toBeUndefined();
    const wrongPassword = await b.submit('', { ...pasted, password: 'nope' }, { 'sec-fetch-site': 'same-site', origin: SITE });
    expect(wrongPassword.status).toBe(303);
    expect(wrongPassword.headers.location).toBe(`${SITE}/failed`);
    const fromSite = await b.submit('', pasted, { 'sec-fetch-site': 'same-site', origin: SITE });
    expect(fromSite.status).toBe(303);
    expect(b.cookie()).toBeDefined();
    // Every other form comes from these pages only, even from an allowed origin.
    for (const path of ['register', 'lost', 'profile', 'password', 'delete', 'logout']) {
      const reply = await b.submit(
        path,
        { who: 'dan', email: 'x@example.com', current: 'correct-horse-9', delete_password: 'correct-horse-9' },
        { 'sec-fetch-site': 'same-site', origin: SITE },
      );
      expect(reply.status, path).toBe(403);
    }
    expect(await b.sessionApi(b.cookie()!)).toBe('OK');
    const member = await h().services.members.findOne(b.account, 'dan');
    expect(member?.member.status).toBe('A');
  });

  it('shares the sign-in with the subdomains of the account’s cookie domain, when the pages are in it', async () => {
    const b = await setup({ cookieDomain: 'site.test' });
    await b.create({ _login: 'hal' });
    const inDomain = await h().request({
      url: `/auth/${b.user}/`,
      payload: 'action=login&login=hal&password=correct-horse-9',
      headers: { ...FORM, ...OWN, host: 'members.site.test' },
    });
    expect(String(inDomain.headers['set-cookie'])).toContain('; Domain=site.test');
    const elsewhere = await h().request({
      url: `/auth/${b.user}/`,
      payload: 'action=login&login=hal&password=correct-horse-9',
      headers: { ...FORM, ...OWN, host: 'members.other.test' },
    });
    expect(String(elsewhere.headers['set-cookie'])).not.toContain('Domain');
  });

  it('gives a new session id at every sign-in and ends the one the browser held (no fixation)', async () => {
    const b = await setup();
    await b.create({ _login: 'erin' });
    // A session planted in the browser (an attacker's own, from /login/).
    const planted = (await b.apiLogin('erin')).session as string;
    b.setCookie(planted);
    expect((await b.page('?action=ppfail')).status).toBe(200);
    const signedIn = await b.submit('', { action: 'login', login: 'erin', password: 'correct-horse-9' });
    expect(signedIn.status).toBe(303);
    expect(b.cookie()).not.toBe(planted);
    expect(await b.sessionApi(planted)).toBe('FAIL');
    expect(await b.sessionApi(b.cookie()!)).toBe('OK');
  });

  it('keeps a member signed in past the idle lifetime when asked, until the absolute one', async () => {
    const b = await setup({ sessionIdleSeconds: 3600, sessionLifetimeSeconds: 7 * 86400 });
    await b.create({ _login: 'gus' });
    h().clock.set('2026-11-26T10:00:00Z');
    await b.submit('', { action: 'login', login: 'gus', password: 'correct-horse-9', remember: '1' });
    const kept = b.cookie()!;
    b.setCookie(undefined);
    await b.submit('', { action: 'login', login: 'gus', password: 'correct-horse-9' });
    const plain = b.cookie()!;
    h().clock.set('2026-11-26T12:00:00Z');
    expect(await b.sessionApi(plain)).toBe('FAIL');
    expect(await b.sessionApi(kept)).toBe('OK');
    h().clock.set('2026-12-03T10:00:01Z');
    expect(await b.sessionApi(kept)).toBe('FAIL');
  });

  it('locks a member after the account’s threshold on the page as on the API', async () => {
    const b = await setup({ lockout: { threshold: 3, stepSeconds: 600, maxSeconds: 600, resetSeconds: 3600 } });
    await b.create({ _login: 'finn' });
    for (let i = 0; i < 3; i++)
      expect((await b.submit('', { action: 'login', login: 'finn', password: `wrong-${i}` })).body).toContain('Wrong login or password.');
    // Locked: a wrong password is told what any is; only the right one learns of the lock, and for how long.
    expect((await b.submit('', { action: 'login', login: 'finn', password: 'wrong-again' })).body).toContain('Wrong login or password.');
    const locked = await b.submit('', { action: 'login', login: 'finn', password: 'correct-horse-9' });
    expect(locked.body).toMatch(/signing in is locked after too many wrong attempts\. Try again in (9|10) min\./);
    expect(b.cookie()).toBeUndefined();
    const lockout = await h().services.logins.lockoutOf(b.account, (await h().services.members.findOne(b.account, 'finn'))!.member.id);
    expect(lockout.lockedUntil).not.toBeNull();
  });

  it('registers: closed, open (Active, Free, signed in), approval (Suspended, told), with the account’s fields checked', async () => {
    const parsed = parseRegistrationFields('first_name*:text:First name;plan:choice(gold|silver):Plan;age:number;terms*:checkbox:I accept the terms');
    if (!parsed.ok) throw new Error(parsed.reason);
    const b = await setup({ registration: 'open', registrationFields: parsed.fields, okUrl: `${SITE}/welcome` });
    const form = {
      login: 'gina',
      email: 'gina@example.com',
      password: 'a-long-password-1',
      confirm: 'a-long-password-1',
      f_first_name: 'Gina',
      f_plan: 'gold',
      f_age: '33',
      f_terms: 'yes',
    };
    const refused = await b.submit('register', { ...form, f_first_name: '', f_plan: 'platinum', f_age: 'old', f_terms: '', confirm: 'other' });
    // Posted, then redirected to the page that says every problem (post, redirect, get).
    expect([refused.posted, refused.status]).toEqual([303, 200]);
    for (const text of ['This field is required.', 'Choose one of the listed values.', 'This is not a number.', 'The two passwords are not the same.'])
      expect(refused.body).toContain(text);
    expect(refused.body).toContain('value="gina"');
    expect(refused.body).not.toContain('a-long-password-1');
    const common = await b.submit('register', { ...form, password: 'password123', confirm: 'password123' });
    expect(common.body).toContain('on lists of breached passwords');

    const made = await b.submit('register', form);
    expect(made.status).toBe(303);
    expect(made.headers.location).toBe(`${SITE}/welcome`);
    expect(await b.sessionApi(b.cookie()!)).toBe('OK');
    const gina = await h().services.members.findOne(b.account, 'gina');
    expect(gina?.member).toMatchObject({ status: 'A', regType: 'F', email: 'gina@example.com' });
    expect(Object.fromEntries(gina!.profile)).toEqual({ first_name: 'Gina', plan: 'gold', age: '33', terms: 'yes' });
    const events = await h().services.events.ofMember(b.account.id, gina!.member.id, 10);
    expect(events.map((event) => event.type).sort()).toEqual(expect.arrayContaining(['member.created', 'member.registered']));
    expect(events.find((event) => event.type === 'member.registered')).toMatchObject({ origin: { actor: 'member' }, data: { approval: false } });
    expect((await b.submit('register', form)).body).toContain('This login is taken');

    // Approval: Suspended, cannot sign in until an operator approves.
    const a = await setup({ registration: 'approval' });
    const waiting = await a.submit('register', { login: 'hugo', email: 'hugo@example.com', password: 'a-long-password-1', confirm: 'a-long-password-1' });
    expect(waiting.body).toContain('waits for approval');
    expect(a.cookie()).toBeUndefined();
    const hugo = await h().services.members.findOne(a.account, 'hugo');
    expect(hugo?.member).toMatchObject({ status: 'S', regType: 'F' });
    expect((await a.submit('', { action: 'login', login: 'hugo', password: 'a-long-password-1' })).body).toContain('suspended, or waits for approval');
    const told = await h().services.events.ofMember(a.account.id, hugo!.member.id, 10);
    expect(told.find((event) => event.type === 'member.registered')?.data).toEqual({ approval: true });

    // A robot fills the hidden field: thanked, nothing made.
    const robot = await a.submit('register', {
      login: 'robot',
      email: 'r@example.com',
      password: 'a-long-password-1',
      confirm: 'a-long-password-1',
      website: 'http://spam.test',
    });
    expect(robot.status).toBe(200);
    expect(await h().services.members.findOne(a.account, 'robot')).toBeUndefined();
  });

  it('holds registrations to their rate per address', async () => {
    const b = await setup({ registration: 'open' });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      b.setCookie(undefined);
      const reply = await b.submit('register', {
        login: `rate${i}`,
        email: `rate${i}@example.com`,
        password: 'a-long-password-1',
        confirm: 'a-long-password-1',
      });
      statuses.push(reply.posted);
      if (reply.posted === 429) expect(reply.body).toContain('Too many attempts');
    }
    expect(statuses.filter((status) => status === 303)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });

  it('answers the reminder the same whether or not anyone matches, and sends a link to a member that does', async () => {
    const b = await setup();
    await b.create({ _login: 'ivy', _email: 'ivy@example.com' });
    const known = await b.submit('lost', { who: 'ivy@example.com' });
    const unknown = await b.submit('lost', { who: 'nobody@example.com' });
    const byLogin = await b.submit('lost', { who: 'ivy' });
    expect(known.status).toBe(200);
    expect(unknown.body).toBe(known.body);
    expect(byLogin.body).toBe(known.body);
    const times: Record<string, number[]> = { known: [], unknown: [] };
    for (let i = 0; i < 3; i++) {
      for (const [name, who] of [
        ['known', 'ivy'],
        ['unknown', 'nobody'],
      ] as const) {
        const started = performance.now();
        await b.submit('lost', { who });
        times[name]!.push(performance.now() - started);
      }
    }
    figure('member pages: reminder ms (known vs unknown)', times);
    // The link is made after the answer: wait for it.
    const links = () => peek(h().database, (db) => db.selectFrom('reset_links').select('member_id').where('account_id', '=', b.account.id).execute());
    await expect.poll(async () => (await links()).length).toBeGreaterThanOrEqual(2);
  });

  it('lets a member change its profile and password (other sessions end), download its data, and delete its account', async () => {
    const parsed = parseRegistrationFields('city:text:City;plan!:choice(gold|silver):Plan;terms*:checkbox:Terms');
    if (!parsed.ok) throw new Error(parsed.reason);
    const b = await setup({ registrationFields: parsed.fields });
    const { id } = await b.create({ _login: 'jack', _email: 'jack@example.com', city: 'Lyon' });
    await b.submit('', { action: 'login', login: 'jack', password: 'correct-horse-9' });
    const profile = await b.page('');
    expect(profile.body).toContain('Your profile');
    expect(profile.body).toContain('value="Lyon"');
    expect(profile.body).not.toContain('f_terms');
    // A field asked once (`!`) is not the member's to change: a posted value is ignored.
    expect(profile.body).not.toContain('f_plan');
    await b.submit('profile', { email: 'jack@example.com', f_city: 'Lyon', f_plan: 'gold' });
    expect((await h().services.members.findOne(b.account, 'jack'))?.profile.has('plan')).toBe(false);

    const bad = await b.submit('profile', { email: 'not-an-address', f_city: 'Paris' });
    expect(bad.posted).toBe(303);
    expect(bad.body).toContain('This is not an e-mail address.');
    // A new address takes the password.
    const unconfirmed = await b.submit('profile', { email: 'jack@new.example.com', f_city: 'Paris' });
    expect(unconfirmed.posted).toBe(303);
    expect(unconfirmed.body).toContain('This is not your current password.');
    const saved = await b.submit('profile', { email: 'jack@new.example.com', f_city: 'Paris', email_password: 'correct-horse-9' });
    expect(saved.body).toContain('Your profile is saved.');
    let jack = await h().services.members.findOne(b.account, 'jack');
    expect(jack?.member.email).toBe('jack@new.example.com');
    expect(jack?.profile.get('city')).toBe('Paris');
    const cleared = await b.submit('profile', { email: 'jack@new.example.com', f_city: '' });
    expect(cleared.status).toBe(200);
    expect((await h().services.members.findOne(b.account, 'jack'))?.profile.has('city')).toBe(false);

    const elsewhere = (await b.apiLogin('jack')).session as string;
    const loginsBefore = (await h().services.members.findOne(b.account, 'jack'))!.member.loginCount;
    const wrongCurrent = await b.submit('password', { current: 'nope-nope', password: 'a-new-password-2', confirm: 'a-new-password-2' });
    expect(wrongCurrent.body).toContain('This is not your current password.');
    const before = b.cookie();
    const changed = await b.submit('password', { current: 'correct-horse-9', password: 'a-new-password-2', confirm: 'a-new-password-2' });
    expect(changed.body).toContain('Your password is changed');
    expect(await b.sessionApi(elsewhere)).toBe('FAIL');
    expect(b.cookie()).not.toBe(before);
    expect(await b.sessionApi(b.cookie()!)).toBe('OK');
    // The new session is not a login: nothing counted.
    expect((await h().services.members.findOne(b.account, 'jack'))!.member.loginCount).toBe(loginsBefore);
    expect((await b.apiLogin('jack', 'a-new-password-2')).result).toBe('OK');

    const data = await b.page('my-data');
    expect(data.headers['content-disposition']).toContain('attachment');
    const document = JSON.parse(data.body);
    expect(document).toMatchObject({ account: b.user, member: { id: String(id), login: 'jack', email: 'jack@new.example.com' } });
    expect(data.body).not.toMatch(/argon2|password_hash/);

    const refused = await b.submit('delete', { delete_password: 'wrong-one' });
    expect(refused.posted).toBe(303);
    expect(refused.body).toContain('This is not your current password.');
    const deleted = await b.submit('delete', { delete_password: 'a-new-password-2' });
    expect(deleted.posted).toBe(303);
    expect(deleted.body).toContain('Your membership has ended and you are signed out.');
    expect(b.cookie()).toBeUndefined();
    jack = await h().services.members.findOne(b.account, 'jack');
    expect(jack?.member.status).toBe('D');
    const events = await h().services.events.ofMember(b.account.id, id as unknown as number, 20);
    expect(events.find((event) => event.type === 'member.deleted')?.origin.actor).toBe('member');
  });

  it('answers the original’s protection script and the proxies’ check', async () => {
    const b = await setup({ checkFields: ['plan'] });
    await b.create({ _login: 'kim', plan: 'gold' });
    await b.create({ _login: 'lee', plan: 'silver' });
    const anonymous = await b.page('?action=pp&t=123');
    expect(anonymous.headers['content-type']).toContain('application/javascript');
    expect(anonymous.body).toContain("var auth_res='fail'");
    expect(anonymous.body).toContain(`/auth/${b.user}/?action=ppfail&return=`);
    expect((await b.check()).status).toBe(401);

    await b.submit('', { action: 'login', login: 'kim', password: 'correct-horse-9' });
    const script = await b.page('?action=pp');
    expect(script.body).toBe(`var auth_res='ok';var usid=${JSON.stringify(b.cookie())};\n`);
    const checked = await b.check();
    expect(checked.headers).toMatchObject({ 'x-member-login': 'kim', 'x-member-field-plan': 'gold' });
    const gold = await h().request({ method: 'GET', url: `/auth/${b.user}/check?require=plan:gold`, headers: { cookie: `member_${b.user}=${b.cookie()}` } });
    expect(gold.status).toBe(200);
    const platinum = await h().request({
      method: 'GET',
      url: `/auth/${b.user}/check?require=plan:platinum`,
      headers: { cookie: `member_${b.user}=${b.cookie()}` },
    });
    expect(platinum.status).toBe(403);

    // Suspended meanwhile: refused at the next check.
    await h().post('/api2/update/', { user: b.user, api_key: b.apiKey, find_member_login: 'kim', status: 'S' });
    expect((await b.check()).status).toBe(401);
  });

  it('draws the pages in the account’s own layout, its style blocks and the site’s assets allowed, no script', async () => {
    const b = await setup({ pageName: 'The Club', pageLogoUrl: 'https://cdn.site.test/logo.png' });
    const accounts = h().services.accounts;
    expect(await accounts.setPageTemplate(b.user, '<html><body>{{content}}</body></html>')).toEqual({
      kind: 'invalid',
      reason: '{{head}} must appear exactly once',
    });
    expect(await accounts.setPageTemplate(b.user, '<head>{{head}}</head>{{content}}<script>alert(1)</script>')).toMatchObject({ kind: 'invalid' });
    expect(await accounts.setPageTemplate(b.user, '{{head}}{{content}}{{nope}}')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('{{nope}}'),
    });
    expect(await accounts.setPageTemplate(b.user, '{{head}}<style>a{color:{{accent}}}</style>{{content}}')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('var(--accent)'),
    });
    const layout = `<!doctype html><html lang="{{lang}}"><head>{{head}}<title>{{title}}</title><link rel="stylesheet" href="${SITE}/site.css"><style>.site{color:#333}</style></head>
<body><div class="site"><nav>{{logo}} {{name}} <a href="${SITE}/">Home</a></nav><h1>{{title}}</h1>{{content}}<footer>© {{name}}</footer></div></body></html>`;
    expect(await accounts.setPageTemplate(b.user, layout)).toEqual({ kind: 'set' });
    const page = await b.page('');
    expect(page.body).toContain(`<nav><img src="https://cdn.site.test/logo.png" alt="The Club"> The Club <a href="${SITE}/">Home</a></nav><h1>Sign in</h1>`);
    expect(page.body).toContain('<footer>© The Club</footer>');
    expect(page.body).toContain('name="password"');
    const csp = String(page.headers['content-security-policy']);
    // The pages' stylesheet (a file: 'self'), the accent, the layout's own style block, the site's.
    expect(csp).toMatch(new RegExp(`style-src 'self' 'sha256-[^']+' 'sha256-[^']+' ${SITE.replace(/\./g, '\\.')}`));
    expect(csp).toContain(`img-src https://cdn.site.test ${SITE}`);
    expect(csp).not.toContain('script-src');
    await accounts.setPageTemplate(b.user, undefined);
    expect((await b.page('')).body).not.toContain('<footer>');
  });

  it('speaks the browser’s language, or the account’s', async () => {
    const b = await setup();
    expect((await b.page('', { 'accept-language': 'fr-CA,fr;q=0.9,en;q=0.5' })).body).toContain('<h1>Connexion</h1>');
    expect((await b.page('', { 'accept-language': 'de-DE,de;q=0.9' })).body).toContain('<h1>Sign in</h1>');
    const french = await setup({ pageLanguage: 'fr', pageName: 'Le Club <b>', pageAccent: '#0f766e' });
    const page = await french.page('', { 'accept-language': 'en' });
    expect(page.body).toContain('lang="fr"');
    expect(page.body).toContain('Le Club &lt;b&gt;');
    expect(page.body).toContain('--accent:#0f766e');
  });
});
