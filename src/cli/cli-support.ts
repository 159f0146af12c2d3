/**
 * What the command families share (`member …`, `account link …`, `migrate-members`): the
 * services they run over, the account a command names, and the printing of a result as text
 * for people or JSON for scripts.
 */
import type { Command, Option } from 'commander';
import type { Account } from '../accounts/account.js';
import type { Services } from '../compose.js';
import { DEFAULT_DATABASE_PATH, loadConfig, type Config } from '../config.js';
import { StoreNotFound } from '../common/store-errors.js';
import { writeJson, writeLines } from '../common/terminal-text.js';
import { describeStore } from '../store/dialects/location.js';

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
  const { createServices } = await import('../compose.js');
  let services: Services;
  try {
    services = await createServices(config, { publicUrl: linkBase(config).url, createStore: options.createStore ?? false });
  } catch (error) {
    if (error instanceof StoreNotFound) throw storeNotFound(error.location, config.databaseUrl);
    throw error;
  }
  try {
    return await work(services, config);
  } finally {
    await services.store.close();
  }
};

/**
 * A command run in another folder than the server's, without DATABASE_URL, would make a new
 * empty store there (and an account made in it would be a stray one): it says which store it
 * looked for and how to name the right one instead.
 */
function storeNotFound(location: string, databaseUrl: string): CommandError {
  const named = databaseUrl === DEFAULT_DATABASE_PATH ? `DATABASE_URL is not set: the default ${DEFAULT_DATABASE_PATH} is taken from the folder this runs in` : `DATABASE_URL=${databaseUrl}`;
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
      if (action.getOptionValue(option.attributeName()) === undefined) action.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
    }
  });
}

/**
 * Text for people, JSON with --json: an object's keys line up, a nested object is indented, a
 * list is one line per item. Either way through common/terminal-text.ts, as every line the
 * command line writes: members', upstreams' and receivers' data is shown, never obeyed.
 */
export function print(value: unknown, json: boolean | undefined): void {
  if (json) writeJson(process.stdout, value);
  else writeLines(process.stdout, textLines(value, ''));
}

function textLines(value: unknown, indent: string): string[] {
  return Object.entries(value as object).flatMap(([key, item]) => {
    if (Array.isArray(item)) {
      return [`${indent}${key}:${item.length === 0 ? ' (none)' : ''}`, ...item.map((entry) => `${indent}  ${Object.values(entry as object).map((v) => v ?? '-').join('  ')}`)];
    }
    if (item !== null && typeof item === 'object') return [`${indent}${key}:`, ...textLines(item, `${indent}  `)];
    return [`${indent}${key.padEnd(20)} ${item ?? '-'}`];
  });
}
