import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { createArgon2Hasher } from '../../src/auth/passwords.js';
import { describeEachEngineApp } from '../support/app.js';
import { insertMember } from '../support/factories.js';
import { peek } from '../support/peek.js';
import { figure } from '../support/report.js';

const MINUTE = 60_000;
const WRONG = { result: 'FAIL', message: 'wrong login or password' };

describeEachEngineApp('/api2/login/', (h) => {
  async function setup(settings = {}) {
    const { user, apiKey, account } = await h().newAccount(settings);
    const create = async (params: Record<string, string>) => {
      const reply = await h().post('/api2/create/', { user, api_key: apiKey, _email: 'm@example.com', ...params });
      expect(reply.json.result).toBe('OK');
      return reply.json;
    };
    const login = (login: string, password: string, extra: Record<string, string> = {}) => h().post('/api2/login/', { user, login, password, ...extra });
    const member = (name: string) => h().store.members.findMemberByLogin(account.id, name);
    return { user, apiKey, account, create, login, member };
  }

  it('answers OK with a new session id of at least 128 bits and the member’s URL, and keeps the session', async () => {
    const { create, login, account } = await setup();
    await create({ _login: 'alice', _password: 'correct-horse', set_urlok: 'https://example.com/in' });
    const first = await login('alice', 'correct-horse');
    const second = await login('ALICE', 'correct-horse');
    expect(first.status).toBe(200);
    expect(Object.keys(first.json)).toEqual(['result', 'message', 'session', 'ok_url']);
    expect(first.json).toMatchObject({ result: 'OK', message: '', ok_url: 'https://example.com/in' });
    expect(Buffer.from(first.json.session, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(second.json.session).not.toBe(first.json.session);
    const digest = createHash('sha256').update(first.json.session).digest('hex');
    const sessions = await peek(h().database, (db) => db.selectFrom('sessions').select(['digest']).where('account_id', '=', account.id).execute());
    expect(sessions.map((s) => s.digest)).toContain(digest);
    // Only the digest is stored, never the id itself.
    expect(sessions.map((s) => s.digest)).not.toContain(first.json.session);
  });

  it('falls back to the account’s URLs, else to ""', async () => {
    const withDefaults = await setup({ okUrl: '/welcome', failUrl: '/sorry' });
    await withDefaults.create({ _login: 'bob', _password: 'correct-horse' });
    expect((await withDefaults.login('bob', 'correct-horse')).json.ok_url).toBe('/welcome');
    expect((await withDefaults.login('bob', 'wrong-horse')).json).toEqual({ ...WRONG, fail_url: '/sorry' });
    expect((await withDefaults.login('nobody', 'x')).json).toEqual({ ...WRONG, fail_url: '/sorry' });
    const plain = await setup();
    await plain.create({ _login: 'bob', _password: 'correct-horse' });
    expect((await plain.login('bob', 'correct-horse')).json.ok_url).toBe('');
    expect((await plain.login('bob', 'wrong-horse')).json).toEqual({ ...WRONG, fail_url: '' });
  });

  it('answers FAIL with the member’s own failure URL when the login names a member that has one', async () => {
    const { create, login } = await setup({ failUrl: '/account-default' });
    await create({ _login: 'carol', _password: 'correct-horse', set_urlwrong: 'https://example.com/again' });
    const reply = await login('carol', 'nope-nope');
    expect(Object.keys(reply.json)).toEqual(['result', 'message', 'fail_url']);
    expect(reply.json).toEqual({ ...WRONG, fail_url: 'https://example.com/again' });
  });

  it('answers an unknown login, a wrong password and a deleted member with the same message', async () => {
    const { create, login, account } = await setup();
    await create({ _login: 'dan', _password: 'correct-horse' });
    const hash = await createArgon2Hasher().hash('correct-horse');
    await insertMember(h().store, account.id, { login: 'gone', passwordHash: hash, status: 'D' });
    const replies = [await login('nobody', 'correct-horse'), await login('dan', 'wrong-horse'), await login('gone', 'correct-horse')];
    for (const reply of replies) expect(reply.body).toBe('{"result":"FAIL","message":"wrong login or password","fail_url":""}');
  });

  it('does the same store work for a login that names no member as for a wrong password: both count a failure', async () => {
    const { create, login, account } = await setup();
    await create({ _login: 'known', _password: 'correct-horse' });
    await login('nobody-at-all', 'wrong-horse');
    await login('known', 'wrong-horse');
    const counted = await peek(h().database, (db) =>
      db
        .selectFrom('login_failures')
        .select(['member_id', 'scope', 'failures'])
        .where('account_id', '=', account.id)
        .orderBy('member_id')
        .orderBy('scope')
        .execute(),
    );
    const id = (await h().store.members.findMemberByLogin(account.id, 'known'))!.id;
    expect(counted).toEqual([
      { member_id: 0, scope: '', failures: 1 },
      { member_id: 0, scope: '*', failures: 1 },
      { member_id: id, scope: '', failures: 1 },
      { member_id: id, scope: '*', failures: 1 },
    ]);
  });

  it('answers an unknown account like an unknown login', async () => {
    const reply = await h().post('/api2/login/', { user: 'no-such-account', login: 'x', password: 'y' });
    expect(reply.json).toEqual({ ...WRONG, fail_url: '' });
  });

  it('tells a suspended member with the right password that it is suspended, and nothing more with a wrong one', async () => {
    const { login, account } = await setup();
    const hash = await createArgon2Hasher().hash('correct-horse');
    await insertMember(h().store, account.id, { login: 'sus', passwordHash: hash, status: 'S', urlFail: '/suspended' });
    expect((await login('sus', 'correct-horse')).json).toEqual({ result: 'FAIL', message: 'member suspended', fail_url: '/suspended' });
    expect((await login('sus', 'wrong-horse')).json).toEqual({ ...WRONG, fail_url: '/suspended' });
  });

  it('ignores names it does not know (a forwarded form), but never drops a near miss of one it does', async () => {
    const { create, login, apiKey } = await setup();
    await create({ _login: 'form', _password: 'correct-horse' });
    expect((await login('form', 'correct-horse', { submit: 'Log in', remember: 'on' })).json.result).toBe('OK');
    for (const [name, meant] of [
      ['ip', 'IP'],
      ['Password', 'password'],
      ['Login', 'login'],
      ['API_KEY', 'api_key'],
      ['User', 'user'],
    ]) {
      const reply = await login('form', 'correct-horse', { [name!]: name === 'ip' ? '192.0.2.1' : 'x', api_key: apiKey });
      expect(reply.json, name).toEqual({ result: 'ERROR', message: `unknown parameter: ${name} (did you mean ${meant}?)` });
    }
  });

  it('requires user, login and password', async () => {
    const { user } = await setup();
    expect((await h().post('/api2/login/', { login: 'a', password: 'b' })).json).toEqual({ result: 'ERROR', message: 'missing parameter: user' });
    expect((await h().post('/api2/login/', { user, password: 'b' })).json).toEqual({ result: 'ERROR', message: 'missing parameter: login' });
    expect((await h().post('/api2/login/', { user, login: 'a' })).json).toEqual({ result: 'ERROR', message: 'missing parameter: password' });
  });

  it('records IP, sent with the API key, with the time and outcome of each attempt', async () => {
    const { create, login, apiKey, account, member } = await setup();
    await create({ _login: 'erin', _password: 'correct-horse' });
    h().clock.set('2026-06-01T08:00:00Z');
    expect((await login('erin', 'correct-horse', { IP: '198.51.100.1', api_key: apiKey })).json.result).toBe('OK');
    h().clock.advance(MINUTE);
    expect((await login('erin', 'wrong-horse', { IP: '2001:db8::7', api_key: apiKey })).json.result).toBe('FAIL');
    expect((await login('nobody', 'wrong-horse', { IP: '198.51.100.2', api_key: apiKey })).json.result).toBe('FAIL');
    const events = await peek(h().database, (db) =>
      db.selectFrom('login_events').select(['member_id', 'login', 'ip', 'at', 'outcome']).where('account_id', '=', account.id).orderBy('id').execute(),
    );
    const id = (await member('erin'))!.id;
    expect(events).toEqual([
      { member_id: id, login: 'erin', ip: '198.51.100.1', at: Date.parse('2026-06-01T08:00:00Z'), outcome: 'ok' },
      { member_id: id, login: 'erin', ip: '2001:db8::7', at: Date.parse('2026-06-01T08:01:00Z'), outcome: 'wrong-credentials' },
      { member_id: null, login: 'nobody', ip: '198.51.100.2', at: Date.parse('2026-06-01T08:01:00Z'), outcome: 'wrong-credentials' },
    ]);
    expect((await member('erin'))?.lastLoginIp).toBe('198.51.100.1');
  });

  it('refuses IP without the right API key, and an IP that is not an address', async () => {
    const { create, login, apiKey } = await setup();
    await create({ _login: 'fay', _password: 'correct-horse' });
    const wrongKey = { result: 'ERROR', message: 'wrong api key' };
    expect((await login('fay', 'correct-horse', { IP: '198.51.100.1' })).json).toEqual(wrongKey);
    expect((await login('fay', 'correct-horse', { IP: '198.51.100.1', api_key: 'nope' })).json).toEqual(wrongKey);
    expect((await login('fay', 'correct-horse', { IP: 'localhost', api_key: apiKey })).json).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: IP (not an IPv4 or IPv6 address, nor a list of them)',
    });
    expect((await login('fay', 'correct-horse', { IP: '1.2.3.4/24', api_key: apiKey })).json).toEqual({
      result: 'ERROR',
      message: 'invalid parameter: IP (not an IPv4 or IPv6 address, nor a list of them)',
    });
  });

  it('sets the last-login time and counts logins', async () => {
    const { create, login, member } = await setup();
    await create({ _login: 'gus', _password: 'correct-horse' });
    h().clock.set('2026-07-01T12:00:00Z');
    await login('gus', 'correct-horse');
    h().clock.advance(MINUTE);
    await login('gus', 'correct-horse');
    await login('gus', 'wrong-horse');
    expect(await member('gus')).toMatchObject({ loginCount: 2, lastLoginAt: Date.parse('2026-07-01T12:01:00Z') });
  });

  it('lets the login that uses up the allowance succeed, then suspends the member', async () => {
    const { create, login, member } = await setup();
    await create({ _login: 'hal', _password: 'correct-horse', set_is_exp_logins: '1', set_exp_logins: '2' });
    expect((await login('hal', 'correct-horse')).json.result).toBe('OK');
    expect((await login('hal', 'correct-horse')).json.result).toBe('OK');
    expect((await login('hal', 'correct-horse')).json).toEqual({ result: 'FAIL', message: 'member suspended', fail_url: '' });
    expect(await member('hal')).toMatchObject({ status: 'S', loginCount: 2 });
  });

  it('lets the login that uses up the allowance succeed, then deletes the member', async () => {
    const { create, login, member } = await setup();
    await create({ _login: 'ida', _password: 'correct-horse', set_is_exp_logins: '2', set_exp_logins: '1' });
    h().clock.set('2026-07-02T00:00:00Z');
    expect((await login('ida', 'correct-horse')).json.result).toBe('OK');
    expect((await login('ida', 'correct-horse')).json).toEqual({ ...WRONG, fail_url: '' });
    expect(await member('ida')).toMatchObject({ status: 'D', deletedAt: Date.parse('2026-07-02T00:00:00Z') });
  });

  it('lets exactly K of 24 concurrent correct logins succeed for a member allowed K', async () => {
    const { create, login, member } = await setup();
    await create({ _login: 'kay', _password: 'correct-horse', set_is_exp_logins: '1', set_exp_logins: '5' });
    const replies = await Promise.all(Array.from({ length: 24 }, () => login('kay', 'correct-horse')));
    figure(`race [${h().store.engine}] 24 concurrent correct logins, 5 allowed: OK`, replies.filter((r) => r.json.result === 'OK').length);
    expect(replies.filter((r) => r.json.result === 'OK')).toHaveLength(5);
    expect(replies.filter((r) => r.json.message === 'member suspended')).toHaveLength(19);
    expect(await member('kay')).toMatchObject({ status: 'S', loginCount: 5 });
  });

  it('honours a due time expiration at once, before any sweep', async () => {
    const { create, login, member } = await setup();
    h().clock.set('2026-08-01T00:00:00Z');
    await create({ _login: 'jo', _password: 'correct-horse', set_is_exp_time: '1', set_exp_time: '10', set_exp_time_type: 'm' });
    await create({ _login: 'jd', _password: 'correct-horse', set_isexptime: '2', set_exptime: '10', set_exptimet: 'm' });
    h().clock.advance(10 * MINUTE - 1000);
    expect((await login('jo', 'correct-horse')).json.result).toBe('OK');
    h().clock.advance(1000);
    expect((await login('jo', 'correct-horse')).json).toEqual({ result: 'FAIL', message: 'member suspended', fail_url: '' });
    expect((await login('jd', 'correct-horse')).json).toEqual({ ...WRONG, fail_url: '' });
    // Nothing was written: the state follows from the expiration instant alone.
    expect((await member('jo'))?.status).toBe('A');
  });

  it('locks a member after repeated failures, keeps it locked for the step, and a success resets the count', async () => {
    const { create, login } = await setup({ lockout: { threshold: 3, stepSeconds: 60, maxSeconds: 300 } });
    await create({ _login: 'lou', _password: 'correct-horse' });
    h().clock.set('2026-09-01T00:00:00Z');
    for (let i = 0; i < 3; i++) expect((await login('lou', 'wrong-horse')).json.message).toBe('wrong login or password');
    // Locked: even the right password fails, with the very answer a wrong one gets.
    const locked = (await login('lou', 'correct-horse')).body;
    expect(locked).toBe('{"result":"FAIL","message":"wrong login or password","fail_url":""}');
    h().clock.advance(59_000);
    expect((await login('lou', 'correct-horse')).body).toBe(locked);
    h().clock.advance(1_000);
    expect((await login('lou', 'correct-horse')).json.result).toBe('OK');
    // The success reset the count: three more failures are needed to lock again.
    for (let i = 0; i < 2; i++) await login('lou', 'wrong-horse');
    expect((await login('lou', 'correct-horse')).json.result).toBe('OK');
  });

  it('lengthens the lock by a step per further failure, up to the maximum', async () => {
    const { create, login } = await setup({ lockout: { threshold: 2, stepSeconds: 60, maxSeconds: 150 } });
    await create({ _login: 'steps', _password: 'correct-horse' });
    h().clock.set('2026-09-02T00:00:00Z');
    const failThenWait = async (seconds: number) => {
      await login('steps', 'wrong-horse');
      h().clock.advance(seconds * 1000 - 1);
      expect((await login('steps', 'correct-horse')).json.result, `still locked before ${seconds}s`).toBe('FAIL');
      h().clock.advance(1);
    };
    await login('steps', 'wrong-horse');
    await failThenWait(60); // 2nd failure: one step
    await failThenWait(120); // 3rd: two steps
    await failThenWait(150); // 4th: capped at the maximum
    expect((await login('steps', 'correct-horse')).json.result).toBe('OK');
  });

  it('records a locked attempt as locked, with the address the integrator sent', async () => {
    const { create, login, apiKey, account } = await setup({ lockout: { threshold: 1 } });
    await create({ _login: 'rec', _password: 'correct-horse' });
    await login('rec', 'wrong-horse', { IP: '192.0.2.44', api_key: apiKey });
    await login('rec', 'correct-horse', { IP: '192.0.2.44', api_key: apiKey });
    const outcomes = await peek(h().database, (db) =>
      db.selectFrom('login_events').select('outcome').where('account_id', '=', account.id).orderBy('id').execute(),
    );
    expect(outcomes.map((o) => o.outcome)).toEqual(['wrong-credentials', 'locked']);
  });

  it('keys the lockout on member and address when IP is sent: other addresses of the member go on', async () => {
    const { create, login, apiKey } = await setup({ lockout: { threshold: 2 } });
    await create({ _login: 'roamer', _password: 'correct-horse' });
    const from = (ip: string) => ({ IP: ip, api_key: apiKey });
    await login('roamer', 'wrong-1-horse', from('198.51.100.66'));
    await login('roamer', 'wrong-2-horse', from('198.51.100.66'));
    expect((await login('roamer', 'correct-horse', from('198.51.100.66'))).json.result).toBe('FAIL');
    expect((await login('roamer', 'correct-horse', from('203.0.113.10'))).json.result).toBe('OK');
  });

  it('counts one address however it is written, and an IPv6 /64 as one address', async () => {
    const { create, login, apiKey } = await setup();
    await create({ _login: 'v6', _password: 'correct-horse' });
    const from = (ip: string) => ({ IP: ip, api_key: apiKey });
    for (let i = 0; i < 35; i++) expect((await login('v6', `wrong-${i}-horse`, from('2001:db8::1'))).json.result).toBe('FAIL');
    // The same address in another spelling, another address of the same /64: locked.
    for (const ip of ['2001:DB8:0::1', '2001:db8::2', '2001:db8:0:0:ffff::9']) {
      expect((await login('v6', 'correct-horse', from(ip))).json, ip).toEqual({ ...WRONG, fail_url: '' });
    }
    // Another /64 is another subscriber.
    expect((await login('v6', 'correct-horse', from('2001:db8:0:1::1'))).json.result).toBe('OK');
    // An IPv4-mapped IPv6 address is that IPv4 address.
    await create({ _login: 'v4', _password: 'correct-horse' });
    for (let i = 0; i < 30; i++) await login('v4', `wrong-${i}-horse`, from('198.51.100.9'));
    expect((await login('v4', 'correct-horse', from('::ffff:198.51.100.9'))).json.result).toBe('FAIL');
  });

  it('locks a member after 100 failures in a row from any number of addresses (NIST ceiling)', async () => {
    const { create, login, apiKey, account } = await setup();
    await create({ _login: 'spread', _password: 'correct-horse' });
    // Ten addresses, ten failures each: no address reaches the threshold of 30.
    for (let a = 0; a < 10; a++) for (let i = 0; i < 10; i++) await login('spread', `wrong-${a}-${i}`, { IP: `203.0.113.${a + 1}`, api_key: apiKey });
    for (const extra of [{ IP: '192.0.2.200', api_key: apiKey }, {}] as Array<Record<string, string>>) {
      expect((await login('spread', 'correct-horse', extra)).json).toEqual({ ...WRONG, fail_url: '' });
    }
    // Until the count resets (12 h by default).
    h().clock.advance(account.settings.lockout.resetSeconds * 1000 + 1);
    expect((await login('spread', 'correct-horse', { IP: '192.0.2.200', api_key: apiKey })).json.result).toBe('OK');
  });

  it('locks only the member that failed: other members and the integrator go on', async () => {
    const { create, login } = await setup({ lockout: { threshold: 2 } });
    await create({ _login: 'target', _password: 'correct-horse' });
    await create({ _login: 'bystander', _password: 'correct-horse' });
    await login('target', 'x-wrong-1');
    await login('target', 'x-wrong-2');
    expect((await login('target', 'correct-horse')).json.result).toBe('FAIL');
    expect((await login('bystander', 'correct-horse')).json.result).toBe('OK');
  });

  it('upgrades a hash made with older parameters at the next successful login', async () => {
    const { login, account, member } = await setup();
    const old = await createArgon2Hasher({ memoryCost: 4096, timeCost: 3, parallelism: 1 }).hash('correct-horse');
    await insertMember(h().store, account.id, { login: 'old', passwordHash: old });
    expect((await login('old', 'correct-horse')).json.result).toBe('OK');
    expect((await member('old'))?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await login('old', 'correct-horse')).json.result).toBe('OK');
  });

  it('normalises passwords (NFKC): the same text typed differently logs in', async () => {
    const { create, login } = await setup();
    await create({ _login: 'uni', _password: 'ﬁnal-Ｐassword' });
    expect((await login('uni', 'final-Password')).json.result).toBe('OK');
  });
});
