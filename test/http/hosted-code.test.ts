/**
 * What code written against the hosted original sends, sent exactly so (query strings built
 * as such code builds them, no trailing slash), on both engines: it runs unchanged. GET on
 * every endpoint, codes in lower case, `login`/`email`/`password` on /create/, an `IP` that is
 * a forwarded list, the original's FAIL text; and what already worked, kept working. The
 * suite's log ledger fails it if a key or password from a query string reached the log.
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp, type Harness } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

/** A GET as a bot builds it: every parameter in the query string, the path without its slash. */
const get = (h: Harness, path: string, params: Record<string, string>) => h.request({ method: 'GET', url: `${path}?${new URLSearchParams(params)}` });

describeEachEngineApp('code written for the hosted original', (h) => {
  it('creates and updates by GET with the parameters in the query string, `password` for `_password` and `status=a`', async () => {
    const api = await apiAccount(h());
    const key = { user: api.user, api_key: api.apiKey };
    const created = await get(h(), '/api2/create', { ...key, _login: 'bot-made', _email: 'bot@example.com', password: 'bot-chosen-horse' });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({ result: 'OK', login: 'bot-made', password: 'bot-chosen-horse' });
    expect((await api.login('bot-made', 'bot-chosen-horse')).result).toBe('OK');
    const suspended = await get(h(), '/api2/update', { ...key, find_member_login: 'bot-made', status: 's' });
    expect(suspended.json).toEqual({ result: 'OK', message: '', updated: 1 });
    expect((await api.member('bot-made'))!.status).toBe('S');
    const updated = await get(h(), '/api2/update', { ...key, find_member_login: 'bot-made', password: 'bot-changed-horse', status: 'a' });
    expect(updated.json).toEqual({ result: 'OK', message: '', updated: 1 });
    expect((await api.login('bot-made', 'bot-changed-horse')).result).toBe('OK');
    // The other endpoints, by GET, with and without the slash.
    for (const path of ['/api2/login', '/api2/login/'])
      expect((await get(h(), path, { user: api.user, login: 'bot-made', password: 'bot-changed-horse' })).json.result).toBe('OK');
    expect((await get(h(), '/api2/list', { ...key, record: '{login}{status}', login_full: 'bot-made' })).json).toEqual({
      members: [{ login: 'bot-made', status: 'Active' }],
      members_total: 1,
    });
    // Each such request is counted, by endpoint, for the operator who will ask for POST.
    const metrics = (await h().metrics.exposition()).body;
    expect(metrics).toMatch(/member_api_credentials_in_url_total\{endpoint="\/api2\/create\/"\} [1-9]/);
    expect(metrics).toMatch(/member_api_credentials_in_url_total\{endpoint="\/api2\/update\/"\} [2-9]/);
    expect(metrics).toMatch(/member_api_credentials_in_url_total\{endpoint="\/api2\/login\/"\} [2-9]/);
    expect(metrics).not.toContain('bot-changed-horse');
    expect(metrics).not.toContain(api.apiKey);
  });

  it('checks a session by the member pages’ address as a site’s server does (`?mode=API&action=session&id=SID`), keeping the id out of the log', async () => {
    const api = await apiAccount(h());
    await api.create('paged', { _password: 'paged-horse-1' });
    const session = (await api.login('paged', 'paged-horse-1')).session as string;
    const checkSession = async () => (await h().request({ method: 'GET', url: `/auth/${api.user}/?mode=API&action=session&id=${session}` })).body;
    expect(await checkSession()).toBe('OK');
    await h().post('/api2/logout/', { user: api.user, session });
    expect(await checkSession()).toBe('FAIL');
    // The suite's ledger holds the id (harness: `id` beside `action=session`): the log never shows it.
    const metrics = (await h().metrics.exposition()).body;
    expect(metrics).toMatch(/member_api_credentials_in_url_total\{endpoint="\/auth\/:account\/"\} [2-9]/);
    expect(metrics).not.toContain(session);
  });

  it('refuses GET for the calls that change or check a member once the account says so, and keeps POST and GET /list/', async () => {
    const api = await apiAccount(h(), { getWrites: false });
    const key = { user: api.user, api_key: api.apiKey };
    for (const [path, params] of [
      ['/api2/create', { ...key, _login: 'by-get', _email: 'g@example.com' }],
      ['/api2/update/', { ...key, find_member_id: '*', city: 'Oslo' }],
      ['/api2/login', { user: api.user, login: 'by-get', password: 'whatever-horse' }],
    ] as const) {
      const refused = await get(h(), path, params);
      expect([refused.status, refused.headers.allow, refused.json]).toEqual([
        405,
        'POST',
        { result: 'ERROR', message: `method not allowed: this account takes ${path.replace(/\/?$/, '/')} by POST only (send the parameters in the body)` },
      ]);
    }
    expect(await api.list({ record: '{login}' })).toEqual({ members: [], members_total: 0 });
    await api.create('by-post');
    expect((await get(h(), '/api2/list', { ...key, record: '{login}' })).json.members).toEqual([{ login: 'by-post' }]);
  });

  it('reads the seed’s one-letter codes in either case, and the period unit only as written', async () => {
    const api = await apiAccount(h());
    await api.create('coded');
    expect(
      await api.update({ find_member_login: 'coded', is_exp_time: 's', exp_time: '2', exp_time_type: 'D', is_exp_logins: 'd', exp_logins: '5' }),
    ).toMatchObject({ result: 'OK' });
    expect(await api.list({ record: '{login}{reg_type}', status: 'a', reg_type: 'a' })).toEqual({
      members: [{ login: 'coded', reg_type: 'API' }],
      members_total: 1,
    });
    expect(await api.update({ find_member_login: 'coded', is_exp_time: 'n', is_exp_logins: 'N' })).toMatchObject({ result: 'OK' });
    expect((await api.member('coded'))!).toMatchObject({ timeExpiry: null, loginExpiry: null });
    // m is minutes and M months: the unit is never folded, and its error says why.
    expect(await api.update({ find_member_login: 'coded', is_exp_time: 'S', exp_time: '2', exp_time_type: 'd' })).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: exp_time_type (one of m h D M Y, in this case: m is minutes, M months)',
    });
  });

  it('takes login, email and password on /create/ for the underscored names, refuses two that differ, and keeps no password-like field in clear', async () => {
    const api = await apiAccount(h());
    const create = async (params: Record<string, string>) => (await h().post('/api2/create', { user: api.user, api_key: api.apiKey, ...params })).json;
    expect(await create({ login: 'plain-names', email: 'plain@example.com', password: 'plain-named-horse' })).toMatchObject({
      result: 'OK',
      login: 'plain-names',
      password: 'plain-named-horse',
    });
    expect((await api.list({ record: '{login}{email}', login_full: 'plain-names' })).members).toEqual([{ login: 'plain-names', email: 'plain@example.com' }]);
    expect(await api.profile('plain-names')).toEqual(new Map());
    // The same value twice is one value; two values, an ERROR naming both.
    expect(await create({ _login: 'twice', login: 'twice', _email: 't@example.com' })).toMatchObject({ result: 'OK' });
    expect(await create({ _login: 'one', login: 'other', _email: 't@example.com' })).toEqual({
      result: 'ERROR',
      message: 'conflicting parameters: _login and login differ (send one of them)',
    });
    // Errors name what the client sent.
    expect(await create({ login: 'short-pass', email: 's@example.com', password: 'abc' })).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: password (too short: at least 8 characters)',
    });
    for (const name of ['passwd', 'pwd', 'user_password', 'Passwort', 'pass2']) {
      expect(await create({ _login: `pl-${name.toLowerCase()}`, _email: 'p@example.com', [name]: 'in-clear-horse' }), name).toEqual({
        result: 'ERROR',
        message: `invalid parameter: ${name} (looks like a password, and profile fields are kept in clear: send a password as _password)`,
      });
    }
    expect(await api.update({ find_member_login: 'twice', new_password: 'x' })).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: new_password (looks like a password, and profile fields are kept in clear: send a password as password)',
    });
    expect(await api.logins({ login: 'pl-' })).toEqual([]);
  });

  it('keeps working what already did: a list by record and login_full, a login with the key and the visitor’s IP, a form from Python, a profile field in the account’s language', async () => {
    const api = await apiAccount(h());
    // requests.post(url, data={...}) from Python: a form body, a profile field `name`, another in Portuguese.
    const python = await h().post('/api2/create/', {
      user: api.user,
      api_key: api.apiKey,
      _login: 'ana',
      _email: 'ana@example.com',
      _password: 'ana-chosen-horse',
      name: 'Ana Souza',
      cidade: 'Recife',
    });
    expect(python.json).toMatchObject({ result: 'OK', login: 'ana' });
    expect(await api.list({ record: '{login}{email}', login_full: 'ana', limit: '1' })).toEqual({
      members: [{ login: 'ana', email: 'ana@example.com' }],
      members_total: 1,
    });
    expect((await api.list({ record: '{login}{name}{cidade}' })).members).toEqual([{ login: 'ana', name: 'Ana Souza', cidade: 'Recife' }]);
    const withIp = await h().post('/api2/login/', { user: api.user, api_key: api.apiKey, login: 'ana', password: 'ana-chosen-horse', IP: '198.51.100.7' });
    expect(withIp.json.result).toBe('OK');
  });

  it('takes the first address of a forwarded list as the visitor’s IP, and refuses only what holds none', async () => {
    const api = await apiAccount(h());
    const created = await api.create('forwarded');
    const login = (ip: string) => h().post('/api2/login/', { user: api.user, api_key: api.apiKey, login: 'forwarded', password: 'correct-horse', IP: ip });
    expect((await login('203.0.113.5, 10.0.0.1')).json.result).toBe('OK');
    expect((await login('unknown, 2001:DB8::1')).json.result).toBe('OK');
    const recorded = await h().services.logins.recentLogins(api.account, Number(created.id), 5);
    expect(recorded.map((event) => event.ip)).toEqual(['2001:db8::1', '203.0.113.5']);
    expect((await login('unknown, nowhere')).json).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: IP (not an IPv4 or IPv6 address, nor a list of them)',
    });
  });

  it('answers a wrong login or password in the original’s words for an account that asks, and ours otherwise', async () => {
    const ours = await apiAccount(h());
    const theirs = await apiAccount(h(), { messages: 'original' });
    for (const api of [ours, theirs]) await api.create('worded');
    expect((await ours.login('worded', 'wrong-horse-here')).message).toBe('wrong login or password');
    expect((await theirs.login('worded', 'wrong-horse-here')).message).toBe('You have entered incorrect login or password. Please try again');
    // Unknown and right-but-unknown alike.
    expect((await theirs.login('nobody', 'wrong-horse-here')).message).toBe('You have entered incorrect login or password. Please try again');
  });

  it('takes a common password from an account that turned the check off, and refuses it by default', async () => {
    const strict = await apiAccount(h());
    const lenient = await apiAccount(h(), { passwordCheck: 'off' });
    const create = (api: typeof strict) =>
      h().post('/api2/create', { user: api.user, api_key: api.apiKey, _login: 'common', _email: 'c@example.com', _password: 'secret123' });
    expect((await create(strict)).json).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: _password (too common: it is on lists of breached passwords)',
    });
    expect((await create(lenient)).json).toMatchObject({ result: 'OK', password: 'secret123' });
    expect(await lenient.update({ find_member_login: 'common', password: 'password1' })).toMatchObject({ result: 'OK' });
  });

  it('points a bare profile field name on /list/ to its filter, and says when a mail asked for was not sent', async () => {
    const api = await apiAccount(h());
    expect(await api.list({ first_name: 'Alice' })).toEqual({ result: 'ERROR', message: 'unknown parameter: first_name (did you mean profile:first_name?)' });
    const created = await h().post('/api2/create/', { user: api.user, api_key: api.apiKey, _login: 'welcomed', _email: 'w@example.com', send_welcome: '1' });
    expect(created.json).toMatchObject({ result: 'OK', mail: 'not sent: no mail settings' });
    const reset = await h().post('/api2/reset/', { user: api.user, api_key: api.apiKey, find_member_login: 'welcomed', send_mail: '1' });
    expect(reset.json).toMatchObject({ result: 'OK', mail: 'not sent: no mail settings' });
    expect(Object.keys((await h().post('/api2/reset/', { user: api.user, api_key: api.apiKey, find_member_login: 'welcomed' })).json)).toEqual([
      'result',
      'message',
      'reset_url',
    ]);
  });
});
