/**
 * The command line as a new user meets it: --help says each default once; a misspelt option
 * is refused as unknown (with commander's suggestion), not as a missing required one; run in
 * the wrong folder a command makes no stray store and says which one it looked for; a store
 * without the account is named; a set-up link says what address it assumes.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../src/main.js';
import { runCli } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';
import { storeShown } from '../support/stores.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-command-line-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every command of the program, with its path (`member find`). */
function commandsOf(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  return command.commands.flatMap((sub) => [{ path: [...path, sub.name()].join(' '), command: sub }, ...commandsOf(sub, [...path, sub.name()])]);
}

/** Variables that would choose a store or an address for the command, left unset ("" is unset). */
const UNSET = { DATABASE_URL: '', PUBLIC_URL: '', HOST: '', PORT: '' };

describe('member-api --help', () => {
  it('shows each default once: the one commander prints from the option’s default value', () => {
    const twice: string[] = [];
    for (const { path, command } of commandsOf(buildCli())) {
      for (const line of command.helpInformation().split('\n')) if ((line.match(/\(default/g) ?? []).length > 1) twice.push(`${path}: ${line.trim()}`);
      for (const option of command.options)
        if (option.defaultValue !== undefined && /default/.test(option.description)) twice.push(`${path}: ${option.flags}: ${option.description}`);
    }
    expect(twice).toEqual([]);
    const find = commandsOf(buildCli())
      .find((entry) => entry.path === 'member find')!
      .command.helpInformation();
    expect(find).toMatch(/--limit <n> +at most this many \(default: 20\)\n/);
  });
});

describe('a misspelt option', () => {
  it('is refused as an unknown option, with commander’s suggestion, before any required option is missed', async () => {
    const misspelt = await runCli(['member', 'find', 'x', '--acount', 'demo'], UNSET, dir);
    expect(misspelt).toMatchObject({ code: 1, stdout: '', stderr: "error: unknown option '--acount'\n(Did you mean --account?)\n(add --help for usage)\n" });
    expect((await runCli(['webhook', 'add', '--url', 'https://hooks.example.com/x', '--acount', 'demo'], UNSET, dir)).stderr).toContain(
      "error: unknown option '--acount'\n(Did you mean --account?)",
    );
    expect((await runCli(['member', 'find', 'x', '--account', 'demo', '--limt', '5'], UNSET, dir)).stderr).toContain(
      "error: unknown option '--limt'\n(Did you mean --limit?)",
    );
    // A required option that is missing is still said so, when nothing is misspelt.
    expect(await runCli(['member', 'find', 'x'], UNSET, dir)).toMatchObject({
      code: 1,
      stderr: "error: required option '--account <name>' not specified\n(add --help for usage)\n",
    });
    expect((await runCli(['webhook', 'add', '--account', 'demo'], UNSET, dir)).stderr).toContain("error: required option '--url <url>' not specified");
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('a command run where there is no store', () => {
  it('makes none, and says which store it looked for and how to name the right one', async () => {
    const elsewhere = mkdtempSync(join(dir, 'elsewhere-'));
    const looked = join(elsewhere, 'data', 'members.db');
    const refusal = `member-api: no store at ${looked} (DATABASE_URL is not set: the default ./data/members.db is taken from the folder this runs in), and this command makes none: run it in the folder where the server runs, or set DATABASE_URL to the server's store (DATABASE_URL=/path/to/members.db or DATABASE_URL=postgres://… member-api …); \`member-api migrate\` makes a new store\n`;
    for (const args of [
      ['member', 'find', 'x', '--account', 'demo'],
      ['account', 'show', 'demo'],
      ['account', 'list'],
      ['account', 'set', 'demo', '--time-zone', 'UTC'],
      ['webhook', 'list', '--account', 'demo'],
      ['operator', 'add', 'a@example.com', '--account', 'demo'],
      ['export', '--account', 'demo'],
      ['backup', join(elsewhere, 'copy.db')],
    ]) {
      expect(await runCli(args, UNSET, elsewhere), args.join(' ')).toMatchObject({ code: 1, stdout: '', stderr: refusal });
    }
    expect(readdirSync(elsewhere)).toEqual([]);

    // Named, a missing file is refused the same way, naming the variable as it was given.
    const named = await runCli(['account', 'show', 'demo'], { ...UNSET, DATABASE_URL: 'stores/members.db' }, elsewhere);
    expect(named.stderr).toMatch(
      new RegExp(`^member-api: no store at ${join(elsewhere, 'stores', 'members.db')} \\(DATABASE_URL=stores/members\\.db\\), and this command makes none`),
    );
    expect(readdirSync(elsewhere)).toEqual([]);

    // account create makes a store (as serve and migrate do), only its owner's.
    expect((await runCli(['account', 'create', 'demo'], UNSET, elsewhere)).code).toBe(0);
    expect(statSync(looked).mode & 0o777).toBe(0o600);
    expect((await runCli(['account', 'show', 'demo', '--json'], UNSET, elsewhere)).code).toBe(0);
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`the store a command used [${engine}]`, () => {
    it('is named when the account is not in it, never with its password', async () => {
      const database = await createTestDatabase(engine);
      // The test server trusts its clients: a password in the URL is never asked for, and must never be shown.
      const url = engine === 'postgres' ? Object.assign(new URL(database.url), { password: 'hunter2-secret' }).toString() : database.url;
      try {
        expect((await runCli(['migrate'], { DATABASE_URL: url })).code).toBe(0);
        const expected = `member-api: no account "demo" in the store ${storeShown(database.url)}\n`;
        for (const args of [
          ['member', 'find', 'x', '--account', 'demo'],
          ['account', 'show', 'demo'],
          ['webhook', 'list', '--account', 'demo'],
          ['operator', 'add', 'a@example.com', '--account', 'demo'],
          ['export', '--account', 'demo'],
        ]) {
          expect(await runCli(args, { DATABASE_URL: url }), args.join(' ')).toMatchObject({ code: 1, stdout: '', stderr: expected });
        }
        if (engine === 'postgres')
          expect(expected).toMatch(/^member-api: no account "demo" in the store postgres:\/\/\w+@127\.0\.0\.1:5432\/member_api_test_\w+\n$/);
      } finally {
        await database.drop();
      }
    });

    it('shows an account as a table of settings under a header, every value in one column', async () => {
      const database = await createTestDatabase(engine);
      try {
        expect((await runCli(['account', 'create', 'shop'], { DATABASE_URL: database.url })).code).toBe(0);
        const lines = (await runCli(['account', 'show', 'shop'], { DATABASE_URL: database.url })).stdout.trimEnd().split('\n');
        expect(lines[0]).toMatch(/^setting +value$/);
        const valueAt = lines[0]!.indexOf('value');
        const rows = new Map(lines.slice(1).map((line) => [line.slice(0, valueAt).trim(), line.slice(valueAt)]));
        expect(lines.slice(1).every((line) => line[valueAt - 1] === ' ' && line[valueAt] !== ' ')).toBe(true);
        expect(rows.get('user')).toBe('shop');
        expect(rows.get('login_rate_limit_per_minute')).toBe('0');
        expect(rows.get('members.active')).toBe('0');
        expect((await runCli(['account', 'list'], { DATABASE_URL: database.url })).stdout).toMatch(/^user +created\nshop +\d{4}-\d\d-\d\dT[\d:.]+Z\n$/);
      } finally {
        await database.drop();
      }
    });

    it('hands out set-up links on PUBLIC_URL, or says what address a link assumes and how to set PUBLIC_URL', async () => {
      const database = await createTestDatabase(engine);
      const env = { ...UNSET, DATABASE_URL: database.url, PORT: '3999' };
      try {
        expect((await runCli(['account', 'create', 'shop'], env)).code).toBe(0);
        const note =
          'PUBLIC_URL is not set: the link assumes the server is at http://127.0.0.1:3999 (HOST and PORT as this command sees them); if it is reached at another address, run this again with PUBLIC_URL set to that address (PUBLIC_URL=https://members.example.com member-api …, or in .env)';
        const added = JSON.parse((await runCli(['operator', 'add', 'a@example.com', '--account', 'shop', '--json'], env)).stdout);
        expect(added).toMatchObject({ link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3999\/admin\/setup\?token=/), note });
        const text = (await runCli(['operator', 'reset', 'a@example.com'], env)).stdout.split('\n');
        expect(text).toContainEqual(expect.stringMatching(/^link +http:\/\/127\.0\.0\.1:3999\/admin\/setup\?token=/));
        expect(text).toContainEqual(expect.stringMatching(new RegExp(`^note +${note.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)));

        const publicEnv = { ...env, PUBLIC_URL: 'https://members.example.com' };
        const onPublic = JSON.parse((await runCli(['operator', 'add', 'b@example.com', '--account', 'shop', '--json'], publicEnv)).stdout);
        expect(onPublic.link).toMatch(/^https:\/\/members\.example\.com\/admin\/setup\?token=/);
        expect(onPublic).not.toHaveProperty('note');
        expect(JSON.parse((await runCli(['operator', 'reset', 'b@example.com', '--json'], publicEnv)).stdout)).not.toHaveProperty('note');
      } finally {
        await database.drop();
      }
    });
  });
}
