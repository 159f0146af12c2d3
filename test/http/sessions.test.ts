import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { figure } from '../support/report.js';
import { sessionDigest } from '../../src/members/sessions.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCommand } from '../../src/import-export/commands.js';

const NOT_FOUND = { result: 'FAIL', message: 'session not found' };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describeEachEngineApp('/api2/session/ and /api2/logout/', (h) => {
  async function setup(settings = {}) {
    const { user, apiKey, account } = await h().newAccount(settings);
    const create = async (params: Record<string, string>) => {
      const reply = await h().post('/api2/create/', { user, api_key: apiKey, _email: 'm@example.com', _password: 'correct-horse', ...params });
      expect(reply.json.result).toBe('OK');
      return reply.json;
    };
    const login = async (name: string, password = 'correct-horse') => {
      const reply = await h().post('/api2/login/', { user, login: name, password });
      expect(reply.json.result).toBe('OK');
      return reply.json.session as string;
    };
    const check = async (session: string, extra: Record<string, string> = {}) => (await h().post('/api2/session/', { user, session, ...extra })).json;
    const update = async (params: Record<string, string>) => {
      const reply = await h().post('/api2/update/', { user, api_key: apiKey, ...params });
      expect(reply.json).toMatchObject({ result: 'OK' });
    };
    return { user, apiKey, account, create, login, check, update };
  }

  it('answers the member of a valid session, with the fields of a record as /list/ renders them', async () => {
    const { create, login, check, apiKey } = await setup({ timeZone: 'Europe/Paris' });
    h().clock.set('2026-11-23T10:00:00Z');
    const { id } = await create({ _login: 'alice', _email: 'alice@example.com', city: 'Lyon' });
    const session = await login('alice');
    const answer = await check(session);
    expect(answer).toEqual({
      result: 'OK',
      message: '',
      id: String(id),
      login: 'alice',
      email: 'alice@example.com',
      status: 'Active',
      expires: '2026-11-23 13:00:00',
    });
    expect(await check(session, { record: '{reg_date}{reg_type}{login}' })).toEqual({ ...answer, reg_date: '2026-11-23', reg_type: 'API' });
    // Profile fields need a key (or the account's --session-fields).
    const withRecord = await check(session, { record: '{reg_date}{city}{missing}{reg_type}{result}', api_key: apiKey });
    expect(withRecord).toMatchObject({ result: 'OK', id: String(id), reg_date: '2026-11-23', city: 'Lyon', missing: '', reg_type: 'API' });
    // `result` first, as in every answer; a record's field never takes the place of the answer's own.
    expect(Object.keys(withRecord).slice(0, 2)).toEqual(['result', 'message']);
    expect((await check(session, { record: '{nope' })).result).toBe('ERROR');
    expect(await check(session, { record: '{nope' })).toEqual({ result: 'ERROR', message: expect.stringMatching(/^invalid parameter: record/) });
    expect(await check('never-existed')).toEqual(NOT_FOUND);
    expect((await h().post('/api2/session/', { user: 'no-such-account', session })).json).toEqual(NOT_FOUND);
    expect((await h().post('/api2/session/', { user: 'x' })).json).toEqual({ result: 'ERROR', message: 'missing parameter: session' });
    // The document's maxLength is the check's: longer than any id /login/ hands out, refused before it is hashed.
    const document = (await h().request({ method: 'GET', url: '/api2/openapi.json' })).json;
    const { maxLength } = document.paths['/api2/session/'].post.requestBody.content['application/x-www-form-urlencoded'].schema.properties.session;
    expect(maxLength).toBe(256);
    expect(await check('x'.repeat(maxLength))).toEqual(NOT_FOUND);
    expect(await check('x'.repeat(maxLength + 1))).toEqual({ result: 'ERROR', message: `invalid parameter: session (at most ${maxLength} characters)` });
  });

  it('answers checks asked at once each for its own session (on PostgreSQL they share one query)', async () => {
    const { user, create, login, check } = await setup();
    const other = await setup();
    const names = ['ann', 'bob', 'cid', 'dee'];
    for (const name of names) await create({ _login: name, _email: `${name}@example.com` });
    await other.create({ _login: 'eve', _email: 'eve@example.com' });
    const sessions = await Promise.all(names.map((name) => login(name)));
    const elsewhere = await other.login('eve');
    // In one turn: each session twice, one that never existed, and another account's.
    const answers = await Promise.all([...sessions, ...sessions, 'never-existed', elsewhere].map((session) => check(session)));
    const logins = answers.map((answer) => (answer.result === 'OK' ? answer.login : answer.message));
    expect(logins).toEqual([...names, ...names, 'session not found', 'session not found']);
    // The member page check reads the same sessions the same way.
    const pages = await Promise.all(
      [...sessions, elsewhere].map((session) => h().request({ method: 'GET', url: `/auth/${user}/check`, headers: { cookie: `member_${user}=${session}` } })),
    );
    expect(pages.map((page) => page.status)).toEqual([200, 200, 200, 200, 401]);
    expect(pages.slice(0, 4).map((page) => page.headers['x-member-login'])).toEqual(names);
    expect((await other.check(elsewhere)).login).toBe('eve');
  });

  it('reads with the session alone only the fields the account allows (dates by default), and any field with a key that may read', async () => {
    const { user, apiKey, account, create, login, check } = await setup();
    await create({ _login: 'fiona', city: 'Oslo', plan: 'gold' });
    const session = await login('fiona');
    const refused = (field: string) => ({
      result: 'ERROR',
      message: `invalid parameter: record ({${field}} is not readable with the session alone: send api_key, or name it in the account's --session-fields)`,
    });
    expect(
      await check(session, { record: '{id}{login}{email}{status}{reg_type}{reg_date}{reg_time}{exp_date}{exp_time}{last_login_date}{last_login_time}' }),
    ).toMatchObject({
      result: 'OK',
      reg_type: 'API',
      last_login_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    // Neither a profile field nor a billing reference, and never silently left out.
    expect(await check(session, { record: '{reg_date}{city}' })).toEqual(refused('city'));
    expect(await check(session, { record: '{bill_id}' })).toEqual(refused('bill_id'));
    // An unknown account is judged by the default settings: no answer tells it apart.
    expect((await h().post('/api2/session/', { user: 'no-such-account', session, record: '{city}' })).json).toEqual(refused('city'));
    expect((await h().post('/api2/session/', { user: 'no-such-account', session, record: '{reg_date}' })).json).toEqual(NOT_FOUND);

    // A key that may read reads any field; a wrong one, or one that may not read, is refused.
    const issue = async (scope: 'read' | 'login') => {
      const issued = await h().services.accounts.addKey(user, `${scope}-key`, { scope });
      if (issued.kind !== 'issued') throw new Error(issued.kind);
      return issued.apiKey;
    };
    const reader = await issue('read');
    expect(await check(session, { record: '{city}{plan}{bill_id}', api_key: apiKey })).toMatchObject({ result: 'OK', city: 'Oslo', plan: 'gold', bill_id: '' });
    expect(await check(session, { record: '{city}', api_key: reader })).toMatchObject({ result: 'OK', city: 'Oslo' });
    expect(await check(session, { record: '{city}', api_key: await issue('login') })).toEqual({
      result: 'ERROR',
      message: 'api key not allowed for this call',
    });
    expect(await check(session, { record: '{reg_date}', api_key: 'not-the-key-at-all-0123456789' })).toEqual({ result: 'ERROR', message: 'wrong api key' });

    // The account's own list replaces the default.
    expect(await h().services.accounts.change(account.name, { sessionFields: ['reg_date', 'city'] })).toMatchObject({ kind: 'ok' });
    expect(await check(session, { record: '{reg_date}{city}' })).toMatchObject({ result: 'OK', city: 'Oslo' });
    expect(await check(session, { record: '{plan}' })).toEqual(refused('plan'));
    expect(await check(session, { record: '{reg_type}' })).toEqual(refused('reg_type'));
    expect(await h().services.accounts.change(account.name, { sessionFields: ['city', 'not a field'] })).toEqual({
      kind: 'invalid',
      setting: 'session-fields',
      reason: '"not a field" is neither a /list/ field nor a profile field name',
    });
  });

  it('answers profile fields named like the members of Object.prototype (constructor, toString, valueOf)', async () => {
    const { apiKey, account, create, login, check } = await setup();
    await create({ _login: 'proto', constructor: 'built', toString: 'said', valueOf: 'worth', hasOwnProperty: 'yes' });
    const session = await login('proto');
    const record = '{constructor}{toString}{valueOf}{hasOwnProperty}';
    const fields = { constructor: 'built', toString: 'said', valueOf: 'worth', hasOwnProperty: 'yes' };
    expect(await check(session, { record, api_key: apiKey })).toMatchObject({ result: 'OK', login: 'proto', ...fields });
    await h().services.accounts.change(account.name, { sessionFields: Object.keys(fields) });
    expect(await check(session, { record })).toMatchObject({ result: 'OK', ...fields });
  });

  it('ends after the idle lifetime unless checked, and after the absolute lifetime whatever the checks', async () => {
    const { create, login, check, account } = await setup({ sessionIdleSeconds: 3600, sessionLifetimeSeconds: 4 * 3600 });
    h().clock.set('2026-11-23T10:00:00Z');
    await create({ _login: 'bob' });
    const idle = await login('bob');
    const kept = await login('bob');
    h().clock.advance(50 * MINUTE);
    expect((await check(kept)).expires).toBe('2026-11-23 11:50:00');
    h().clock.advance(30 * MINUTE);
    expect(await check(idle)).toEqual(NOT_FOUND);
    // Checked 30 minutes ago: still valid; every check moves the deadline.
    for (let i = 0; i < 4; i++) {
      expect((await check(kept)).result).toBe('OK');
      h().clock.advance(50 * MINUTE);
    }
    // 10:00 + 4 h: the lifetime is over.
    expect(h().clock.now()).toBeGreaterThanOrEqual(Date.parse('2026-11-23T14:00:00Z'));
    expect(await check(kept)).toEqual(NOT_FOUND);
    // An ended session is gone, not only refused.
    expect(await h().store.sessions.findSession(account.id, sessionDigest(idle))).toBeUndefined();
    expect(await h().store.sessions.findSession(account.id, sessionDigest(kept))).toBeUndefined();
  });

  it('moves the idle deadline with a write at most once a minute', async () => {
    const { create, login, check } = await setup();
    h().clock.set('2026-11-23T10:00:00Z');
    await create({ _login: 'carl' });
    const session = await login('carl');
    h().clock.advance(30_000);
    expect((await check(session)).expires).toBe('2026-11-23 12:00:00');
    h().clock.advance(40_000);
    expect((await check(session)).expires).toBe('2026-11-23 12:01:10');
    h().clock.advance(10_000);
    // Within a minute of the last write: the deadline stays where it was written.
    expect((await check(session)).expires).toBe('2026-11-23 12:01:10');
  });

  it('/logout/ ends it, and answers OK whatever it is given', async () => {
    const { user, create, login, check } = await setup();
    await create({ _login: 'dora' });
    const session = await login('dora');
    const other = await login('dora');
    expect((await h().post('/api2/logout/', { user, session })).json).toEqual({ result: 'OK', message: '' });
    expect(await check(session)).toEqual(NOT_FOUND);
    expect((await check(other)).result).toBe('OK');
    expect((await h().post('/api2/logout/', { user, session })).json).toEqual({ result: 'OK', message: '' });
    expect((await h().post('/api2/logout/', { user: 'nobody-here', session: 'x'.repeat(300) })).json).toEqual({ result: 'OK', message: '' });
  });

  it('ends the sessions of members whose password changes, who are suspended or deleted, or whose sessions are revoked; a restore brings none back', async () => {
    const { create, login, check, update } = await setup();
    for (const name of ['p1', 's1', 'd1', 'r1', 'keep']) await create({ _login: name });
    const sessions = Object.fromEntries(await Promise.all(['p1', 's1', 'd1', 'r1', 'keep'].map(async (name) => [name, await login(name)] as const)));
    await update({ find_member_login: 'p1', password: 'another-horse' });
    await update({ find_member_login: 's1', status: 'S' });
    await update({ find_member_login: 'd1', status: 'D' });
    await update({ find_member_login: 'r1', revoke_sessions: '1' });
    for (const name of ['p1', 's1', 'd1', 'r1']) expect(await check(sessions[name]!)).toEqual(NOT_FOUND);
    expect((await check(sessions.keep!)).result).toBe('OK');
    await update({ find_member_login: 's1', status: 'A' });
    expect(await check(sessions.s1!)).toEqual(NOT_FOUND);
    // A member whose sessions were revoked logs in again.
    expect((await check(await login('r1'))).result).toBe('OK');
  });

  it('ends the sessions of members an import gives a new password or suspends, and keeps the others', async () => {
    const { user, create, login, check } = await setup();
    for (const name of ['imp-pw', 'imp-s', 'imp-same']) await create({ _login: name });
    const before = { pw: await login('imp-pw'), s: await login('imp-s'), same: await login('imp-same') };
    const dir = mkdtempSync(join(tmpdir(), 'member-api-sessions-'));
    const file = join(dir, 'members.csv');
    writeFileSync(file, 'login,email,password,status\nimp-pw,m@example.com,imported-horse-1,\nimp-s,m@example.com,,S\nimp-same,other@example.com,,\n');
    expect(await importCommand(h().services, file, { account: user, map: [], progress: false })).toMatchObject({ updated: 3, rejected: 0 });
    expect(await check(before.pw)).toEqual(NOT_FOUND);
    expect(await check(before.s)).toEqual(NOT_FOUND);
    expect(await check(before.same)).toMatchObject({ result: 'OK', email: 'other@example.com' });
  });

  it('refuses revoke_sessions other than 0 or 1, naming it', async () => {
    const { user, apiKey, create } = await setup();
    await create({ _login: 'flag' });
    const reply = await h().post('/api2/update/', { user, api_key: apiKey, find_member_login: 'flag', revoke_sessions: 'yes' });
    expect(reply.json).toEqual({ result: 'ERROR', message: 'invalid parameter: revoke_sessions (must be 0 or 1)' });
  });

  it('ends the sessions of a member whose time expiration falls due, or whose login allowance is used up', async () => {
    const { create, login, check, update } = await setup();
    h().clock.set('2026-11-23T10:00:00Z');
    await create({ _login: 'exp', set_is_exp_time: '1', set_exp_time: '1', set_exp_time_type: 'h' });
    await create({ _login: 'allow', set_is_exp_logins: '1', set_exp_logins: '1' });
    const expiring = await login('exp');
    const allowance = await login('allow');
    expect(await check(allowance)).toEqual(NOT_FOUND);
    h().clock.advance(2 * HOUR);
    expect(await check(expiring)).toEqual(NOT_FOUND);
    // Renewed: the session it had stays ended.
    await update({ find_member_login: 'exp', status: 'A', is_exp_time: 'N' });
    expect(await check(expiring)).toEqual(NOT_FOUND);
  });

  it('answers an ended session as one that never existed: same answer, same time', async () => {
    const { user, create, login } = await setup();
    await create({ _login: 'timing' });
    const ended: string[] = [];
    for (let i = 0; i < 60; i++) ended.push(await login('timing'));
    for (const session of ended) await h().post('/api2/logout/', { user, session });
    const never = ended.map((session) => `${session.slice(0, -4)}AAAA`);
    const time = async (session: string) => {
      const start = process.hrtime.bigint();
      const reply = await h().post('/api2/session/', { user, session });
      const spent = Number(process.hrtime.bigint() - start);
      expect(reply.json).toEqual(NOT_FOUND);
      return spent;
    };
    const endedTimes: number[] = [];
    const neverTimes: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < ended.length; i++) {
        endedTimes.push(await time(ended[i]!));
        neverTimes.push(await time(never[i]!));
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ratio = median(endedTimes) / median(neverTimes);
    figure(
      `session not found, ended vs never existed (${h().database.engine})`,
      `${ratio.toFixed(2)}× (${(median(endedTimes) / 1e6).toFixed(2)} vs ${(median(neverTimes) / 1e6).toFixed(2)} ms)`,
    );
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.2);
  });
});
