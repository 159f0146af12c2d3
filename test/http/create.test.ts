import { expect, it } from 'vitest';
import { GENERATED_LENGTH } from '../../src/auth/passwords.js';
import { describeEachEngineApp, PUBLIC_URL } from '../support/app.js';
import { insertMember } from '../support/factories.js';
import { figure } from '../support/report.js';

const MINUTE = 60_000;

describeEachEngineApp('/api2/create/', (h) => {
  async function setup(settings = {}) {
    const { user, apiKey, account } = await h().newAccount(settings);
    const create = (params: Record<string, string>) => h().post('/api2/create/', { user, api_key: apiKey, ...params });
    const member = (login: string) => h().store.members.findMemberByLogin(account.id, login);
    return { user, apiKey, account, create, member };
  }

  it('creates a member and answers the seed shape: id as digits, login, password, verify_url', async () => {
    const { create, user, member } = await setup();
    const reply = await create({ _login: 'alice', _email: 'alice@example.com', _password: 'correct-horse' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(reply.json)).toEqual(['result', 'message', 'id', 'login', 'password', 'verify_url']);
    expect(reply.json).toMatchObject({ result: 'OK', message: '', login: 'alice', password: 'correct-horse' });
    expect(reply.json.id).toMatch(/^[1-9]\d*$/);
    const url = new URL(reply.json.verify_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${PUBLIC_URL}/api2/verify/`);
    expect(url.searchParams.get('user')).toBe(user);
    expect(url.searchParams.get('login')).toBe('alice');
    expect(url.searchParams.get('id')).toBe(reply.json.id);
    expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await member('alice');
    expect(stored).toMatchObject({ id: Number(reply.json.id), email: 'alice@example.com', status: 'A', regType: 'A' });
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('generates a 12-character password without look-alikes when none or an empty one is sent, and it logs in', async () => {
    const { create, user } = await setup();
    for (const params of [
      { _login: 'gen1', _email: 'g@example.com' },
      { _login: 'gen2', _email: 'g@example.com', _password: '' },
    ] as Array<Record<string, string>>) {
      const reply = await create(params);
      expect(reply.json.password).toHaveLength(GENERATED_LENGTH);
      expect(reply.json.password).toMatch(/^[A-HJ-NP-Za-km-z2-9]+$/);
      const login = await h().post('/api2/login/', { user, login: params._login!, password: reply.json.password });
      expect(login.json.result).toBe('OK');
    }
  });

  it('names a missing or invalid login, e-mail or password', async () => {
    // The seed's rule, an address required (--require-email on; off by default, as the original).
    const { create } = await setup({ minPasswordLength: 10, requireEmail: true });
    const cases: Array<[Record<string, string>, string]> = [
      [{ _email: 'a@example.com' }, 'missing parameter: _login'],
      [{ _login: '', _email: 'a@example.com' }, 'missing parameter: _login'],
      [{ _login: 'a' }, 'missing parameter: _email'],
      [{ _login: 'has space', _email: 'a@example.com' }, 'invalid parameter: _login (1 to 64 characters, no white space or control characters)'],
      [{ _login: 'tab\there', _email: 'a@example.com' }, 'invalid parameter: _login (1 to 64 characters, no white space or control characters)'],
      [{ _login: 'x'.repeat(65), _email: 'a@example.com' }, 'invalid parameter: _login (1 to 64 characters, no white space or control characters)'],
      [
        { _login: 'a', _email: 'no-at-sign' },
        'invalid parameter: _email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ],
      [
        { _login: 'a', _email: 'two@@example.com' },
        'invalid parameter: _email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ],
      [
        { _login: 'a', _email: '@example.com' },
        'invalid parameter: _email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ],
      [
        { _login: 'a', _email: 'a@' },
        'invalid parameter: _email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ],
      [
        { _login: 'a', _email: 'a b@example.com' },
        'invalid parameter: _email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ],
      [
        { _login: 'a', _email: `${'x'.repeat(250)}@e.co` },
        'invalid parameter: _email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ],
      [{ _login: 'a', _email: 'a@example.com', _password: '123456789' }, 'invalid parameter: _password (too short: at least 10 characters)'],
      [{ _login: 'a', _email: 'a@example.com', _password: 'x'.repeat(1025) }, 'invalid parameter: _password (too long: at most 1024 characters)'],
    ];
    for (const [params, message] of cases) {
      expect((await create(params)).json, JSON.stringify(params)).toEqual({ result: 'ERROR', message });
    }
  });

  it('refuses the most common passwords, whatever their case, and lets generated ones be', async () => {
    const { create } = await setup();
    for (const common of ['password', 'PASSWORD1', '12345678', 'qwertyuiop', 'Ｐassword', 'Football1']) {
      expect((await create({ _login: 'c', _email: 'c@example.com', _password: common })).json.message, common).toBe(
        'invalid parameter: _password (too common: it is on lists of breached passwords)',
      );
    }
    expect((await create({ _login: 'c', _email: 'c@example.com', _password: 'correct horse battery staple' })).json.result).toBe('OK');
  });

  it('accepts logins of 64 characters beyond ASCII, and passwords from the account minimum to 1024 characters', async () => {
    const { create, member } = await setup({ minPasswordLength: 10 });
    const login = 'ü'.repeat(64);
    expect((await create({ _login: login, _email: 'u@example.com', _password: 'x'.repeat(1024) })).json.result).toBe('OK');
    expect((await create({ _login: 'ten', _email: 'u@example.com', _password: 'ten-chars!' })).json.result).toBe('OK');
    expect((await member(login))?.login).toBe(login);
  });

  it('refuses a taken login, compared case-insensitively, and a deleted member keeps its login', async () => {
    const { create, account } = await setup();
    expect((await create({ _login: 'Taken', _email: 'a@example.com' })).json.result).toBe('OK');
    expect((await create({ _login: 'tAKEN', _email: 'b@example.com' })).json).toEqual({ result: 'ERROR', message: 'login already taken' });
    await insertMember(h().store, account.id, { login: 'ghost', status: 'D' });
    expect((await create({ _login: 'GHOST', _email: 'b@example.com' })).json).toEqual({ result: 'ERROR', message: 'login already taken' });
  });

  it('lets another account use the same login', async () => {
    const first = await setup();
    const second = await setup();
    expect((await first.create({ _login: 'same', _email: 'a@example.com' })).json.result).toBe('OK');
    expect((await second.create({ _login: 'same', _email: 'a@example.com' })).json.result).toBe('OK');
  });

  it('answers "wrong api key" alike for a wrong key, a missing key and an unknown user', async () => {
    const { user } = await setup();
    const params = { _login: 'x', _email: 'x@example.com' };
    const replies = await Promise.all([
      h().post('/api2/create/', { user, api_key: 'wrong', ...params }),
      h().post('/api2/create/', { user, ...params }),
      h().post('/api2/create/', { user: 'no-such-account', api_key: 'wrong', ...params }),
    ]);
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toBe('{"result":"ERROR","message":"wrong api key"}');
    }
    expect((await h().post('/api2/create/', params)).json).toEqual({ result: 'ERROR', message: 'missing parameter: user' });
  });

  it('keeps custom login URLs, and refuses ones that are not http(s) URLs or paths', async () => {
    const { create, member } = await setup();
    await create({ _login: 'urls', _email: 'a@example.com', set_urlok: 'https://example.com/in?x=1', set_urlwrong: '/try-again' });
    expect(await member('urls')).toMatchObject({ urlOk: 'https://example.com/in?x=1', urlFail: '/try-again' });
    for (const bad of [
      'javascript:alert(1)',
      'ftp://example.com/',
      'example.com',
      '//evil.example',
      '/\\evil.example',
      'https://x/'.padEnd(2049, 'a'),
      '/a b',
    ]) {
      expect((await create({ _login: 'u2', _email: 'a@example.com', set_urlok: bad })).json.message).toBe(
        'invalid parameter: set_urlok (an absolute http(s) URL or a path starting with /, at most 2048 characters, no backslash)',
      );
      expect((await create({ _login: 'u2', _email: 'a@example.com', set_urlwrong: bad })).json.message).toBe(
        'invalid parameter: set_urlwrong (an absolute http(s) URL or a path starting with /, at most 2048 characters, no backslash)',
      );
    }
  });

  it('sets time expiration in calendar periods from the moment of the call, in both spellings', async () => {
    const { create, member } = await setup();
    h().clock.set('2026-01-31T10:00:00Z');
    const cases: Array<[Record<string, string>, 'S' | 'D', string]> = [
      [{ set_is_exp_time: '1', set_exp_time: '30', set_exp_time_type: 'm' }, 'S', '2026-01-31T10:30:00Z'],
      [{ set_is_exp_time: '2', set_exp_time: '5', set_exp_time_type: 'h' }, 'D', '2026-01-31T15:00:00Z'],
      [{ set_isexptime: '1', set_exptime: '2', set_exptimet: 'D' }, 'S', '2026-02-02T10:00:00Z'],
      [{ set_isexptime: '2', set_exptime: '1', set_exptimet: 'M' }, 'D', '2026-02-28T10:00:00Z'],
      [{ set_is_exp_time: '1', set_exp_time: '1', set_exp_time_type: 'Y' }, 'S', '2027-01-31T10:00:00Z'],
    ];
    for (const [index, [params, action, due]] of cases.entries()) {
      const login = `exp${index}`;
      expect((await create({ _login: login, _email: 'a@example.com', ...params })).json.result).toBe('OK');
      expect((await member(login))?.timeExpiry).toEqual({ action, at: Date.parse(due) });
    }
    await create({ _login: 'none', _email: 'a@example.com', set_is_exp_time: '0', set_exp_time: '5', set_exp_time_type: 'D' });
    expect((await member('none'))?.timeExpiry).toBeNull();
  });

  it('counts days and months in the account time zone, across a daylight-saving change', async () => {
    const { create, member } = await setup({ timeZone: 'Europe/Paris' });
    h().clock.set('2026-03-28T12:00:00Z'); // 13:00 in Paris, the day before summer time
    await create({ _login: 'dst', _email: 'a@example.com', set_is_exp_time: '1', set_exp_time: '1', set_exp_time_type: 'D' });
    // 13:00 in Paris the next day is 11:00 UTC: a calendar day is 23 hours here.
    expect((await member('dst'))?.timeExpiry?.at).toBe(Date.parse('2026-03-29T11:00:00Z'));
  });

  it('names the expiration parameter that is missing or wrong, in the spelling the client used', async () => {
    const { create } = await setup();
    const cases: Array<[Record<string, string>, string]> = [
      [{ set_is_exp_time: '1', set_exp_time_type: 'D' }, 'missing parameter: set_exp_time'],
      [{ set_isexptime: '1', set_exptimet: 'D' }, 'missing parameter: set_exptime'],
      [{ set_is_exp_time: '1', set_exp_time: '3' }, 'missing parameter: set_exp_time_type'],
      [{ set_isexptime: '2', set_exptime: '3' }, 'missing parameter: set_exptimet'],
      [{ set_is_exp_time: '3', set_exp_time: '3', set_exp_time_type: 'D' }, 'invalid parameter: set_is_exp_time (one of 0 1 2)'],
      [{ set_isexptime: 'S', set_exptime: '3', set_exptimet: 'D' }, 'invalid parameter: set_isexptime (one of 0 1 2)'],
      [{ set_is_exp_time: '1', set_exp_time: '0', set_exp_time_type: 'D' }, 'invalid parameter: set_exp_time (a whole number from 1 to 999999999)'],
      [{ set_is_exp_time: '1', set_exp_time: '-1', set_exp_time_type: 'D' }, 'invalid parameter: set_exp_time (a whole number from 1 to 999999999)'],
      [{ set_is_exp_time: '1', set_exp_time: '1.5', set_exp_time_type: 'D' }, 'invalid parameter: set_exp_time (a whole number from 1 to 999999999)'],
      [
        { set_is_exp_time: '1', set_exp_time: '3', set_exp_time_type: 'd' },
        'invalid parameter: set_exp_time_type (one of m h D M Y, in this case: m is minutes, M months)',
      ],
      [
        { set_is_exp_time: '1', set_exp_time: '3', set_exp_time_type: 'W' },
        'invalid parameter: set_exp_time_type (one of m h D M Y, in this case: m is minutes, M months)',
      ],
      [{ set_is_exp_time: '1', set_exp_time: '999999', set_exp_time_type: 'Y' }, 'invalid parameter: set_exp_time (the period ends after the year 9999)'],
      [{ set_is_exp_logins: '1' }, 'missing parameter: set_exp_logins'],
      [{ set_is_exp_logins: '4', set_exp_logins: '2' }, 'invalid parameter: set_is_exp_logins (one of 0 1 2)'],
      [{ set_is_exp_logins: '2', set_exp_logins: '0' }, 'invalid parameter: set_exp_logins (a whole number from 1 to 999999999)'],
      [{ set_is_exp_logins: '2', set_exp_logins: 'ten' }, 'invalid parameter: set_exp_logins (a whole number from 1 to 999999999)'],
      [{ set_is_exp_logins: 'constructor', set_exp_logins: '2' }, 'invalid parameter: set_is_exp_logins (one of 0 1 2)'],
      [{ set_is_exp_time: 'toString', set_exp_time: '2', set_exp_time_type: 'D' }, 'invalid parameter: set_is_exp_time (one of 0 1 2)'],
      [
        { set_is_exp_time: '1', set_exp_time: '2', set_exp_time_type: 'constructor' },
        'invalid parameter: set_exp_time_type (one of m h D M Y, in this case: m is minutes, M months)',
      ],
    ];
    for (const [params, message] of cases) {
      expect((await create({ _login: 'x', _email: 'x@example.com', ...params })).json, JSON.stringify(params)).toEqual({ result: 'ERROR', message });
    }
  });

  it('sets login-count expiration', async () => {
    const { create, member } = await setup();
    await create({ _login: 'counted', _email: 'a@example.com', set_is_exp_logins: '1', set_exp_logins: '3' });
    await create({ _login: 'counted2', _email: 'a@example.com', set_is_exp_logins: '2', set_exp_logins: '1' });
    await create({ _login: 'uncounted', _email: 'a@example.com', set_is_exp_logins: '0', set_exp_logins: '1' });
    expect((await member('counted'))?.loginExpiry).toEqual({ action: 'S', left: 3 });
    expect((await member('counted2'))?.loginExpiry).toEqual({ action: 'D', left: 1 });
    expect((await member('uncounted'))?.loginExpiry).toBeNull();
  });

  it('keeps IP as the registration address, and refuses one that is not an address', async () => {
    const { create, member } = await setup();
    await create({ _login: 'v4', _email: 'a@example.com', IP: '203.0.113.5' });
    await create({ _login: 'v6', _email: 'a@example.com', IP: '2001:db8::5' });
    expect((await member('v4'))?.regIp).toBe('203.0.113.5');
    expect((await member('v6'))?.regIp).toBe('2001:db8::5');
    expect((await create({ _login: 'bad', _email: 'a@example.com', IP: '300.1.1.1' })).json.message).toBe(
      'invalid parameter: IP (not an IPv4 or IPv6 address, nor a list of them)',
    );
  });

  it('stores every other parameter as a profile field, under its name', async () => {
    const { create, account, member } = await setup();
    await create({ _login: 'prof', _email: 'a@example.com', first_name: 'Ada', 'last.name': 'Lovelace', 'x-y_z.9': '', note: 'ü€𝄞' });
    const stored = await member('prof');
    expect(await h().store.members.findProfile(account.id, stored!.id)).toEqual(
      new Map([
        ['first_name', 'Ada'],
        ['last.name', 'Lovelace'],
        ['note', 'ü€𝄞'],
        ['x-y_z.9', ''],
      ]),
    );
  });

  it('refuses profile names that are built-ins or reserved, naming them', async () => {
    const { create } = await setup();
    // A near miss of a parameter of /create/ says which one was meant. (`login`, `email` and
    // `password` are not misses: they stand for the underscored names, test/http/hosted-code.test.ts.)
    const meant: Record<string, string> = { LOGIN: '_login', Email: '_email', api_KEY: 'api_key', ip: 'IP' };
    for (const name of [
      'status',
      'id',
      'reg_date',
      'bill_qty',
      'urlok',
      'pfdelete',
      'Email',
      'LOGIN',
      '_other',
      'set_other',
      'find_member_x',
      'api_KEY',
      'ip',
    ]) {
      expect((await create({ _login: 'x', _email: 'x@example.com', [name]: 'v' })).json, name).toEqual({
        result: 'ERROR',
        message: `unknown parameter: ${name}${meant[name] ? ` (did you mean ${meant[name]}?)` : ''}`,
      });
    }
    for (const name of ['has space', 'x'.repeat(65), 'naïve', 'a/b', 'a:b']) {
      expect((await create({ _login: 'x', _email: 'x@example.com', [name]: 'v' })).json.message, name).toBe(
        `invalid parameter: ${name} (1 to 64 of A-Z a-z 0-9 _ . -)`,
      );
    }
  });

  it('limits profile values to 64 KiB and members to 100 fields', async () => {
    const { create } = await setup();
    expect((await create({ _login: 'big', _email: 'a@example.com', bio: 'x'.repeat(64 * 1024) })).json.result).toBe('OK');
    expect((await create({ _login: 'big2', _email: 'a@example.com', bio: 'x'.repeat(64 * 1024 + 1) })).json.message).toBe(
      'invalid parameter: bio (longer than 65536 bytes)',
    );
    const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, 'v']));
    expect((await create({ _login: 'many', _email: 'a@example.com', ...fields(100) })).json.result).toBe('OK');
    expect((await create({ _login: 'many2', _email: 'a@example.com', ...fields(101) })).json).toEqual({ result: 'ERROR', message: 'too many profile fields' });
  });

  it('answers 64 concurrent creates of one login with exactly one OK', async () => {
    const { create, account } = await setup();
    const replies = await Promise.all(Array.from({ length: 64 }, (_, i) => create({ _login: 'race', _email: `r${i}@example.com` })));
    expect(replies.every((r) => r.status === 200)).toBe(true);
    figure(
      `race [${h().store.engine}] 64 concurrent creates of one login: OK / taken / 5xx`,
      `${replies.filter((r) => r.json.result === 'OK').length} / ${replies.filter((r) => r.json.message === 'login already taken').length} / ${replies.filter((r) => r.status >= 500).length}`,
    );
    expect(replies.filter((r) => r.json.result === 'OK')).toHaveLength(1);
    expect(replies.filter((r) => r.json.message === 'login already taken')).toHaveLength(63);
    expect(await h().store.accounts.countMembersByStatus(account.id)).toEqual({ A: 1 });
  });

  it('opens the verify link: marks the e-mail verified; every bad link gets one page and changes nothing', async () => {
    const { create, member, apiKey, user } = await setup();
    h().clock.set(Date.parse('2026-05-01T00:00:00Z'));
    const { verify_url: link } = (await create({ _login: 'verify-me', _email: 'a@example.com' })).json;
    const path = link.slice(PUBLIC_URL.length);
    const wrongCode = path.replace(/code=[^&]+/, 'code=AAAA');
    const otherId = path.replace(/id=\d+/, 'id=999999999');
    const otherCase = path.replace('login=verify-me', 'login=VERIFY-ME');
    const bad = await h().request({ method: 'GET', url: wrongCode });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toBe('text/html; charset=utf-8');
    // A wrong code, an unknown member, another spelling of the login: one page, byte for byte.
    for (const url of [otherId, otherCase, path.replace(`user=${user}`, 'user=nobody-here')]) {
      const reply = await h().request({ method: 'GET', url });
      expect([reply.status, reply.body]).toEqual([400, bad.body]);
    }
    expect((await member('verify-me'))?.emailVerifiedAt).toBeNull();
    h().clock.advance(MINUTE);
    const good = await h().request({ method: 'GET', url: path });
    expect(good.status).toBe(200);
    expect(good.body).toContain('verified');
    expect((await member('verify-me'))?.emailVerifiedAt).toBe(Date.parse('2026-05-01T00:01:00Z'));
    expect((await h().request({ method: 'GET', url: path.replace('/verify/', '/verify') })).status).toBe(200);
    // A deleted member's link (with its right code) is bad like any other.
    const gone = (await create({ _login: 'gone-soon', _email: 'g@example.com' })).json;
    await h().post('/api2/update/', { user, api_key: apiKey, find_member_login: 'gone-soon', status: 'D' });
    const deleted = await h().request({ method: 'GET', url: gone.verify_url.slice(PUBLIC_URL.length) });
    expect([deleted.status, deleted.body]).toEqual([400, bad.body]);
  });

  it('serves the verify page with a strict policy: no framing, no sniffing, no script', async () => {
    const reply = await h().request({ method: 'GET', url: '/api2/verify/?user=x&login=y&id=1&code=z' });
    expect(reply.headers['x-frame-options']).toBe('DENY');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(reply.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(csp).not.toContain('unsafe-inline');
  });

  it('answers 400 for a verify link with parts missing', async () => {
    expect((await h().request({ method: 'GET', url: '/api2/verify/?user=x&login=y&id=abc&code=z' })).status).toBe(400);
    expect((await h().request({ method: 'GET', url: '/api2/verify/' })).status).toBe(400);
  });
});
