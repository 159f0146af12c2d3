/**
 * `member-api member …` as support staff use it, on each engine: the members and their login
 * attempts are made through the API, then found, shown, unlocked, given a new password,
 * suspended and activated from the command line; the API sees each change.
 */
import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { describeEachEngineApp } from '../support/app.js';
import { storeShown } from '../support/stores.js';

describeEachEngineApp('member-api member', (h) => {
  it('finds, shows, unlocks, resets, suspends and activates a member, through the same rules as the API', async () => {
    const account = await h().newAccount({ lockout: { threshold: 3, stepSeconds: 600, maxSeconds: 600, resetSeconds: 3600 } });
    const env = { DATABASE_URL: h().database.url };
    const member = (args: string[]) => runCli(['member', ...args, '--account', account.user], env);
    const key = { user: account.user, api_key: account.apiKey };
    expect(
      (await h().post('/api2/create/', { ...key, _login: 'alice', _email: 'alice@example.com', _password: 'correct-horse', city: 'Paris' })).json.result,
    ).toBe('OK');
    expect((await h().post('/api2/create/', { ...key, _login: 'bob', _email: 'bob@alice.example', _password: 'correct-horse' })).json.result).toBe('OK');
    expect((await h().post('/api2/create/', { ...key, _login: 'carol', _email: 'carol@example.com', _password: 'correct-horse' })).json.result).toBe('OK');
    for (const ip of ['203.0.113.1', '203.0.113.1', '203.0.113.1'])
      await h().post('/api2/login/', { ...key, login: 'alice', password: 'wrong-password', IP: ip });
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
    expect(await runCli(['member', 'show', 'alice', '--account', 'no-such-account'], env)).toMatchObject({
      code: 1,
      stderr: `member-api: no account "no-such-account" in the store ${storeShown(h().database.url)}\n`,
    });
  }, 60_000);

  it('lists found members and login attempts as tables with headers, and says when --limit cut them', async () => {
    const account = await h().newAccount();
    const env = { DATABASE_URL: h().database.url };
    const member = (args: string[]) => runCli(['member', ...args, '--account', account.user], env);
    const key = { user: account.user, api_key: account.apiKey };
    // Three match by login, one more by e-mail alone, one by both (counted once), one Deleted.
    for (const [login, email] of [
      ['cutter1', 'a@example.com'],
      ['cutter2', 'b@example.com'],
      ['other', 'cutter@example.com'],
      ['cutter3', 'cutter3@example.com'],
      ['cutter4', 'd@example.com'],
    ]) {
      expect((await h().post('/api2/create/', { ...key, _login: login!, _email: email!, _password: 'correct-horse' })).json.result).toBe('OK');
    }
    expect((await h().post('/api2/update/', { ...key, find_member_login: 'cutter4', status: 'D' })).json.result).toBe('OK');

    const all = await member(['find', 'cutter']);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +login +email +status +registered$/);
    expect(lines.slice(1).map((line) => line.split(/ +/)[1])).toEqual(['cutter1', 'cutter2', 'other', 'cutter3', 'cutter4']);
    const statusAt = lines[0]!.indexOf('status');
    expect(lines.slice(1).map((line) => line.slice(statusAt).split(' ')[0])).toEqual(['Active', 'Active', 'Active', 'Active', 'Deleted']);

    const cut = await member(['find', 'cutter', '--limit', '2']);
    expect(cut.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^id /),
      expect.stringMatching(/ cutter1 /),
      expect.stringMatching(/ cutter2 /),
      'showing the first 2 of 5 members; --limit 5 to see them all',
    ]);
    const cutJson = await member(['find', 'cutter', '--limit', '2', '--json']);
    expect((JSON.parse(cutJson.stdout) as Array<{ login: string }>).map((m) => m.login)).toEqual(['cutter1', 'cutter2']);
    expect(cutJson.stderr).toBe('showing the first 2 of 5 members; --limit 5 to see them all\n');
    expect((await member(['find', 'cutter', '--limit', '5'])).stdout).not.toContain('showing');

    for (const ip of ['203.0.113.7', '203.0.113.8', '203.0.113.9'])
      await h().post('/api2/login/', { ...key, login: 'cutter1', password: 'correct-horse', IP: ip });
    const logins = (await member(['logins', 'cutter1', '--limit', '2'])).stdout.trimEnd().split('\n');
    expect(logins[0]).toMatch(/^at +outcome +ip$/);
    expect(logins.slice(1, 3).map((line) => line.split(/ +/).slice(1))).toEqual([
      ['ok', '203.0.113.9'],
      ['ok', '203.0.113.8'],
    ]);
    expect(logins[3]).toBe('showing the newest 2; there are more login attempts (--limit 4 to see more)');
    expect((await member(['logins', 'cutter1'])).stdout).not.toContain('showing');
  });

  it('shows escape sequences, C1 controls and bidi overrides in member data as visible escapes, never to the terminal, in text and in JSON', async () => {
    const account = await h().newAccount();
    const env = { DATABASE_URL: h().database.url };
    const member = (args: string[]) => runCli(['member', ...args, '--account', account.user], env);
    const hostile = {
      title: '\x1b]0;pwned\x07',
      note: 'fine\x1b[2K\rroot logged in\nsecond line',
      csi: '\x9b31mred',
      bidi: 'invoice\u202efdp.exe',
      more: 'a\x7fb\u2066c\x01d',
    };
    expect(
      (
        await h().post('/api2/create/', {
          user: account.user,
          api_key: account.apiKey,
          _login: 'mallory',
          _email: 'mallory@example.com',
          _password: 'correct-horse',
          ...hostile,
        })
      ).json.result,
    ).toBe('OK');
    // What a terminal would act on: every C0 control but the newlines that end the program's lines, DEL, C1, bidi controls.
    const CONTROLS = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

    const text = await member(['show', 'mallory']);
    expect(text.code).toBe(0);
    expect(text.stdout).not.toMatch(CONTROLS);
    const lines = text.stdout.split('\n');
    const profileLine = (name: string, shown: string) => `  ${name.padEnd(20)} ${shown}`;
    expect(lines).toEqual(
      expect.arrayContaining([
        profileLine('title', '\\x1b]0;pwned\\x07'),
        profileLine('note', 'fine\\x1b[2K\\x0droot logged in\\x0asecond line'),
        profileLine('csi', '\\x9b31mred'),
        profileLine('bidi', 'invoice\\u202efdp.exe'),
        profileLine('more', 'a\\x7fb\\u2066c\\x01d'),
      ]),
    );
    // A newline in a value makes no line of its own.
    expect(lines.filter((line) => line.includes('second line'))).toHaveLength(1);

    // JSON: still JSON, the same values once parsed, and nothing raw a terminal would act on.
    const json = await member(['show', 'mallory', '--json']);
    expect(json.stdout).not.toMatch(CONTROLS);
    expect(json.stdout).toContain('"csi":"\\u009b31mred"');
    expect(json.stdout).toContain('"bidi":"invoice\\u202efdp.exe"');
    expect(JSON.parse(json.stdout).profile).toEqual(hostile);

    // Whatever the program writes goes the same way: its answers and its errors.
    expect((await member(['find', '\x1b]0;pwned\x07'])).stdout).toBe('no member\'s login or e-mail contains "\\x1b]0;pwned\\x07"\n');
    expect(await member(['show', '\x1b[2K\rnobody'])).toMatchObject({
      code: 1,
      stderr: `member-api: no member "\\x1b[2K\\x0dnobody" in account "${account.user}"\n`,
    });
  });
});
