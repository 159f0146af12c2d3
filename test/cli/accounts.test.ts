import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts-service.js';
import { openStore } from '../../src/store/store.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`member-api account … [${engine}]`, () => {
    it('creates, shows, changes, re-keys and deletes an account', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      try {
        const created = await runCli(['account', 'create', 'shop', '--ok-url', 'https://shop.example/in', '--time-zone', 'Europe/Berlin', '--json'], env);
        expect(created.code).toBe(0);
        const { user, api_key: firstKey } = JSON.parse(created.stdout);
        expect(user).toBe('shop');
        expect(firstKey).toMatch(/^[A-Za-z0-9_-]{43}$/);

        const store = openStore(database.url);
        const accounts = new AccountsService(store.accounts, Date.now);
        expect(await accounts.authenticate('shop', firstKey)).toBeDefined();

        const shown = await runCli(['account', 'show', 'shop', '--json'], env);
        expect(JSON.parse(shown.stdout)).toMatchObject({
          user: 'shop',
          ok_url: 'https://shop.example/in',
          time_zone: 'Europe/Berlin',
          min_password_length: 8,
          lockout_threshold: 30,
          members: { active: 0 },
        });

        const changed = await runCli(['account', 'set', 'shop', '--min-password-length', '12', '--ok-url', '', '--lockout-threshold', '10', '--json'], env);
        expect(changed.code).toBe(0);
        expect(JSON.parse(changed.stdout)).toMatchObject({ min_password_length: 12, ok_url: '', lockout_threshold: 10, time_zone: 'Europe/Berlin' });
        // What a /session/ check may read without a key: the dates by default, what the account names.
        expect(JSON.parse(shown.stdout).session_fields).toBe('reg_type,reg_date,reg_time,exp_date,exp_time,last_login_date,last_login_time');
        const sessionFields = await runCli(['account', 'set', 'shop', '--session-fields', 'reg_date, city', '--json'], env);
        expect(JSON.parse(sessionFields.stdout)).toMatchObject({ session_fields: 'reg_date,city', min_password_length: 12 });
        expect(JSON.parse((await runCli(['account', 'set', 'shop', '--session-fields', '', '--json'], env)).stdout).session_fields).toBe('');

        const listed = await runCli(['account', 'list'], env);
        expect(listed.stdout).toMatch(/^user +created\nshop +\d{4}-\S+\n$/);

        const graced = await runCli(['account', 'rotate-key', 'shop', '--grace', '1h', '--json'], env);
        const { api_key: gracedKey } = JSON.parse(graced.stdout);
        expect(await accounts.authenticate('shop', firstKey)).toBeDefined();
        expect(await accounts.authenticate('shop', gracedKey)).toBeDefined();
        const reader = await runCli(['account', 'key', 'add', 'shop', 'reports', '--scope', 'read', '--expires', '30D', '--json'], env);
        expect(JSON.parse(reader.stdout)).toMatchObject({ user: 'shop', key: 'reports', scope: 'read', expires: expect.any(String) });
        const keyList = await runCli(['account', 'key', 'list', 'shop', '--json'], env);
        expect(JSON.parse(keyList.stdout).map((k: { key: string }) => k.key)).toEqual([expect.stringMatching(/^default\.retired-\d+$/), 'default', 'reports']);
        expect(keyList.stdout).not.toContain(JSON.parse(reader.stdout).api_key);
        expect((await runCli(['account', 'key', 'revoke', 'shop', 'reports'], env)).code).toBe(0);
        expect((await runCli(['account', 'key', 'revoke', 'shop', 'reports'], env)).stderr).toMatch(/no key named "reports"/);
        const rotated = await runCli(['account', 'rotate-key', 'shop', '--json'], env);
        const { api_key: secondKey } = JSON.parse(rotated.stdout);
        expect(secondKey).not.toBe(firstKey);
        expect(await accounts.authenticate('shop', gracedKey)).toBeUndefined();
        expect(await accounts.authenticate('shop', secondKey)).toBeDefined();

        expect((await runCli(['account', 'delete', 'shop'], env)).code).not.toBe(0);
        const deleted = await runCli(['account', 'delete', 'shop', '--yes'], env);
        expect(deleted.code).toBe(0);
        expect(await accounts.authenticate('shop', secondKey)).toBeUndefined();
        await store.close();
      } finally {
        await database.drop();
      }
    });

    it('exits non-zero with a one-line reason on bad input', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      try {
        const cases: Array<[string[], RegExp]> = [
          [['account', 'create', 'X!'], /invalid name/],
          [['account', 'create', 'ok-name', '--time-zone', 'Mars/Olympus'], /invalid time-zone/],
          [['account', 'create', 'ok-name', '--ok-url', 'javascript:x'], /invalid ok-url/],
          [['account', 'create', 'ok-name', '--min-password-length', 'eight'], /must be a whole number/],
          [['account', 'show', 'missing'], /no account "missing"/],
          [['account', 'set', 'missing', '--time-zone', 'UTC'], /no account "missing"/],
          [
            ['account', 'create', 'ok-name', '--session-fields', 'reg_date,first name'],
            /invalid session-fields: "first name" is neither a \/list\/ field nor a profile field name/,
          ],
          [['account', 'rotate-key', 'missing'], /no account "missing"/],
        ];
        for (const [args, reason] of cases) {
          const result = await runCli(args, env);
          expect(result.code, args.join(' ')).not.toBe(0);
          expect(result.stderr, args.join(' ')).toMatch(reason);
          expect(result.stdout).toBe('');
        }
        expect((await runCli(['account', 'create', 'twice'], env)).code).toBe(0);
        const again = await runCli(['account', 'create', 'twice'], env);
        expect(again.code).not.toBe(0);
        expect(again.stderr.trim()).toBe('member-api: account "twice" already exists');
        // The original's names keep their capitals, and are one name whatever the case.
        const capitals = await runCli(['account', 'create', 'Toonklasse', '--json'], env);
        expect(JSON.parse(capitals.stdout).user).toBe('Toonklasse');
        expect(JSON.parse((await runCli(['account', 'show', 'toonklasse', '--json'], env)).stdout).user).toBe('Toonklasse');
        expect((await runCli(['account', 'create', 'TOONKLASSE'], env)).stderr.trim()).toBe('member-api: account "TOONKLASSE" already exists');
      } finally {
        await database.drop();
      }
    });
  });
}

describe('member-api account mail-template', () => {
  it('prints a template into a file as it is, so that it can be edited and set again', async () => {
    const database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.url };
    const file = join(mkdtempSync(join(tmpdir(), 'member-api-template-')), 'welcome.txt');
    try {
      expect((await runCli(['account', 'create', 'mails', '--json'], env)).code).toBe(0);
      const text = 'Subject: Welcome, {{login}}\n\nHello\t{{login}},\r\nyour link: {{verify_url}}\n';
      writeFileSync(file, text);
      expect((await runCli(['account', 'mail-template', 'mails', 'welcome', '--file', file], env)).code).toBe(0);
      const shown = await runCli(['account', 'mail-template', 'mails', 'welcome', '--show'], env);
      expect(shown.stdout).toBe(text);
      writeFileSync(file, shown.stdout.replace('Hello', 'Hi'));
      expect((await runCli(['account', 'mail-template', 'mails', 'welcome', '--file', file], env)).code).toBe(0);
      expect((await runCli(['account', 'mail-template', 'mails', 'welcome', '--show'], env)).stdout).toBe(text.replace('Hello', 'Hi'));
    } finally {
      await database.drop();
    }
  });
});

describe('member-api --help', () => {
  it('documents every command', async () => {
    for (const args of [['--help'], ['account', '--help'], ['account', 'create', '--help'], ['serve', '--help'], ['migrate', '--help']]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/Usage: member-api/);
    }
  });

  it('refuses a bad setting in the environment with a one-line reason', async () => {
    const result = await runCli(['migrate'], { PORT: 'eighty' });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim()).toBe('member-api: PORT must be a whole number from 0 to 65535, got "eighty"');
  });
});
