/**
 * What the command families share (`member …`, `account link …`, `migrate-members`): the
 * services they run over, the account a command names, and the printing of a result as text
 * for people or JSON for scripts.
 */
import type { Account } from '../accounts/account.js';
import type { Services } from '../compose.js';

/** Runs `work` with the services over the configured store, closing it afterwards (main.ts's). */
export type WithServices = <T>(work: (services: Services) => Promise<T>) => Promise<T>;

/** A refusal the command line prints as it is, on one line (main.ts's handler). */
export class CommandError extends Error {}

export async function accountNamed(services: Services, name: string): Promise<Account> {
  const account = await services.accounts.find(name);
  if (!account) throw new CommandError(`no account "${name}"`);
  return account;
}

/** Text for people, JSON with --json: an object's keys line up, a nested object is indented, a list is one line per item. */
export function print(value: unknown, json: boolean | undefined, indent = ''): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
    return;
  }
  for (const [key, item] of Object.entries(value as object)) {
    if (Array.isArray(item)) {
      process.stdout.write(`${indent}${key}:${item.length === 0 ? ' (none)' : ''}\n`);
      for (const entry of item) process.stdout.write(`${indent}  ${Object.values(entry as object).map((v) => v ?? '-').join('  ')}\n`);
    } else if (item !== null && typeof item === 'object') {
      process.stdout.write(`${indent}${key}:\n`);
      print(item, false, `${indent}  `);
    } else {
      process.stdout.write(`${indent}${key.padEnd(20)} ${item ?? '-'}\n`);
    }
  }
}
