/**
 * What anyone can send without a key costs little: a login password longer than any can be
 * is refused before it is normalised or hashed, /login/ and /list/ read small bodies only,
 * and a deeply nested JSON body is refused before it is parsed.
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

const JSON_TYPE = { 'content-type': 'application/json' };
/** U+FDFA grows 18 times under NFKC. */
const EXPANDING = '\uFDFA';

describeEachEngineApp('unauthenticated work', (h) => {
  it('refuses a login password over 1,024 characters before anything else, for every member and none alike', async () => {
    const api = await apiAccount(h());
    await api.create('long-pass');
    const refused = { result: 'ERROR', message: 'invalid parameter: password (too long: at most 1024 characters)' };
    const hashesBefore = h().services.hashing.stats();
    for (const login of ['long-pass', 'nobody']) {
      const reply = await h().post('/api2/login/', { user: api.user, login, password: EXPANDING.repeat(1025) });
      expect(reply.json).toEqual(refused);
    }
    // 1,024 characters is a password like any other (wrong here).
    expect((await h().post('/api2/login/', { user: api.user, login: 'long-pass', password: EXPANDING.repeat(1024) })).json.result).toBe('FAIL');
    expect(h().services.hashing.stats().refused).toBe(hashesBefore.refused);
  });

  it('reads at most 64 KiB for /login/ and /list/ (413), whatever the body limit of the others', async () => {
    const api = await apiAccount(h());
    const huge = JSON.stringify({ user: api.user, login: 'x', password: EXPANDING.repeat(2_790_000) });
    const login = await h().request({ url: '/api2/login/', payload: huge, headers: JSON_TYPE });
    expect([login.status, login.json]).toEqual([413, { result: 'ERROR', message: 'request body too large' }]);
    const list = await h().request({
      url: '/api2/list/',
      payload: `user=${api.user}&api_key=${api.apiKey}&login=${'x'.repeat(70_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(list.status).toBe(413);
    // /create/ still takes 100 profile fields of 60 KiB.
    const fields = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, 'v'.repeat(60_000)]));
    expect((await api.create('big-profile', fields)).result).toBe('OK');
  });

  it('refuses a chosen password over 1,024 characters before normalising it, naming the reason', async () => {
    const api = await apiAccount(h());
    const reply = await h().post('/api2/create/', {
      user: api.user,
      api_key: api.apiKey,
      _login: 'p',
      _email: 'p@example.com',
      _password: EXPANDING.repeat(100_000),
    });
    expect(reply.json.message).toMatch(/^invalid parameter: _password/);
  });

  it('refuses a deeply nested JSON body with 400 before parsing it', async () => {
    for (const [path, depth] of [
      ['/api2/login/', 30_000],
      ['/api2/create/', 1_000_000],
    ] as const) {
      const deep = `{"user":${'['.repeat(depth)}${']'.repeat(depth)}}`;
      const reply = await h().request({ url: path, payload: deep, headers: JSON_TYPE });
      expect([reply.status, reply.json]).toEqual([400, { result: 'ERROR', message: 'malformed request body' }]);
    }
    // A shallow nested value is refused by name, as before.
    const shallow = await h().request({ url: '/api2/login/', payload: JSON.stringify({ user: 'x', login: { a: [1] }, password: 'y' }), headers: JSON_TYPE });
    expect(shallow.json).toEqual({ result: 'ERROR', message: 'invalid parameter: login (not a string)' });
  });
});
