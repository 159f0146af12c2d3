/**
 * `member-api member …` as support staff use it, on each engine: the members and their login
 * attempts are made through the API, then found, shown, unlocked, given a new password,
 * suspended and activated from the command line; the API sees each change.
 */
import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { describeEachEngineApp } from '../support/app.js';

describeEachEngineApp('member-api member', (h) => {
  it('finds, shows, unlocks, resets, suspends and activates a member, through the same rules as the API', async () => {
    const account = await h().newAccount({ lockout: { threshold: 3, stepSeconds: 600, maxSeconds: 600, resetSeconds: 3600 } });
    const env = { DATABASE_URL: h().database.url };
    const member = (args: string[]) => runCli(['member', ...args, '--account', account.user], env);
    const key = { user: account.user, api_key: account.apiKey };
    expect((await h().post('/api2/create/', { ...key, _login: 'alice', _email: 'alice@example.com', _password: 'correct-horse', city: 'Paris' })).json.result).toBe('OK');
    expect((await h().post('/api2/create/', { ...key, _login: 'bob', _email: 'bob@alice.example', _password: 'correct-horse' })).json.result).toBe('OK');
    expect((await h().post('/api2/create/', { ...key, _login: 'carol', _email: 'carol@example.com', _password: 'correct-horse' })).json.result).toBe('OK');
    for (const ip of ['203.0.113.1', '203.0.113.1', '203.0.113.1']) await h().post('/api2/login/', { ...key, login: 'alice', password: 'wrong-password', IP: ip });
    const locked = await h().post('/api2/login/', { ...key, login: 'alice', password: 'correct-horse', IP: '203.0.113.1' });
    expect(locked.json.message).toBe('wrong login or password');

    // find: by login or e-mail, every state.
    const found = JSON.parse((await member(['find', 'ALICE', '--json'])).stdout) as Array<{ login: string }>;
    expect(found.map((m) => m.login)).toEqual(['alice', 'bob']);
    expect((await member(['find', 'nobody'])).stdout).toBe('no member\'s login or e-mail contains "nobody"\n');

    // show: the fields, the state, the lock, the profile, the last logins.
    const shown = JSON.parse((await member(['show', 'Alice', '--json'])).stdout);
    expect(shown).toMatchObject({ login: 'alice', email: 'alice@example.com', status: 'Active', password: 'argon2 hash', profile: { city: 'Paris' } });
    expect(shown.locked).toMatch(/^until \d{4}-/);
    expect(shown.failed_logins).toContainEqual(expect.objectContaining({ scope: 'all addresses', failures: 3 }));
    expect(shown.last_logins).toHaveLength(4);
    expect(shown.last_logins[0]).toMatchObject({ outcome: 'locked', ip: '203.0.113.1' });
    expect(JSON.stringify(shown)).not.toContain('$argon2');
    const logins = JSON.parse((await member(['logins', 'alice', '--json', '--limit', '2'])).stdout);
    expect(logins.map((l: { outcome: string }) => l.outcome)).toEqual(['locked', 'wrong-credentials']);

    // unlock: the right password works again.
    expect(JSON.parse((await member(['unlock', 'alice', '--json'])).stdout)).toMatchObject({ unlocked: true });
    expect((await h().post('/api2/login/', { ...key, login: 'alice', password: 'correct-horse' })).json.result).toBe('OK');
    expect(JSON.parse((await member(['show', 'alice', '--json'])).stdout).locked).toBe('no');

    // reset-password: a new password, printed once; the old one no longer works.
    const { password } = JSON.parse((await member(['reset-password', 'alice', '--json'])).stdout);
    expect(password).toMatch(/^\S{12,}$/);
    expect((await h().post('/api2/login/', { ...key, login: 'alice', password: 'correct-horse' })).json.result).toBe('FAIL');
    expect((await h().post('/api2/login/', { ...key, login: 'alice', password })).json.result).toBe('OK');

    // suspend and activate, as /update/ would.
    expect(JSON.parse((await member(['suspend', 'alice', '--json'])).stdout)).toEqual({ login: 'alice', status: 'Suspended' });
    expect((await h().post('/api2/login/', { ...key, login: 'alice', password })).json.message).toBe('member suspended');
    expect(JSON.parse((await member(['activate', 'alice', '--json'])).stdout)).toEqual({ login: 'alice', status: 'Active' });
    expect((await h().post('/api2/login/', { ...key, login: 'alice', password })).json.result).toBe('OK');

    // Errors are one line naming what is missing.
    expect(await member(['show', 'nobody'])).toMatchObject({ code: 1, stderr: `member-api: no member "nobody" in account "${account.user}"\n` });
    expect(await runCli(['member', 'show', 'alice', '--account', 'no-such-account'], env)).toMatchObject({ code: 1, stderr: 'member-api: no account "no-such-account"\n' });
  }, 60_000);
});
