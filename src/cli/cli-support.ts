/**
 * What the command families share (`member …`, `account link …`, `migrate-members`): the
 * services they run over, the account a command names, and the printing of a result as text
 * for people (records, and lists as tables) or JSON for scripts.
 */
import type { Command, Option } from 'commander';
import type { Account } from '../accounts/account.js';
import type { Services } from '../compose.js';
import { DEFAULT_DATABASE_PATH, loadConfig, type Config } from '../config.js';
import { StoreNotFound } from '../common/store-errors.js';
import { terminalText, writeJson, writeLines } from '../common/terminal-text.js';
import { describeStore } from '../store/dialects/location.js';
import type { Store } from '../store/store.js';

/**
 * Runs `work` with the services over the configured store, closing it afterwards. Only
 * `account create` (with `createStore`) may make a new store; `serve` and `migrate` open theirs
 * themselves.
 */
export type WithServices = <T>(work: (services: Services, config: Config) => Promise<T>, options?: { readonly createStore?: boolean }) => Promise<T>;

/** A refusal the command line prints as it is, on one line (main.ts's handler). */
export class CommandError extends Error {}

export const withServices: WithServices = async (work, options = {}) => {
  const config = loadConfig();
  // The store opens (its writer loading in a thread of its own) while the services' modules load.
  const { openConfiguredStore } = await import('../store/store.js');
  const opening = openConfiguredStore(config, { create: options.createStore ?? false });
  opening.catch(() => {}); // met below, once the modules have loaded
  const { servicesOver } = await import('../compose.js');
  let store: Store;
  try {
    store = await opening;
  } catch (error) {
    if (error instanceof StoreNotFound) throw storeNotFound(error.location, config.databaseUrl);
    throw error;
  }
  try {
    return await work(await servicesOver(store, { config, publicUrl: linkBase(config).url }), config);
  } finally {
    await store.close();
  }
};

/**
 * A command run in another folder than the server's, without DATABASE_URL, would make a new
 * empty store there (and an account made in it would be a stray one): it says which store it
 * looked for and how to name the right one instead.
 */
function storeNotFound(location: string, databaseUrl: string): CommandError {
  const named =
    databaseUrl === DEFAULT_DATABASE_PATH
      ? `DATABASE_URL is not set: the default ${DEFAULT_DATABASE_PATH} is taken from the folder this runs in`
      : `DATABASE_URL=${databaseUrl}`;
  return new CommandError(
    `no store at ${location} (${named}), and this command makes none: run it in the folder where the server runs, or set DATABASE_URL to the server's store (DATABASE_URL=/path/to/members.db or DATABASE_URL=postgres://… member-api …); \`member-api migrate\` makes a new store`,
  );
}

/** The account named is not in the store: says which store that is, which may not be the server's. */
export function noAccount(name: string): CommandError {
  return new CommandError(`no account "${name}" in the store ${describeStore(loadConfig().databaseUrl)}`);
}

export async function accountNamed(services: Services, name: string): Promise<Account> {
  const account = await services.accounts.find(name);
  if (!account) throw noAccount(name);
  return account;
}

/**
 * The base of the links a command hands out (an operator's set-up link): PUBLIC_URL, or else
 * the address HOST and PORT give here, which may not be the server's (it may run with other
 * settings): `assumed` then says so, for a note beside the link.
 */
export function linkBase(config: Config): { url: string; assumed?: string } {
  if (config.publicUrl !== undefined) return { url: config.publicUrl };
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  return {
    url,
    assumed: `PUBLIC_URL is not set: the link assumes the server is at ${url} (HOST and PORT as this command sees them); if it is reached at another address, run this again with PUBLIC_URL set to that address (PUBLIC_URL=https://members.example.com member-api …, or in .env)`,
  };
}

/**
 * Commander checks a command's required options before its unknown ones, so a misspelt
 * `--acount demo` was refused as "required option '--account <name>' not specified". Here the
 * required options are checked in a preAction hook instead, which runs after commander has
 * refused an unknown option (with its "Did you mean" suggestion); the message is commander's.
 * Call it once every command is declared.
 */
export function reportUnknownOptionsFirst(program: Command): void {
  const required = new Map<Command, Option[]>();
  const visit = (command: Command) => {
    const mandatory = command.options.filter((option) => option.mandatory);
    for (const option of mandatory) option.makeOptionMandatory(false);
    if (mandatory.length > 0) required.set(command, mandatory);
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  program.hook('preAction', (_program, action) => {
    for (const option of required.get(action) ?? []) {
      if (action.getOptionValue(option.attributeName()) === undefined)
        action.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
    }
  });
}

/**
 * Text for people, JSON with --json: a record's keys line up, a nested record is indented, a
 * nested list is a table. Either way through common/terminal-text.ts, as every line the
 * command line writes: members', upstreams' and receivers' data is shown, never obeyed.
 */
export function print(value: unknown, json: boolean | undefined): void {
  if (json) writeJson(process.stdout, value);
  else writeLines(process.stdout, recordLines(value as object, ''));
}

/** Keys this wide at least, so that the records of one command line up with each other. */
const KEY_WIDTH = 20;

function recordLines(record: object, indent: string): string[] {
  const width = Math.max(KEY_WIDTH, ...Object.keys(record).map((key) => key.length));
  return Object.entries(record).flatMap(([key, item]) => {
    if (Array.isArray(item) && item.some((entry) => entry !== null && typeof entry === 'object')) {
      return [`${indent}${key}:`, ...tableLines(item as Array<Record<string, unknown>>).map((line) => `${indent}  ${line}`)];
    }
    if (Array.isArray(item) && item.length === 0) return [`${indent}${key}: (none)`];
    if (item !== null && typeof item === 'object') return [`${indent}${key}:`, ...recordLines(item, `${indent}  `)];
    return [`${indent}${key.padEnd(width)} ${cell(item)}`];
  });
}

/** A value in a table or a record: `-` for none; made safe for a terminal before it is measured. */
function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return cell(value.join(','));
  if (typeof value === 'object') return terminalText(JSON.stringify(value));
  return terminalText(String(value));
}

/** Characters a cell takes on a terminal (wide East Asian characters count as one, a known limit). */
const widthOf = (text: string) => [...text].length;

/**
 * A table: a header of the column names (the keys of the JSON output), then a row per item;
 * each column as wide as its widest cell, two spaces between columns. The columns are the
 * first row's keys unless given.
 */
export function tableLines(rows: ReadonlyArray<Record<string, unknown>>, columns: readonly string[] = Object.keys(rows[0] ?? {})): string[] {
  const cells = [columns.map((column) => column), ...rows.map((row) => columns.map((column) => cell(row[column])))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => widthOf(line[index]!))));
  return cells.map((line) => line.map((text, index) => (index === line.length - 1 ? text : text + ' '.repeat(widths[index]! - widthOf(text)))).join('  '));
}

/**
 * A list for people: its table (or `empty` when it has no rows), and, when it was cut, a last
 * line that says so. With --json the list alone goes to standard output (its shape is the
 * scripts'), and the cut is said on standard error.
 */
export function printList(rows: ReadonlyArray<Record<string, unknown>>, options: { json?: boolean; jsonValue?: unknown; empty: string; cut?: string }): void {
  if (options.json) {
    writeJson(process.stdout, options.jsonValue ?? rows);
    if (options.cut) writeLines(process.stderr, [options.cut]);
    return;
  }
  writeLines(process.stdout, [...(rows.length === 0 ? [options.empty] : tableLines(rows)), ...(options.cut ? [options.cut] : [])]);
}

/**
 * What a cut list says: which it shows (`the first 20`, `the newest 20`), of how many (`more`
 * when the total is not counted), and the --limit that shows more (at most `maxLimit`).
 * Undefined when nothing was left out.
 */
export function cutNote(
  shown: number,
  total: number | 'more',
  what: string,
  options: { readonly which: string; readonly maxLimit?: number },
): string | undefined {
  const maxLimit = options.maxLimit ?? Number.MAX_SAFE_INTEGER;
  if (total === 'more') return `showing the ${options.which} ${shown}; there are more ${what} (--limit ${Math.min(shown * 2, maxLimit)} to see more)`;
  if (total <= shown) return undefined;
  return `showing the ${options.which} ${shown} of ${total} ${what}; --limit ${Math.min(total, maxLimit)} to see ${total <= maxLimit ? 'them all' : 'more'}`;
}
