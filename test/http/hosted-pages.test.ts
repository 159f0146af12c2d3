/**
 * What public code written against the hosted original sends to the member pages and the API,
 * sent here exactly as it sends it, on both engines: a create without an address (a Discord
 * bot), account names with their owner's capitals, the original's pasted registration form
 * (`action=reg2`), its older sign-in address (`/cgi-bin/auth.fcgi`), a sign-in page shown in
 * the site's frame, `/regformcheck.js`, a sign-out link from a staff portal, a sign-in form
 * pasted on a site the account does not know, and a link to a closed registration.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp, type Harness, type Reply } from '../support/app.js';
import { form as consoleForm, signedIn } from '../support/console.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';
import { parseRegistrationFields } from '../../src/accounts/registration-fields.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const SITE = 'https://www.club.test';

/** A form post as a browser sends it from a page of `origin` (another site's page: cross-site). */
const postFrom = (h: Harness, url: string, params: Record<string, string>, origin: string | undefined, extra: Record<string, string> = {}) =>
  h.request({
    url,
    payload: new URLSearchParams(params).toString(),
    headers: { ...FORM, ...(origin ? { origin, 'sec-fetch-site': 'cross-site' } : { 'sec-fetch-site': 'same-origin' }), ...extra },
  });

const cookieOf = (reply: Reply, name: string) =>
  [reply.headers['set-cookie'] ?? []]
    .flat()
    .map(String)
    .find((line) => line.startsWith(`${name}=`) && !line.startsWith(`${name}=;`));

describeEachEngineApp('code written against the hosted original, on the member pages', (h) => {
  let smtp: MailCatcher;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });

  it('creates a member without an e-mail address (a Discord bot’s GET), which then updates and signs in; an account may require one', async () => {
    const { user, apiKey } = await h().newAccount({ smtpUrl: smtp.url, mailFrom: 'club@example.com' });
    const created = await h().request({ method: 'GET', url: `/api2/create?user=${user}&api_key=${apiKey}&_login=discord-42&password=bot-password-1` });
    expect(created.json).toMatchObject({ result: 'OK', login: 'discord-42', password: 'bot-password-1' });
    expect((await h().request({ method: 'GET', url: `/api2/update?user=${user}&api_key=${apiKey}&find_member_login=discord-42&level=3` })).json.result).toBe(
      'OK',
    );
    expect((await h().request({ method: 'GET', url: `/api2/login?user=${user}&login=discord-42&password=bot-password-1` })).json.result).toBe('OK');
    const listed = await h().post('/api2/list/', { user, api_key: apiKey, record: '{login}{email}{level}' });
    expect(listed.json.members).toEqual([{ login: 'discord-42', email: '', level: '3' }]);
    // A welcome mail asked for: said not sent, nothing queued.
    const welcome = await h().post('/api2/create/', { user, api_key: apiKey, _login: 'no-mail', send_welcome: '1' });
    expect(welcome.json).toMatchObject({ result: 'OK', mail: 'not sent: no address' });
    expect((await h().services.store.mail.counts((await h().services.accounts.find(user))!.id)).pending).toBe(0);
    // The seed's strict rule, per account.
    expect((await h().services.accounts.change(user, { requireEmail: true })).kind).toBe('ok');
    const strict = await h().request({ method: 'GET', url: `/api2/create?user=${user}&api_key=${apiKey}&_login=discord-43` });
    expect(strict.json).toEqual({ result: 'ERROR', message: 'missing parameter: _email' });
  });

  it('keeps an account name’s capitals and finds it whatever the case: the API’s user, the pages’ address, the console’s', async () => {
    const name = `Toon${Date.now().toString(36)}`;
    const created = await h().services.accounts.create(name);
    if (created.kind !== 'created') throw new Error(created.kind);
    expect(created.account.name).toBe(name);
    expect((await h().services.accounts.create(name.toUpperCase())).kind).toBe('name-taken');
    for (const [i, spelling] of [name, name.toLowerCase(), name.toUpperCase()].entries()) {
      const answer = await h().post('/api2/create/', {
        user: spelling,
        api_key: created.apiKey,
        _login: `m${i}-${name}`,
        _email: 'm@example.com',
        _password: 'a-long-password-1',
      });
      expect(answer.json, spelling).toMatchObject({ result: 'OK' });
    }
    const lost = await h().request({ method: 'GET', url: `/auth/${name}/?action=lost` });
    expect([lost.status, lost.body.includes('name="who"')]).toEqual([200, true]);
    const lower = await h().request({ method: 'GET', url: `/auth/${name.toLowerCase()}/?action=lost` });
    const comparable = (body: string) => body.replaceAll(name.toLowerCase(), name).replace(/name="form_token" value="[^"]*"/g, '');
    expect(comparable(lower.body)).toBe(comparable(lost.body));
    const signIn = await postFrom(h(), `/auth/${name.toLowerCase()}/`, { action: 'login', login: `m0-${name}`, password: 'a-long-password-1' }, undefined);
    expect(signIn.status).toBe(303);
    const cookie = await signedIn(h(), `owner-${name.toLowerCase()}@example.com`, name, 'owner');
    expect((await h().request({ method: 'GET', url: `/admin/accounts/${name.toLowerCase()}/members`, headers: { cookie } })).status).toBe(200);
  });

  it('takes the original’s pasted registration form (action=reg2) from its pages and the allowed origins, and fills the page for one posted elsewhere', async () => {
    const parsed = parseRegistrationFields('first-name:text:First name;last_name:text:Last name');
    if (!parsed.ok) throw new Error(parsed.reason);
    const { user } = await h().newAccount({ registration: 'open', returnOrigins: [SITE], registrationFields: parsed.fields });
    const pasted = (login: string) => ({
      action: 'reg2',
      regcode: '',
      _email: `${login}@example.com`,
      _login: login,
      _password: 'a-long-password-1',
      _password2: 'a-long-password-1',
      '_first-name': 'Anna',
      '_last-name': 'Smit',
    });
    // From the site that pasted it: a member, signed in.
    const fromSite = await postFrom(h(), `/auth/${user}/`, pasted('anna'), SITE);
    expect(fromSite.status).toBe(303);
    expect(cookieOf(fromSite, `member_${user}`)).toBeDefined();
    const anna = await h().services.members.findOne((await h().services.accounts.find(user))!, 'anna');
    expect(anna?.member).toMatchObject({ status: 'A', regType: 'F', email: 'anna@example.com' });
    expect(Object.fromEntries(anna!.profile)).toEqual({ 'first-name': 'Anna', last_name: 'Smit' });
    // From elsewhere: nothing made; the registration page, filled, without the password.
    const elsewhere = await postFrom(h(), `/auth/${user}/`, pasted('bert'), 'https://copy.elsewhere.test');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toContain('value="bert"');
    expect(elsewhere.body).toContain('value="Anna"');
    expect(elsewhere.body).toContain('choose your password here');
    expect(elsewhere.body).not.toContain('a-long-password-1');
    expect(await h().services.members.findOne((await h().services.accounts.find(user))!, 'bert')).toBeUndefined();
    // Closed or waiting for approval: as the pages' own form.
    const closed = await h().newAccount({ registration: 'off', returnOrigins: [SITE] });
    expect((await postFrom(h(), `/auth/${closed.user}/`, pasted('carl'), SITE)).body).toContain('Registration is closed');
    const approval = await h().newAccount({ registration: 'approval', returnOrigins: [SITE] });
    const waiting = await postFrom(h(), `/auth/${approval.user}/`, pasted('dora'), SITE);
    expect(waiting.status).toBe(303);
    expect(waiting.headers.location).toBe(`/auth/${approval.user}/?action=reg`);
  });

  it('signs in through the original’s older address, /cgi-bin/auth.fcgi, as through /auth/ACCOUNT/', async () => {
    const { user, apiKey } = await h().newAccount({ returnOrigins: [SITE] });
    await h().post('/api2/create/', { user, api_key: apiKey, _login: 'eva', _email: 'eva@example.com', _password: 'a-long-password-1' });
    const fields = { action: 'login', user, hide: '', login: 'eva', password: 'a-long-password-1' };
    const signedIn = await postFrom(h(), '/cgi-bin/auth.fcgi', fields, SITE);
    expect(signedIn.status).toBe(303);
    expect(cookieOf(signedIn, `member_${user}`)).toBeDefined();
    const wrong = await postFrom(h(), '/cgi-bin/auth.fcgi', { ...fields, password: 'wrong-password-1' }, SITE);
    expect([wrong.status, wrong.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(wrong.body.slice(wrong.body.indexOf('<main'), wrong.body.indexOf('<main') + 600)).toContain('Wrong login or password.');
    // An account name that is no account's: as an account that allows no other site.
    expect((await postFrom(h(), '/cgi-bin/auth.fcgi', { ...fields, user: 'no-such-club' }, SITE)).body).toContain('to be safe, sign in here');
  });

  it('lets the account’s allowed origins show the pages in a frame, and nobody else', async () => {
    const framed = await h().newAccount({ returnOrigins: [SITE] });
    const page = await h().request({ method: 'GET', url: `/auth/${framed.user}/` });
    expect(page.headers['content-security-policy']).toContain(`frame-ancestors 'self' ${SITE};`);
    expect(page.headers['x-frame-options']).toBeUndefined();
    const alone = await h().newAccount();
    const closed = await h().request({ method: 'GET', url: `/auth/${alone.user}/` });
    expect(closed.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(closed.headers['x-frame-options']).toBe('DENY');
  });

  it('serves /regformcheck.js, the original’s registration-form script, to any site', async () => {
    const script = await h().request({ method: 'GET', url: '/regformcheck.js' });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(script.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(script.body).toContain('window.regformcheck = regformcheck;');
    expect(script.body).not.toMatch(/fetch\(|XMLHttpRequest|document\.cookie|sendBeacon/);
  });

  it('signs out at once on a top-level link from another site; a request that is no page only asks', async () => {
    const { user, apiKey } = await h().newAccount();
    await h().post('/api2/create/', { user, api_key: apiKey, _login: 'finn', _email: 'finn@example.com', _password: 'a-long-password-1' });
    const signIn = await postFrom(h(), `/auth/${user}/`, { action: 'login', login: 'finn', password: 'a-long-password-1' }, undefined);
    const cookie = cookieOf(signIn, `member_${user}`)!.split(';')[0]!;
    const session = cookie.split('=')[1]!;
    const sessionOk = async () => (await h().request({ method: 'GET', url: `/auth/${user}/?mode=API&action=session&id=${session}` })).body;
    // An image or a frame of another site (the cookie would not even come with it): asked.
    const image = await h().request({
      method: 'GET',
      url: `/auth/${user}/?action=logout`,
      headers: { cookie, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
    });
    expect(image.body).toContain('Do you want to sign out?');
    expect(await sessionOk()).toBe('OK');
    // The staff portal's log-out button (window.open): signed out.
    const opened = await h().request({
      method: 'GET',
      url: `/auth/${user}/?action=logout`,
      headers: { cookie, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
    });
    // The sign-in page after a redirect (a reload signs nothing out again), its notice carried.
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe(`/auth/${user}/`);
    expect(String(opened.headers['set-cookie'])).toContain('member_flash=');
    expect(await sessionOk()).toBe('FAIL');
  });

  it('answers a sign-in form pasted on a site it does not know with the sign-in page, login filled; the console offers to allow the site', async () => {
    const { user, apiKey } = await h().newAccount();
    await h().post('/api2/create/', { user, api_key: apiKey, _login: 'gus', _email: 'gus@example.com', _password: 'a-long-password-1' });
    const foreign = 'https://old-site.example';
    const answer = await postFrom(h(), `/auth/${user}/`, { action: 'login', login: 'gus', password: 'a-long-password-1', hide: '' }, foreign);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('value="gus"');
    expect(answer.body).toContain('to be safe, sign in here');
    expect(answer.body).not.toContain('a-long-password-1');
    expect(cookieOf(answer, `member_${user}`)).toBeUndefined();
    // The owner sees where it came from, and allows it: the same form then signs in.
    const owner = await signedIn(h(), `owner-${user}@example.com`, user, 'owner');
    const pages = await h().request({ method: 'GET', url: `/admin/accounts/${user}/member-pages`, headers: { cookie: owner } });
    expect(pages.body).toContain('Forms posted from other sites');
    expect(pages.body).toContain(`<code>${foreign}</code>`);
    const allowed = await consoleForm(h(), `/admin/accounts/${user}/member-pages/origins`, { origin: foreign, do: 'allow' }, owner);
    expect(allowed.headers.location).toBe(`/admin/accounts/${user}/member-pages?done=origin-allowed`);
    expect((await h().services.accounts.find(user))!.settings.returnOrigins).toEqual([foreign]);
    const again = await postFrom(h(), `/auth/${user}/`, { action: 'login', login: 'gus', password: 'a-long-password-1', hide: '' }, foreign);
    expect(again.status).toBe(303);
    expect(cookieOf(again, `member_${user}`)).toBeDefined();
  });

  it('answers a link to a closed registration with its page, found (200)', async () => {
    const { user } = await h().newAccount({ registration: 'off' });
    const closed = await h().request({ method: 'GET', url: `/auth/${user}/?action=reg` });
    expect(closed.status).toBe(200);
    expect(closed.body).toContain('Registration is closed');
  });

  it('refuses a form posted with Origin: null unless it carries the pages’ own token, and takes one that does', async () => {
    const { user, apiKey } = await h().newAccount();
    await h().post('/api2/create/', { user, api_key: apiKey, _login: 'hana', _email: 'hana@example.com', _password: 'a-long-password-1' });
    // The page hands out its token: in a cookie, and in each form.
    const page = await h().request({ method: 'GET', url: `/auth/${user}/` });
    const tokenCookie = cookieOf(page, 'member_form')!;
    expect(tokenCookie).toMatch(/^member_form=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/);
    const token = tokenCookie.split(';')[0]!.split('=')[1]!;
    expect(page.body).toContain(`name="form_token" value="${token}"`);
    expect(page.headers['referrer-policy']).toBe('same-origin');
    const post = (params: Record<string, string>, cookie?: string) =>
      h().request({
        url: `/auth/${user}/`,
        payload: new URLSearchParams(params).toString(),
        headers: { ...FORM, origin: 'null', ...(cookie ? { cookie } : {}) },
      });
    const fields = { action: 'login', login: 'hana', password: 'a-long-password-1' };
    // Without the token, or with another: not signed in (the sign-in page again, asking to sign in here).
    for (const [params, cookie] of [
      [fields, undefined],
      [{ ...fields, form_token: token }, undefined],
      [{ ...fields, form_token: 'x'.repeat(24) }, `member_form=${token}`],
    ] as const) {
      const refused = await post(params, cookie);
      expect(refused.body).toContain('to be safe, sign in here');
      expect(cookieOf(refused, `member_${user}`)).toBeUndefined();
    }
    const withToken = await post({ ...fields, form_token: token }, `member_form=${token}`);
    expect(withToken.status).toBe(303);
    expect(cookieOf(withToken, `member_${user}`)).toBeDefined();
    // Any other form of the pages: refused (403) without it.
    const remind = (params: Record<string, string>, cookie?: string) =>
      h().request({
        url: `/auth/${user}/lost`,
        payload: new URLSearchParams(params).toString(),
        headers: { ...FORM, origin: 'null', ...(cookie ? { cookie } : {}) },
      });
    expect((await remind({ who: 'hana' })).status).toBe(403);
    expect((await remind({ who: 'hana', form_token: token }, `member_form=${token}`)).status).toBe(303);
    // The host's own Origin (plain http on a host name, no Fetch Metadata): taken without a token.
    const own = await h().request({
      url: `/auth/${user}/`,
      payload: new URLSearchParams(fields).toString(),
      headers: { ...FORM, host: 'members.intranet:8080', origin: 'http://members.intranet:8080' },
    });
    expect(own.status).toBe(303);
  });
});
