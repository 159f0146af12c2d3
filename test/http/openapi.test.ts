import { compileErrors, validate } from '@readme/openapi-parser';
import { expect, it } from 'vitest';
import { sendOnlyWhatWasFilledIn } from '../../src/http/openapi.js';
import { describeEachEngineApp } from '../support/app.js';

/**
 * Every route the app serves, as "METHOD path" (trailing slash dropped: each path answers
 * with and without one), from Fastify's own route table; nested lines are /docs' files.
 */
/**
 * Every method and full path of Fastify's route tree (`printRoutes`): a line's depth is its
 * indentation, its path its ancestors' segments and its own, joined as they are printed.
 */
function servedRoutes(table: string): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of table.split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (\S+) \(([A-Z, ]+)\)/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[2]!;
    stack.push(path);
    for (const method of match[3]!.split(', ')) if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes;
}

describeEachEngineApp('OpenAPI description', (h) => {
  it('is a valid OpenAPI 3.1 document that describes every route the server answers', async () => {
    const reply = await h().request({ method: 'GET', url: '/api2/openapi.json' });
    expect(reply.status).toBe(200);
    const document = reply.json;
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.specification).toBe('OpenAPI');
    expect(result.warnings).toEqual([]);

    const described = Object.entries(document.paths as Record<string, object>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path.replace(/(.)\/$/, '$1')}`),
    );
    const served = servedRoutes(h().app.printRoutes({ commonPrefix: false })).filter(
      // Pages for people (and proxies), not the API: hidden from the document. The reference
      // and its files, the home page, the reset page a link opens, the console
      // (docs/console.md) and the member pages (docs/member-pages.md), with the original's
      // older sign-in address and its registration-form script; and the payment providers'
      // notifications (docs/paid-memberships.md), which only Stripe and PayPal send.
      (route) =>
        !/^\w+ \/(docs|api2\/openapi\.json|api2\/reset-password|admin|auth|assets|billing|cgi-bin\/auth\.fcgi|regformcheck\.js)\b/.test(route) && route !== 'GET /',
    );
    expect(served.length).toBeGreaterThanOrEqual(8);
    expect(new Set(described)).toEqual(new Set(served));
  });

  it('describes each endpoint’s parameters from the list the endpoint itself uses', async () => {
    const document = (await h().request({ method: 'GET', url: '/api2/openapi.json' })).json;
    const form = (path: string) => document.paths[path].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(Object.keys(document.paths['/api2/create/'].post.requestBody.content)).toEqual([
      'application/x-www-form-urlencoded',
      'multipart/form-data',
      'application/json',
    ]);
    // `_email` too, for an account that requires it (--require-email on): not the original's rule.
    expect(form('/api2/create/').required).toEqual(['user', 'api_key', '_login']);
    expect(form('/api2/create/').properties).toHaveProperty('set_exptimet');
    expect(form('/api2/update/').properties).toHaveProperty('find_member_ptrans');
    expect(form('/api2/login/').additionalProperties).toBe(false);
    const listQuery = document.paths['/api2/list/'].get.parameters.map((p: { name: string }) => p.name);
    expect(listQuery).toEqual(expect.arrayContaining(['record', 'limit', 'limitd', 'register_after']));

    // A parameter the document lists is one the endpoint knows: it is never refused as unknown.
    const { user, apiKey } = await h().newAccount();
    for (const name of listQuery.filter((n: string) => !['user', 'api_key'].includes(n))) {
      const answer = await h().request({ method: 'GET', url: `/api2/list/?user=${user}&api_key=${apiKey}&${name}=` });
      expect(answer.json.message ?? '').not.toMatch(/unknown parameter/);
    }
  });

  it('states the rules /list/ applies: each pattern, maxLength and enum of its parameters', async () => {
    const document = (await h().request({ method: 'GET', url: '/api2/openapi.json' })).json;
    const { user, apiKey } = await h().newAccount();
    const refuses = async (name: string, value: string) => {
      const answer = await h().request({ method: 'GET', url: `/api2/list/?${new URLSearchParams({ user, api_key: apiKey, [name]: value })}` });
      return String(answer.json.message ?? '').startsWith(`invalid parameter: ${name} `);
    };
    const samples = ['1', '0', '007', '1s', '0s', '9999999999', '99999999999', '9999999999s', '99999999999s', 's', '1S', '-1', 'a', 'd', 'F', 'x'];
    const ruled = (document.paths['/api2/list/'].get.parameters as Array<{ name: string; schema: Record<string, any> }>).filter(
      ({ schema }) => schema.pattern !== undefined || schema.maxLength !== undefined || schema.enum !== undefined,
    );
    expect(ruled.map(({ name }) => name)).toEqual(expect.arrayContaining(['login', 'email', 'profile', 'status', 'reg_type', 'limit', 'limitd']));
    for (const { name, schema } of ruled) {
      // Lengths in code points, as JSON Schema counts them (an emoji is two UTF-16 units).
      const lengths = schema.maxLength === undefined ? [] : ['😀'.repeat(schema.maxLength), '😀'.repeat(schema.maxLength + 1)];
      for (const value of [...samples, ...lengths]) {
        const documented =
          (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value)) &&
          (schema.maxLength === undefined || [...value].length <= schema.maxLength) &&
          // The seed's codes, in either case.
          (schema.enum === undefined || schema.enum.includes(value.toUpperCase()));
        expect(await refuses(name, value), `${name}=${value}`).toBe(!documented);
      }
    }
  });

  it('states the rules /update/ applies: each pattern of its parameters', async () => {
    const document = (await h().request({ method: 'GET', url: '/api2/openapi.json' })).json;
    const { user, apiKey } = await h().newAccount();
    // What each needs beside it to be read at all; the account has no member, so a good value is "member not found".
    const beside: Record<string, Record<string, string>> = {
      find_member_id: { status: 'S' },
      exp_time: { find_member_login: 'nobody', is_exp_time: 'S', exp_time_type: 'm' },
      exp_logins: { find_member_login: 'nobody', is_exp_logins: 'S' },
    };
    const properties = document.paths['/api2/update/'].post.requestBody.content['application/x-www-form-urlencoded'].schema.properties;
    const patterned = Object.entries(properties as Record<string, { pattern?: string }>).filter(([, schema]) => schema.pattern !== undefined);
    expect(patterned.map(([name]) => name).sort()).toEqual(Object.keys(beside).sort());
    const samples = ['1', '0', '00', '007', '-1', '1.5', 'a', '*', '**', '999999999', '1000000000', '0999999999', '999999999999999', '1000000000000000'];
    for (const [name, { pattern }] of patterned) {
      for (const value of samples) {
        const answer = await h().post('/api2/update/', { user, api_key: apiKey, ...beside[name], [name]: value });
        const refused = String(answer.json.message).startsWith(`invalid parameter: ${name} `);
        expect(refused, `${name}=${value}: ${answer.json.message}`).toBe(!new RegExp(pattern!, 'u').test(value));
      }
    }
  });

  it('serves the reference page and its assets from this server, with nothing from elsewhere', async () => {
    const page = await h().request({ method: 'GET', url: '/docs/' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^(https?:)?\/\//);
      const url = new URL(asset, 'http://local/docs/').pathname;
      expect((await h().request({ method: 'GET', url })).status, url).toBe(200);
    }
    const initializer = await h().request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(initializer.status).toBe(200);
    // Everything it loads is relative to the page (the one absolute URL is in a comment).
    expect(initializer.body).toContain("url: resolveUrl('./json')");
    expect(initializer.body.replace(/^\s*\/\/.*$/gm, '')).not.toMatch(/https?:\/\//);
  });

  it('serves the reference page with a policy that keeps its scripts local and forbids framing', async () => {
    const page = await h().request({ method: 'GET', url: '/docs/' });
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    // The API's own answers carry nosniff too, and no page policy.
    const api = await h().request({ method: 'GET', url: '/api2/list/' });
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['content-security-policy']).toBeUndefined();
  });
});

it('the /docs page sends a form body its Curl box quotes: the account first, never a leading _, - or /', () => {
  const sent = (body: string) => sendOnlyWhatWasFilledIn({ body }).body as string;
  expect(sent('_login=alice&user=demo&_email=a%40example.com&api_key=K&_password=')).toBe('user=demo&api_key=K&_login=alice&_email=a%40example.com');
  // Without the account's parameters (a call that fails, but its box still pastes whole).
  const bare = sent('_login=alice&_email=a%40example.com');
  expect(bare).not.toMatch(/^[-_/]/);
  expect([...new URLSearchParams(bare)]).toEqual([
    ['_login', 'alice'],
    ['_email', 'a@example.com'],
  ]);
});
