/**
 * Writes the account settings' table of docs/configuration.md from ACCOUNT_SETTINGS
 * (src/accounts/account-settings.ts), between its two marker lines. A test fails when the two
 * differ: run `npx tsx scripts/settings-table.ts` after changing a setting.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { replaceSettingsTable } from '../test/docs/settings-table.js';

const file = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(file, replaceSettingsTable(readFileSync(file, 'utf8')));
process.stdout.write('docs/configuration.md: account settings table written\n');
