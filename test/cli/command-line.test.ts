/**
 * The command line as a new user meets it: --help says each default once; a misspelt option
 * is refused as unknown (with commander's suggestion), not as a missing required one.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../src/main.js';
import { runCli } from '../support/cli.js';

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
      for (const option of command.options) if (option.defaultValue !== undefined && /default/.test(option.description)) twice.push(`${path}: ${option.flags}: ${option.description}`);
    }
    expect(twice).toEqual([]);
    const find = commandsOf(buildCli()).find((entry) => entry.path === 'member find')!.command.helpInformation();
    expect(find).toMatch(/--limit <n> +at most this many of each \(default: 20\)\n/);
  });
});

describe('a misspelt option', () => {
  it('is refused as an unknown option, with commander’s suggestion, before any required option is missed', async () => {
    const misspelt = await runCli(['member', 'find', 'x', '--acount', 'demo'], UNSET, dir);
    expect(misspelt).toMatchObject({ code: 1, stdout: '', stderr: "error: unknown option '--acount'\n(Did you mean --account?)\n(add --help for usage)\n" });
    expect((await runCli(['webhook', 'add', '--url', 'https://hooks.example.com/x', '--acount', 'demo'], UNSET, dir)).stderr).toContain("error: unknown option '--acount'\n(Did you mean --account?)");
    expect((await runCli(['member', 'find', 'x', '--account', 'demo', '--limt', '5'], UNSET, dir)).stderr).toContain("error: unknown option '--limt'\n(Did you mean --limit?)");
    // A required option that is missing is still said so, when nothing is misspelt.
    expect(await runCli(['member', 'find', 'x'], UNSET, dir)).toMatchObject({ code: 1, stderr: "error: required option '--account <name>' not specified\n(add --help for usage)\n" });
    expect((await runCli(['webhook', 'add', '--account', 'demo'], UNSET, dir)).stderr).toContain("error: required option '--url <url>' not specified");
    expect(readdirSync(dir)).toEqual([]);
  });
});
