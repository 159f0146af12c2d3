import { createServer, request as httpRequest, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// As integrators import it: through the package's exports, from the built files.
import { MemberApiClient, MemberApiError, MemberApiHttpError, MemberApiNetworkError, type MemberRecord } from 'member-api/client';
import { clientTypesFrom, openApiDocument } from '../../scripts/openapi-document.js';
import { exitOf, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`MemberApiClient against a running server [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let client: MemberApiClient;

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      server = await startServe({ DATABASE_URL: database.url, KEY_FAILURE_LIMIT: '2' });
      const apiKey = server.demoKey();
      client = new MemberApiClient({ baseUrl: server.url, user: 'demo', apiKey });
    });

    afterAll(async () => {
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await database.drop();
    });

    it('creates, logs in, updates and lists, with the seed’s typed answers', async () => {
      const created = await client.create({ _login: 'alice', _email: 'alice@example.com', _password: 'correct-horse', city: 'Paris' });
      expect(created.result).toBe('OK');
      if (created.result !== 'OK') return;
      expect(created).toMatchObject({ login: 'alice', password: 'correct-horse', id: expect.stringMatching(/^\d+$/) });
      expect(created.verify_url).toContain('/api2/verify/?user=demo&login=alice');

      const ok = await client.login({ login: 'alice', password: 'correct-horse' });
      expect(ok.result === 'OK' && ok.session.length).toBeGreaterThanOrEqual(22);
      const fail = await client.login({ login: 'alice', password: 'wrong-horse' });
      expect(fail).toEqual({ result: 'FAIL', message: 'wrong login or password', fail_url: '' });
      expect(await client.login({ login: 'alice', password: 'correct-horse', IP: 'not-an-ip' })).toEqual({
        result: 'ERROR',
        message: 'invalid parameter: IP (not an IPv4 or IPv6 address, nor a list of them)',
      });

      expect(await client.create({ _login: 'ALICE', _email: 'a2@example.com' })).toEqual({ result: 'ERROR', message: 'login already taken' });
      expect(await client.update({ find_member_login: 'alice', city: 'Lyon', status: 'S' })).toEqual({ result: 'OK', message: '', updated: 1 });
      expect(await client.login({ login: 'alice', password: 'correct-horse' })).toMatchObject({ result: 'FAIL', message: 'member suspended' });

      const listed = await client.list({ record: '{id}{login}{status}{city}', login_full: 'alice' });
      expect(listed).toEqual({ members: [{ id: created.id, login: 'alice', status: 'Suspended', city: 'Lyon' }], members_total: 1 });
      expect(await client.list({ status: 'X' as 'A' })).toEqual({ result: 'ERROR', message: 'invalid parameter: status (one of A S D, in either case)' });
    });

    it('checks and ends sessions, and makes reset links, typed', async () => {
      expect((await client.create({ _login: 'sessions', _email: 'sessions@example.com', _password: 'correct-horse', city: 'Nice' })).result).toBe('OK');
      const ok = await client.login({ login: 'sessions', password: 'correct-horse' });
      if (ok.result !== 'OK') throw new Error(ok.message);
      // No key is sent: the record reads what the account lets a session read (not {city}, by default).
      const checked = await client.session({ session: ok.session, record: '{reg_type}' });
      expect(checked).toMatchObject({
        result: 'OK',
        login: 'sessions',
        status: 'Active',
        reg_type: 'API',
        expires: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      });
      expect(await client.logout({ session: ok.session })).toEqual({ result: 'OK', message: '' });
      expect(await client.session({ session: ok.session })).toEqual({ result: 'FAIL', message: 'session not found' });
      const reset = await client.reset({ find_member_login: 'sessions' });
      expect(reset.result === 'OK' && reset.reset_url).toContain('/api2/reset-password/?account=');
    });

    it('reads a streamed list member by member, and gives members_total at the end', async () => {
      for (let i = 0; i < 40; i++) {
        const answer = await client.create({
          _login: `stream-${String(i).padStart(2, '0')}`,
          _email: `s${i}@example.com`,
          _password: 'stream-password',
          team: i % 2 ? 'odd' : 'even',
        });
        expect(answer.result).toBe('OK');
      }
      const seen: MemberRecord[] = [];
      for await (const member of client.members({ record: '{login}{team}', login: 'stream-', limit: ['100', '3600s'] })) seen.push(member);
      expect(seen).toHaveLength(40);
      expect(seen[0]).toEqual({ login: 'stream-00', team: 'even' });
      expect(seen.map((m) => m.login)).toEqual([...seen.map((m) => m.login)].sort());

      const iterator = client.members({ record: '{login}', 'profile:team': 'odd', limit: '5' });
      const firstFive: string[] = [];
      for (let next = await iterator.next(); ; next = await iterator.next()) {
        if (next.done) {
          expect(next.value).toBe(20);
          break;
        }
        firstFive.push(next.value.login!);
      }
      expect(firstFive).toEqual(['stream-01', 'stream-03', 'stream-05', 'stream-07', 'stream-09']);

      // Leaving early stops reading.
      for await (const member of client.members({ login: 'stream-' })) {
        expect(member.login).toBe('stream-00');
        break;
      }
      await expect(async () => {
        for await (const member of client.members({ record: '{nope' })) void member;
      }).rejects.toThrow(
        new MemberApiError({ result: 'ERROR', message: 'invalid parameter: record (a run of {name} tokens, each a built-in field or a profile field)' }),
      );
    });

    it('follows the change feed as an async iterator: every event once, in order, across pages; with follow, new ones as they come', async () => {
      const seen: string[] = [];
      let last: string | undefined;
      for await (const event of client.events({ limit: '7' })) {
        seen.push(event.id);
        last = event.id;
      }
      expect(seen.length).toBeGreaterThan(40);
      expect(seen).toEqual(seen.map((_, i) => String(i + 1)));
      const controller = new AbortController();
      const followed: string[] = [];
      const following = (async () => {
        for await (const event of client.events({ after: last, follow: true, pollMs: 50, signal: controller.signal })) {
          followed.push(`${event.type}:${event.member?.login}`);
          if (followed.length === 3) controller.abort();
        }
      })();
      await client.create({ _login: 'late', _email: 'late@example.com', _password: 'late-password' });
      await client.update({ find_member_login: 'late', status: 'S' });
      await following;
      expect(followed).toEqual(['member.created:late', 'member.updated:late', 'member.status_changed:late']);
      await expect(client.events({ types: 'member.nothing' }).next()).rejects.toThrow('member.nothing is not an event type');
    });

    it('keeps the path of its base URL: behind a proxy that serves the API under /members, every call and the stream go through', async () => {
      const proxy = await prefixProxy('/members', server.url);
      try {
        const behind = new MemberApiClient({ baseUrl: `${proxy.url}/members/`, user: 'demo', apiKey: server.demoKey() });
        expect(await behind.create({ _login: 'prefixed', _email: 'p@example.com', _password: 'prefix-password' })).toMatchObject({
          result: 'OK',
          login: 'prefixed',
        });
        expect(await behind.login({ login: 'prefixed', password: 'prefix-password' })).toMatchObject({ result: 'OK' });
        expect(await behind.update({ find_member_login: 'prefixed', city: 'Nice' })).toMatchObject({ result: 'OK', updated: 1 });
        const streamed: MemberRecord[] = [];
        for await (const member of behind.members({ record: '{login}{city}', login_full: 'prefixed' })) streamed.push(member);
        expect(streamed).toEqual([{ login: 'prefixed', city: 'Nice' }]);
        // Only /members/… was asked for: nothing went to the proxy's root.
        expect(proxy.paths().every((path) => path.startsWith('/members/api2/'))).toBe(true);
        expect(proxy.paths()).toHaveLength(4);
      } finally {
        await proxy.close();
      }
    });

    it('throws MemberApiNetworkError, naming the URL and the reason, when nothing answers', async () => {
      const closed = await prefixProxy('/x', server.url);
      await closed.close();
      const nowhere = new MemberApiClient({ baseUrl: closed.url, user: 'demo', apiKey: 'k' });
      const error = await nowhere.login({ login: 'a', password: 'b' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MemberApiNetworkError);
      expect((error as Error).message).toBe(`cannot reach ${closed.url}/api2/login/: ECONNREFUSED`);
      await expect(async () => {
        for await (const member of nowhere.members()) void member;
      }).rejects.toThrow(MemberApiNetworkError);
    });

    it('throws MemberApiHttpError for transport errors, with Retry-After', async () => {
      const wrong = new MemberApiClient({ baseUrl: server.url, user: 'demo', apiKey: 'not-the-key' });
      expect(await wrong.update({ find_member_id: '*', city: 'x' })).toEqual({ result: 'ERROR', message: 'wrong api key' });
      await wrong.update({ find_member_id: '*', city: 'x' });
      const refused = await wrong.update({ find_member_id: '*', city: 'x' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(MemberApiHttpError);
      expect(refused).toMatchObject({ status: 429, message: 'HTTP 429: too many requests' });
      expect((refused as MemberApiHttpError).retryAfter).toBeGreaterThan(0);
    });
  });
}

describe('the client’s types', () => {
  it('are generated from the OpenAPI document the server serves, and the committed file is up to date', async () => {
    const committed = readFileSync(new URL('../../src/client/api-types.ts', import.meta.url), 'utf8');
    expect(await clientTypesFrom(await openApiDocument())).toBe(committed);
  }, 30_000);
});

/** A reverse proxy that serves `target` under `prefix` (and 404 elsewhere), keeping the paths it was asked for. */
async function prefixProxy(prefix: string, target: string): Promise<{ url: string; paths(): string[]; close(): Promise<void> }> {
  const asked: string[] = [];
  const proxy: Server = createServer((request, response) => {
    asked.push(request.url ?? '');
    if (!request.url?.startsWith(`${prefix}/`)) {
      response.writeHead(404).end('not here');
      return;
    }
    const upstream = httpRequest(`${target}${request.url.slice(prefix.length)}`, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  return {
    url,
    paths: () => asked,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
