/** The account settings' table in docs/configuration.md, between its marker lines. */
import { settingsTable } from '../../src/accounts/account-settings.js';

const START = '<!-- account-settings:start -->';
const END = '<!-- account-settings:end -->';

/** The table the page holds now, or undefined when its markers are missing. */
export function currentSettingsTable(page: string): string | undefined {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) return undefined;
  return page.slice(start + START.length, end).trim();
}

/** The page with the table written from ACCOUNT_SETTINGS. */
export function replaceSettingsTable(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md has no ${START} … ${END} lines`);
  return `${page.slice(0, start + START.length)}\n${settingsTable()}\n${page.slice(end)}`;
}
