import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { appDependencies, servicesOver } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/store.js';
import { describeEachEngineApp, formBody } from '../support/app.js';
import { createTestStore, engineAvailable, ENGINES } from '../support/engines.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const APP_CONFIG = loadConfig({ BODY_LIMIT_BYTES: '65536', MAX_PARAMETERS: '100', KEY_FAILURE_LIMIT: '100' });
const JSON_TYPE = { 'content-type': 'application/json' };

function multipart(fields: Array<[string, string, string?]>): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----member-api-test';
  const parts = fields.map(([name, value, filename]) =>
    [
      `--${boundary}`,
      `Content-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}`,
      ...(filename ? ['Content-Type: text/plain'] : []),
      '',
      value,
    ].join('\r\n'),
  );
  return { payload: Buffer.from(`${parts.join('\r\n')}\r\n--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

const wireLog = new PassThrough();
let wireLogText = '';
wireLog.on('data', (chunk: Buffer) => (wireLogText += chunk.toString()));

describeEachEngineApp(
  'wire',
  (h) => {
    /** Error-level (and worse) log lines written since the last call. */
    function errorLines(): string[] {
      const lines = wireLogText.split('\n').filter((line) => line !== '' && (JSON.parse(line) as { level: number }).level >= 50);
      wireLogText = '';
      return lines;
    }

    async function account() {
      const { user, apiKey, account } = await h().newAccount();
      const profile = async (login: string) => {
        const member = await h().store.members.findMemberByLogin(account.id, login);
        return member && h().store.members.findProfile(account.id, member.id);
      };
      return { user, apiKey, profile };
    }

    it('answers every path with and without its trailing slash', async () => {
      const { user, apiKey } = await account();
      for (const path of ['/api2/create/', '/api2/create']) {
        const reply = await h().post(path, { user, api_key: apiKey, _login: `slash${path.length}`, _email: 'a@example.com' });
        expect(reply.json.result).toBe('OK');
      }
      expect((await h().post('/api2/login', { user, login: 'slash13', password: 'x' })).json.result).toBe('FAIL');
    });

    it('takes multipart bodies, as curl -F sends them, reading file parts as text', async () => {
      const { user, apiKey, profile } = await account();
      const { payload, headers } = multipart([
        ['user', user],
        ['api_key', apiKey],
        ['_login', 'multi'],
        ['_email', 'm@example.com'],
        ['bio', 'from a file ü', 'bio.txt'],
      ]);
      const reply = await h().request({ url: '/api2/create/', payload, headers });
      expect(reply.json.result).toBe('OK');
      expect(await profile('multi')).toEqual(new Map([['bio', 'from a file ü']]));
    });

    it('answers a malformed multipart body (no boundary, cut short) 400, never 500', async () => {
      const { user, apiKey } = await account();
      errorLines();
      const noBoundary = await h().request({ url: '/api2/create/', payload: 'user=x', headers: { 'content-type': 'multipart/form-data' } });
      const cut = await h().request({
        url: '/api2/create/',
        payload: `------cut\r\nContent-Disposition: form-data; name="user"\r\n\r\n${user}\r\n------cut\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${apiKey}`,
        headers: { 'content-type': 'multipart/form-data; boundary=----cut' },
      });
      for (const reply of [noBoundary, cut]) expect([reply.status, reply.json]).toEqual([400, { result: 'ERROR', message: 'malformed request body' }]);
      expect(errorLines()).toEqual([]);
    });

    it('takes a JSON object of strings, numbers and booleans, and refuses nested values by name', async () => {
      const { user, apiKey, profile } = await account();
      const body = { user, api_key: apiKey, _login: 'json', _email: 'j@example.com', age: 42, vip: true };
      expect((await h().request({ url: '/api2/create/', payload: JSON.stringify(body), headers: JSON_TYPE })).json.result).toBe('OK');
      expect(await profile('json')).toEqual(
        new Map([
          ['age', '42'],
          ['vip', 'true'],
        ]),
      );
      const nested = { ...body, _login: 'json2', address: { city: 'Oslo' } };
      expect((await h().request({ url: '/api2/create/', payload: JSON.stringify(nested), headers: JSON_TYPE })).json).toEqual({
        result: 'ERROR',
        message: 'invalid parameter: address (not a string)',
      });
    });

    it('answers 400 with the JSON shape for a malformed or non-object JSON body', async () => {
      for (const payload of ['{"user":', '[1,2]', '"text"', 'null']) {
        const reply = await h().request({ url: '/api2/login/', payload, headers: JSON_TYPE });
        expect(reply.status, payload).toBe(400);
        expect(reply.json).toEqual({ result: 'ERROR', message: 'malformed request body' });
      }
    });

    it('reads the query string too; a body value wins over a query value, and the last repeated value wins', async () => {
      const { user, apiKey, profile } = await account();
      const query = new URLSearchParams({ user, api_key: apiKey, _login: 'from-query', color: 'query' });
      const reply = await h().request({
        url: `/api2/create/?${query}`,
        payload: formBody([
          ['_email', 'q@example.com'],
          ['_login', 'from-body'],
          ['color', 'first'],
          ['color', 'last'],
        ]),
        headers: FORM,
      });
      expect(reply.json).toMatchObject({ result: 'OK', login: 'from-body' });
      expect(await profile('from-body')).toEqual(new Map([['color', 'last']]));
      const onlyQuery = new URLSearchParams({ user, api_key: apiKey, _login: 'query-only', _email: 'q@example.com' });
      expect((await h().request({ url: `/api2/create/?${onlyQuery}` })).json.result).toBe('OK');
    });

    it('decodes UTF-8 and + as a space in form bodies, with or without a charset', async () => {
      const { user, apiKey, profile } = await account();
      const payload = `user=${user}&api_key=${apiKey}&_login=utf&_email=u%40example.com&city=S%C3%A3o+Paulo`;
      const reply = await h().request({ url: '/api2/create/', payload, headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' } });
      expect(reply.json.result).toBe('OK');
      expect(await profile('utf')).toEqual(new Map([['city', 'São Paulo']]));
    });

    it('treats __proto__ and constructor as plain names and leaves Object.prototype alone', async () => {
      const { user, apiKey, profile } = await account();
      const form = formBody([
        ['user', user],
        ['api_key', apiKey],
        ['_login', 'proto'],
        ['_email', 'p@example.com'],
        ['constructor', 'c'],
        ['__proto__', 'x'],
      ]);
      expect((await h().request({ url: '/api2/create/', payload: form, headers: FORM })).json).toEqual({
        result: 'ERROR',
        message: 'unknown parameter: __proto__',
      });
      const json = `{"user":"${user}","api_key":"${apiKey}","_login":"proto","_email":"p@example.com","constructor":"c","__proto__":{"polluted":"yes"}}`;
      expect((await h().request({ url: '/api2/create/', payload: json, headers: JSON_TYPE })).json.result).toBe('ERROR');
      const ok = formBody([
        ['user', user],
        ['api_key', apiKey],
        ['_login', 'proto'],
        ['_email', 'p@example.com'],
        ['constructor', 'c'],
        ['toString', 't'],
      ]);
      expect((await h().request({ url: '/api2/create/', payload: ok, headers: FORM })).json.result).toBe('OK');
      expect(await profile('proto')).toEqual(
        new Map([
          ['constructor', 'c'],
          ['toString', 't'],
        ]),
      );
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    });

    it('refuses U+0000 in any parameter name or value, naming it (found by the fuzz test on PostgreSQL)', async () => {
      const { user, apiKey } = await account();
      expect((await h().post('/api2/login/', { user: '\u0000', login: 'x', password: 'y' })).json).toEqual({
        result: 'ERROR',
        message: 'invalid parameter: user (contains U+0000)',
      });
      expect((await h().post('/api2/create/', { user, api_key: apiKey, _login: 'nul', _email: 'n@example.com', 'bad\u0000name': 'v' })).json.result).toBe(
        'ERROR',
      );
      expect((await h().post('/api2/create/', { user, api_key: apiKey, _login: 'nul', _email: 'n@example.com', bio: 'a\u0000b' })).json).toEqual({
        result: 'ERROR',
        message: 'invalid parameter: bio (contains U+0000)',
      });
      expect((await h().request({ method: 'GET', url: '/api2/verify/?user=%00&login=a&id=1&code=b' })).status).toBe(400);
    });

    it('answers 404 for an unknown path and 405 with Allow for a wrong method, in the JSON shape', async () => {
      const notFound = await h().request({ method: 'GET', url: '/api2/nothing/' });
      expect(notFound.status).toBe(404);
      expect(notFound.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(notFound.json).toEqual({ result: 'ERROR', message: 'not found' });
      for (const [method, url] of [
        ['PATCH', '/api2/login/'],
        ['PUT', '/api2/create'],
        ['DELETE', '/api2/create/'],
        ['POST', '/api2/verify/'],
      ]) {
        const reply = await h().request({ method: method!, url: url! });
        expect(reply.status, `${method} ${url}`).toBe(405);
        expect(reply.json).toEqual({ result: 'ERROR', message: 'method not allowed' });
        expect(reply.headers.allow).toBeTruthy();
      }
    });

    it('answers 413 at once for ten thousand fields, in every encoding', async () => {
      const fields = Array.from({ length: 10_000 }, (_, i) => [`f${i}`, 'v'] as [string, string]);
      const form = await h().request({ url: '/api2/create/', payload: formBody(fields), headers: FORM });
      const json = await h().request({ url: '/api2/create/', payload: JSON.stringify(Object.fromEntries(fields)), headers: JSON_TYPE });
      const { payload, headers } = multipart(fields.map(([n, v]) => [n, v]));
      const parts = await h().request({ url: '/api2/create/', payload, headers });
      const query = await h().request({ method: 'GET', url: `/api2/list/?${formBody(fields)}` });
      for (const reply of [form, json, parts, query]) {
        expect(reply.status).toBe(413);
        expect(reply.json.result).toBe('ERROR');
      }
    });

    it('answers 415 for content types it does not take', async () => {
      for (const type of ['text/plain', 'application/xml', 'application/octet-stream']) {
        const reply = await h().request({ url: '/api2/login/', payload: 'user=x', headers: { 'content-type': type } });
        expect(reply.status, type).toBe(415);
        expect(reply.json).toEqual({ result: 'ERROR', message: 'unsupported content type' });
      }
    });

    it('answers 200 for every application outcome', async () => {
      const replies = [
        await h().post('/api2/login/', {}),
        await h().post('/api2/login/', { user: 'x', login: 'y', password: 'z' }),
        await h().post('/api2/create/', { user: 'x', api_key: 'y' }),
      ];
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(replies.map((r) => r.json.result)).toEqual(['ERROR', 'FAIL', 'ERROR']);
    });
  },
  { logTo: wireLog },
);

describeEachEngineApp(
  'wire limits',
  (h) => {
    it('answers 413 for a body over the limit, in any encoding', async () => {
      const big = 'x'.repeat(70 * 1024);
      const form = await h().request({ url: '/api2/create/', payload: `user=a&bio=${big}`, headers: FORM });
      expect(form.status).toBe(413);
      expect(form.json).toEqual({ result: 'ERROR', message: 'request body too large' });
      const json = await h().request({ url: '/api2/create/', payload: JSON.stringify({ bio: big }), headers: JSON_TYPE });
      expect(json.status).toBe(413);
      const { payload, headers } = multipart([
        ['a', big.slice(0, 40 * 1024)],
        ['b', big.slice(0, 40 * 1024)],
      ]);
      const parts = await h().request({ url: '/api2/create/', payload, headers });
      expect(parts.status).toBe(413);
      expect(parts.json.result).toBe('ERROR');
    });

    it('answers 413 for more parameters than allowed', async () => {
      const many = Array.from({ length: 60 }, (_, i) => `f${i}=v`).join('&');
      const reply = await h().request({ url: '/api2/create/', payload: many, headers: FORM });
      expect(reply.status).toBe(413);
      expect(reply.json).toEqual({ result: 'ERROR', message: 'too many parameters' });
    });
  },
  { bodyLimitBytes: 64 * 1024, maxParameters: 50 },
);

describe('secrets in logs', () => {
  const lines: string[] = [];
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => lines.push(chunk.toString()));

  describeEachEngineApp(
    'logging',
    (h) => {
      it('writes one line per request and never a password, generated password or API key, even from a query string', async () => {
        const { user, apiKey } = await h().newAccount();
        const created = await h().post('/api2/create/', { user, api_key: apiKey, _login: 'logged', _email: 'l@example.com' });
        const generated = created.json.password as string;
        await h().post('/api2/create/', { user, api_key: apiKey, _login: 'logged2', _email: 'l@example.com', _password: 'chosen-secret-1' });
        const query = new URLSearchParams({ user, login: 'logged', password: generated, api_key: apiKey, IP: '192.0.2.1' });
        await h().request({ url: `/api2/login/?${query}` });
        await h().request({ url: `/api2/login/?user=${user}&login=x%0d%0a{"forged":true}&password=pw-in-query` });
        const output = lines.join('');
        expect(output).toContain('request completed');
        for (const secret of [apiKey, generated, 'chosen-secret-1', 'pw-in-query']) expect(output).not.toContain(secret);
        // Every line is one JSON object: CR/LF in a value cannot start a forged line.
        for (const line of output.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
        expect(output.split('\n').some((line) => line.startsWith('{"forged"'))).toBe(false);
      });
    },
    { logTo: sink },
  );
});

describe('store failures', () => {
  for (const engine of ENGINES) {
    it.skipIf(!engineAvailable(engine))(`answers 500 without internals when the store breaks [${engine}]`, async () => {
      const { store, dispose } = await createTestStore(engine);
      const services = await servicesOver(store, { publicUrl: 'http://localhost' });
      const app = await buildApp(appDependencies(services, APP_CONFIG, { logger: false }));
      await store.close();
      const reply = await app.inject({ method: 'POST', url: '/api2/login/', payload: 'user=a&login=b&password=c', headers: FORM });
      // A closed store is a fault of the program, not an outage: 500, and nothing of the cause.
      expect(reply.statusCode).toBe(500);
      expect(reply.body).toBe('{"result":"ERROR","message":"internal error"}');
      await app.close();
      await dispose().catch(() => {});
    });
  }

  it.skipIf(!engineAvailable('postgres'))('answers 503 fast when PostgreSQL cannot be reached', async () => {
    const { store: good, dispose } = await createTestStore('postgres');
    const services = await servicesOver(good, { publicUrl: 'http://localhost' });
    // The same services over a server that is not there.
    const gone = openStore('postgres://postgres@127.0.0.1:1/nothing');
    const unreachable = await servicesOver({ ...gone, secret: good.secret }, { publicUrl: 'http://localhost' });
    const app = await buildApp({ ...appDependencies(services, APP_CONFIG, { logger: false }), accounts: unreachable.accounts, logins: unreachable.logins });
    const started = Date.now();
    const reply = await app.inject({ method: 'POST', url: '/api2/login/', payload: 'user=a&login=b&password=c', headers: FORM });
    expect(reply.statusCode).toBe(503);
    expect(reply.headers['retry-after']).toBe('1');
    expect(JSON.parse(reply.body)).toEqual({ result: 'ERROR', message: 'service unavailable' });
    expect(Date.now() - started).toBeLessThan(5000);
    await app.close();
    await gone.close();
    await dispose();
  });
});

describeEachEngineApp(
  'slow clients',
  (h) => {
    it('cuts off a client that stops sending in the middle of its request', async () => {
      const { connect } = await import('node:net');
      const address = await h().app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = new URL(address);
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      await new Promise((resolve) => socket.once('connect', resolve));
      // Headers promise a body that never comes.
      socket.write('POST /api2/login/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nuser=');
      const started = Date.now();
      await new Promise((resolve) => socket.once('close', resolve));
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    });
  },
  { requestTimeoutMs: 500 },
);
