import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

describeEachEngineApp(
  'API-key guessing',
  (h) => {
    it('refuses a client address with 429 and Retry-After after too many wrong keys, and only that address', async () => {
      const api = await apiAccount(h());
      const attempt = (ip: string, apiKey = 'wrong') =>
        h().app.inject({
          method: 'POST',
          url: '/api2/list/',
          remoteAddress: ip,
          payload: `user=${api.user}&api_key=${apiKey}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
      for (let i = 0; i < 5; i++) expect(JSON.parse((await attempt('198.51.100.1')).body).message).toBe('wrong api key');
      const refused = await attempt('198.51.100.1');
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(refused.body)).toEqual({ result: 'ERROR', message: 'too many requests' });
      // Wrong keys from that address stay refused; other addresses go on.
      expect((await attempt('198.51.100.1', 'another-wrong-key')).statusCode).toBe(429);
      expect(JSON.parse((await attempt('198.51.100.2')).body).message).toBe('wrong api key');
      expect(JSON.parse((await attempt('198.51.100.2', api.apiKey)).body).members_total).toBe(0);
      // The right key is never refused for someone else's wrong ones (an integrator behind a
      // shared address, or every client behind a proxy without TRUST_PROXY).
      for (let i = 0; i < 3; i++) expect(JSON.parse((await attempt('198.51.100.1', api.apiKey)).body).members_total).toBe(0);
      // Member logins without a key are not affected.
      expect(
        (
          await h().app.inject({
            method: 'POST',
            url: '/api2/login/',
            remoteAddress: '198.51.100.1',
            payload: `user=${api.user}&login=x&password=y`,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        ).statusCode,
      ).toBe(200);
    });
  },
  { keyGuessLimits: { maxFailures: 5, windowSeconds: 60 } },
);

describeEachEngineApp('account request rate', (h) => {
  it('limits an account to its requests per minute when it has a limit, and no other account', async () => {
    const limited = await apiAccount(h(), { rateLimitPerMinute: 3 });
    const free = await apiAccount(h());
    for (let i = 0; i < 3; i++) expect((await limited.list()).members_total).toBe(0);
    const refused = await h().post('/api2/list/', { user: limited.user, api_key: limited.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ result: 'ERROR', message: 'too many requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) expect((await free.list()).members_total).toBe(0);
  });

  it('never lets logins without a key spend the account’s keyed budget', async () => {
    const limited = await apiAccount(h(), { rateLimitPerMinute: 3 });
    // Thirty anonymous logins: the account name is public (it is in every verify_url).
    for (let i = 0; i < 30; i++) expect((await h().post('/api2/login/', { user: limited.user, login: `m${i}`, password: 'guess-guess' })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await limited.list()).members_total).toBe(0);
    expect((await h().post('/api2/create/', { user: limited.user, api_key: limited.apiKey, _login: 'a', _email: 'a@example.com' })).status).toBe(429);
  });

  it('gives logins without a key their own budget, per member and per client address', async () => {
    const api = await apiAccount(h(), { loginRateLimitPerMinute: 2 });
    const login = (login: string, ip: string) =>
      h().app.inject({
        method: 'POST',
        url: '/api2/login/',
        remoteAddress: ip,
        payload: `user=${api.user}&login=${login}&password=guess-guess`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    expect((await login('alice', '198.51.100.10')).statusCode).toBe(200);
    expect((await login('alice', '198.51.100.11')).statusCode).toBe(200);
    // A third try at one member, from a third address: the member's budget is spent.
    const perMember = await login('alice', '198.51.100.12');
    expect(perMember.statusCode).toBe(429);
    expect(Number(perMember.headers['retry-after'])).toBeGreaterThan(0);
    // A third login from one address, at another member: the address's budget is spent.
    expect((await login('bob', '198.51.100.10')).statusCode).toBe(200);
    expect((await login('carol', '198.51.100.10')).statusCode).toBe(429);
    // The keyed calls go on.
    expect((await api.list()).members_total).toBe(0);
  });
});

describeEachEngineApp(
  'password hashing capacity',
  (h) => {
    it('refuses logins and creates beyond the hashing slots and queue at once with 503 and Retry-After, and serves the rest', async () => {
      const api = await apiAccount(h());
      await api.create('busy-member', { _password: 'correct-horse-battery' });
      const attempts = await Promise.all([
        ...Array.from({ length: 8 }, () => h().post('/api2/login/', { user: api.user, login: 'busy-member', password: 'correct-horse-battery' })),
        ...Array.from({ length: 4 }, (_, i) =>
          h().post('/api2/create/', {
            user: api.user,
            api_key: api.apiKey,
            _login: `busy-${i}`,
            _email: `b${i}@example.com`,
            _password: 'correct-horse-battery',
          }),
        ),
      ]);
      const served = attempts.filter((a) => a.status === 200);
      const refused = attempts.filter((a) => a.status === 503);
      // One slot and one place in the queue: at least two are served, the others refused.
      expect(served.length).toBeGreaterThanOrEqual(2);
      expect(refused.length).toBeGreaterThan(0);
      expect(served.length + refused.length).toBe(attempts.length);
      for (const a of served) expect(a.json.result).toBe('OK');
      for (const a of refused) {
        expect(a.json).toEqual({ result: 'ERROR', message: 'server busy, retry later' });
        expect(a.headers['retry-after']).toBe('1');
      }
      // A refused create wrote nothing: every login it tried is still free.
      const created = new Set(
        attempts
          .slice(8)
          .filter((a) => a.status === 200)
          .map((a) => a.json.login),
      );
      const listed = await api.list({ record: '{login}' });
      expect(new Set(listed.members.map((m: { login: string }) => m.login))).toEqual(new Set(['busy-member', ...created]));
      // Once the burst is over, the next one is served.
      expect((await h().post('/api2/login/', { user: api.user, login: 'busy-member', password: 'correct-horse-battery' })).json.result).toBe('OK');
      expect(h().services.hashing.stats()).toMatchObject({ running: 0, waiting: 0 });
      expect(h().services.hashing.stats().refused).toBe(refused.length);
    });
  },
  { hashing: { concurrency: 1, queue: 1 } },
);

describeEachEngineApp(
  'password hashing shared fairly',
  (h) => {
    it('answers another account’s login while one client floods an account’s sign-in page past the hashing queue', async () => {
      const flooded = await apiAccount(h());
      const quiet = await apiAccount(h());
      await quiet.create('quiet-member', { _password: 'correct-horse-battery' });
      // Eighty sign-ins at once from one address (a script at the page's form): more than the
      // slots and the room together (2 + 8), so the flood alone fills the room.
      const flood = Array.from({ length: 80 }, (_, i) =>
        h().post(`/auth/${flooded.user}/`, { action: 'login', login: `nobody-${i}`, password: 'wrong-password-here' }),
      );
      for (let waited = 0; h().services.hashing.stats().waiting < 8 && waited < 10_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
      expect(h().services.hashing.stats().waiting).toBe(8);
      // The quiet account's member, meanwhile, from its integrator: served, not "server busy".
      const login = await h().request({
        url: '/api2/login/',
        payload: new URLSearchParams({ user: quiet.user, login: 'quiet-member', password: 'correct-horse-battery' }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.7' },
      });
      expect(login.json.result).toBe('OK');
      const answers = await Promise.all(flood);
      // The flood got its share: some served (a wrong password: the redirect to the sign-in page
      // that says so), the rest told the server is busy.
      const busy = answers.filter((answer) => answer.status === 503 || answer.body.includes('The service is busy.'));
      expect(busy.length).toBeGreaterThan(0);
      expect(answers.filter((answer) => answer.status === 303).length).toBeGreaterThan(0);
    });
  },
  { hashing: { concurrency: 2, queue: 8 }, env: { TRUST_PROXY: 'true' } },
);
