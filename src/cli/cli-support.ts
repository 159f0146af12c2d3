/**
 * What the command families share (`member …`, `account link …`, `migrate-members`): the
 * services they run over, the account a command names, and the printing of a result as text
 * for people or JSON for scripts.
 */
import type { Command, Option } from 'commander';
import type { Account } from '../accounts/account.js';
import type { Services } from '../compose.js';
import { writeJson, writeLines } from '../common/terminal-text.js';

/** Runs `work` with the services over the configured store, closing it afterwards (main.ts's). */
export type WithServices = <T>(work: (services: Services) => Promise<T>) => Promise<T>;

/** A refusal the command line prints as it is, on one line (main.ts's handler). */
export class CommandError extends Error {}

export async function accountNamed(services: Services, name: string): Promise<Account> {
  const account = await services.accounts.find(name);
  if (!account) throw new CommandError(`no account "${name}"`);
  return account;
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
