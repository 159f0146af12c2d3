/**
 * Property-based hostile input: thousands of generated requests (random and tricky names and
 * values, every encoding, repeated keys, `__proto__`, huge and empty values) against every
 * endpoint. Whatever is sent: no 5xx, always the JSON answer shape, Object.prototype untouched.
 * FUZZ_RUNS sets the number of requests per engine (npm run reliability uses 50,000).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { figure } from '../support/report.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

const KNOWN_NAMES = [
  'user',
  'api_key',
  '_login',
  '_email',
  '_password',
  'login',
  'password',
  'email',
  'record',
  'limit',
  'limitd',
  'status',
  'reg_type',
  'find_member_id',
  'find_member_login',
  'find_member_email',
  'find_member_ptrans',
  'is_exp_time',
  'exp_time',
  'exp_time_type',
  'is_exp_logins',
  'exp_logins',
  'set_is_exp_time',
  'set_exp_time',
  'set_exp_time_type',
  'set_isexptime',
  'set_exptime',
  'set_exptimet',
  'set_is_exp_logins',
  'set_exp_logins',
  'set_urlok',
  'set_urlwrong',
  'urlok',
  'urlfail',
  'IP',
  'pfdelete',
  'profile',
  'profile:city',
  'register_after',
  'register_before',
  'login_full',
  'email_full',
  'id',
  'code',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'city',
  'first_name',
];

const TRICKY_VALUES = [
  '',
  ' ',
  '*',
  'A',
  'S',
  'D',
  'N',
  'F',
  'P',
  'M',
  '0',
  '1',
  '2',
  '3',
  'm',
  'h',
  'M',
  'Y',
  'constructor',
  '__proto__',
  '{id}{login}',
  '{id}{__proto__}',
  '{',
  '}',
  '{}',
  '%',
  '_',
  '%_%',
  '\\',
  '"',
  "'",
  '2026-01-01',
  '2026-02-30',
  '-1',
  '99999999999',
  '1e3',
  '100s',
  '100',
  'NaN',
  'null',
  'undefined',
  'true',
  '192.0.2.1',
  '::1',
  '1.2.3.4/24',
  'a@b',
  'https://example.com/',
  'javascript:alert(1)',
  '/path',
  '\u0000',
  '\r\n{"forged":1}',
  'ü€𝄞',
  '\ud800',
  'x'.repeat(2049),
];

/** Line breaks and quotes, which break a multipart header (the parser skips such a part). */
const BREAKING = ['\r', '\n', '"', ';', '=', '-', 'a'];

const name = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_NAMES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 70 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom('profile:__proto__', 'profile:', 'x'.repeat(200), '', ' ', '[]', 'a[b]', 'a.b') },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...BREAKING), minLength: 1, maxLength: 6 }) },
);

const value = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...TRICKY_VALUES) },
  { weight: 3, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1000, maxLength: 20_000 }) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...BREAKING), maxLength: 200 }) },
  { weight: 2, arbitrary: fc.nat().map(String) },
  { weight: 1, arbitrary: fc.constantFrom('y'.repeat(70_000), 'z'.repeat(65_536)) },
);

const ENDPOINTS = ['/api2/login/', '/api2/create/', '/api2/update/', '/api2/list/', '/api2/list', '/api2/verify/', '/api2/nothing/', '/api2/create'];

const requestShape = fc.record({
  path: fc.constantFrom(...ENDPOINTS),
  method: fc.oneof(
    { weight: 8, arbitrary: fc.constant('POST') },
    { weight: 3, arbitrary: fc.constant('GET') },
    { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH') },
  ),
  encoding: fc.constantFrom('form', 'json', 'multipart', 'query', 'form-and-query'),
  authenticate: fc.boolean(),
  params: fc.array(fc.tuple(name, value), { maxLength: 25 }),
  jsonExtras: fc.array(fc.tuple(name, fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 }),
});

type Shape = typeof requestShape extends fc.Arbitrary<infer T> ? T : never;

function encode(shape: Shape, pairs: Array<[string, string]>): { url: string; payload?: string | Buffer; headers: Record<string, string> } {
  const form = () => new URLSearchParams(pairs).toString();
  switch (shape.encoding) {
    case 'query':
      return { url: `${shape.path}?${form()}`, headers: {} };
    case 'form-and-query': {
      const half = Math.floor(pairs.length / 2);
      return {
        url: `${shape.path}?${new URLSearchParams(pairs.slice(0, half))}`,
        payload: new URLSearchParams(pairs.slice(half)).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      };
    }
    case 'json': {
      // Written by hand, so that repeated keys and __proto__ reach the server as sent.
      const members = [...pairs.map(([k, v]) => [k, v] as [string, unknown]), ...shape.jsonExtras].map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
      return { url: shape.path, payload: `{${members.join(',')}}`, headers: { 'content-type': 'application/json' } };
    }
    case 'multipart': {
      const boundary = '----fuzz-boundary';
      const body = pairs.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('');
      return { url: shape.path, payload: Buffer.from(`${body}--${boundary}--\r\n`), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
    }
    default:
      return { url: shape.path, payload: form(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
  }
}

async function answerWithin<T>(ms: number, answer: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

describeEachEngineApp('hostile input', (h) => {
  it("answers a multipart body whose malformed part is larger than the parser's buffer (it used to hang)", async () => {
    const api = await apiAccount(h());
    const boundary = '----b';
    const malformed = [
      'Content-Disposition: form-data; name="a\rb"',
      'Content-Disposition: form-data; name="\n"',
      'Content-Type: text/plain',
      'Content-Disposition: attachment; name="a"',
    ];
    for (const header of malformed) {
      for (const size of [100, 17_000, 40_000]) {
        const payload = Buffer.from(
          `--${boundary}\r\n${header}\r\n\r\n${'z'.repeat(size)}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="user"\r\n\r\n${api.user}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${api.apiKey}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="limit"\r\n\r\n1\r\n--${boundary}--\r\n`,
        );
        const reply = await answerWithin(
          5_000,
          h().app.inject({ method: 'POST', url: '/api2/list/', payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }),
        );
        // The malformed part is skipped; the well-formed ones are read.
        expect(reply.statusCode, `${JSON.stringify(header)} ${size}`).toBe(200);
        expect(JSON.parse(reply.body)).toMatchObject({ members: [] });
      }
    }
    // A body declared larger than the limit is refused before it is parsed.
    const tooLarge = Buffer.from(`--${boundary}\r\nContent-Type: text/plain\r\n\r\n${'z'.repeat(70_000)}\r\n--${boundary}--\r\n`);
    const refused = await answerWithin(
      5_000,
      h().app.inject({ method: 'POST', url: '/api2/list/', payload: tooLarge, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }),
    );
    expect(refused.statusCode).toBe(413);
  });

  it(
    `answers ${RUNS} generated requests without a 5xx, always in the answer shape, leaving Object.prototype alone`,
    async () => {
      // A fresh account every 2,000 requests: what the fuzzer creates would otherwise pile up
      // and make every find_member_id=* update slower than the last.
      let api = await apiAccount(h());
      let run = 0;
      const freshAccount = async () => {
        api = await apiAccount(h());
        await api.create('existing', { city: 'Oslo' });
      };
      await freshAccount();
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
      const statuses = new Map<number, number>();

      await fc.assert(
        fc.asyncProperty(requestShape, async (shape) => {
          if (++run % 2000 === 0) await freshAccount();
          const pairs: Array<[string, string]> = shape.authenticate ? [['user', api.user], ['api_key', api.apiKey], ...shape.params] : shape.params;
          const { url, payload, headers } = encode(shape, pairs);
          // A request that takes this long is a finding in itself: it fails the property, so that
          // fast-check names it and the seed that replays it.
          const reply = await answerWithin(
            10_000,
            h().app.inject({
              method: shape.method as 'POST',
              url,
              payload: shape.method === 'GET' ? undefined : payload,
              headers: shape.method === 'GET' ? {} : headers,
            }),
          );
          statuses.set(reply.statusCode, (statuses.get(reply.statusCode) ?? 0) + 1);
          expect(reply.statusCode, reply.body).toBeLessThan(500);
          if (shape.path.startsWith('/api2/verify') && shape.method === 'GET') {
            expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
            return;
          }
          expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
          const body = JSON.parse(reply.body);
          if (reply.statusCode >= 400) {
            expect(body).toEqual({ result: 'ERROR', message: expect.any(String) });
          } else if ('members' in body) {
            expect(Array.isArray(body.members)).toBe(true);
            expect(typeof body.members_total).toBe('number');
          } else {
            expect(['OK', 'FAIL', 'ERROR']).toContain(body.result);
            expect(typeof body.message).toBe('string');
          }
        }),
        { numRuns: RUNS },
      );

      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
      expect(({} as Record<string, unknown>).forged).toBeUndefined();
      figure(`fuzz [${h().store.engine}] requests`, RUNS);
      figure(`fuzz [${h().store.engine}] answers by status`, Object.fromEntries([...statuses].sort()));
      // The run reached the application, not only the parsers.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(RUNS / 4);
    },
    60_000 + RUNS * 20,
  );
});
