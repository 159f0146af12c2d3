/**
 * The account settings are declared once (src/accounts/account-settings.ts): the command line's
 * options and the documentation's table come from that list.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_SETTINGS, settingsTable } from '../../src/accounts/account-settings.js';
import { buildCli } from '../../src/main.js';
import { currentSettingsTable } from './settings-table.js';

describe('account settings', () => {
  it('are documented by the table written from their declarations', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    expect(currentSettingsTable(page), 'docs/configuration.md is not current: run `npx tsx scripts/settings-table.ts`').toBe(settingsTable());
  });

  it('are the options of `account create` and `account set`, each with its default in its help', () => {
    const account = buildCli().commands.find((command) => command.name() === 'account')!;
    for (const name of ['create', 'set']) {
      const command = account.commands.find((sub) => sub.name() === name)!;
      const options = new Map(command.options.map((option) => [option.long, option.description]));
      for (const spec of ACCOUNT_SETTINGS) expect(options.get(`--${spec.option}`), `${name} --${spec.option}`).toMatch(/\(default [^)]*\)/);
    }
  });
});
