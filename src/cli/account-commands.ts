/**
 * Accounts on the command line: `account create | list | show | set | rotate-key | key … |
 * delete`. The settings' options of `create` and `set`, and what `show` prints, come from
 * ACCOUNT_SETTINGS (accounts/account-settings.ts): a setting is declared there, not here.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Account, KeyScope, SettingsPatch } from '../accounts/account.js';
import type { KeyIssue } from '../accounts/accounts-service.js';
import { ACCOUNT_SETTINGS, defaultText, patchOf, SettingValueError, shownSettings, type SettingSpec } from '../accounts/account-settings.js';
import { writeJson, writeLines } from '../common/terminal-text.js';
import { CommandError, noAccount, tableLines, type WithServices } from './cli-support.js';

/** The name commander gives an option's value (`--min-password-length` → minPasswordLength). */
const attributeOf = (spec: SettingSpec) => spec.option.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** The account settings, as options shared by `account create` and `account set`. */
function withSettingOptions(command: Command): Command {
  for (const spec of ACCOUNT_SETTINGS) {
    const fallback = defaultText(spec);
    const option = new Option(`--${spec.option} ${spec.kind.argument}`, `${spec.help} (default ${fallback === '' ? '""' : fallback})`);
    if (spec.kind.choices) option.choices(spec.kind.choices);
    else
      option.argParser((text: string) => {
        try {
          return spec.kind.parse(text);
        } catch (error) {
          if (error instanceof SettingValueError) throw new InvalidArgumentError(error.message);
          throw error;
        }
      });
    command.addOption(option);
  }
  return command;
}

/** The settings given on the command line, as a patch (a choice is read here: commander checked it). */
function settingsPatch(options: Record<string, unknown>): SettingsPatch {
  const given = ACCOUNT_SETTINGS.filter((spec) => options[attributeOf(spec)] !== undefined);
  return patchOf(
    given.map((spec) => {
      const value = options[attributeOf(spec)];
      return [spec, spec.kind.choices ? spec.kind.parse(value as string) : value] as const;
    }),
  );
}

function describeAccount(account: Account, members?: Record<string, number>) {
  return {
    user: account.name,
    created: new Date(account.createdAt).toISOString(),
    ...shownSettings(account.settings),
    ...(members ? { members: { active: members.A ?? 0, suspended: members.S ?? 0, deleted: members.D ?? 0 } } : {}),
  };
}

/**
 * JSON with --json; for people, a table of settings and values (a nested record's keys
 * joined to its own: `members.active`), through common/terminal-text.ts like every line.
 */
function print(value: unknown, json: boolean | undefined): void {
  if (json) {
    writeJson(process.stdout, value);
    return;
  }
  const rows = Object.entries(value as object).flatMap(([key, item]) =>
    item !== null && typeof item === 'object'
      ? Object.entries(item as object).map(([inner, innerItem]) => ({ setting: `${key}.${inner}`, value: innerItem }))
      : [{ setting: key, value: item }],
  );
  writeLines(process.stdout, tableLines(rows));
}

export function registerAccountCommands(program: Command, withServices: WithServices): Command {
  const account = program.command('account').description('manage accounts (the API’s user + api_key)');

  withSettingOptions(account.command('create <name>').description('create an account and print its API key (shown once)'))
    .option('--json', 'print {"user","api_key"} as JSON')
    .action(async (name: string, options: Record<string, unknown> & { json?: boolean }) => {
      // The one command besides serve and migrate that may make a new store.
      const created = await withServices((s) => s.accounts.create(name, settingsPatch(options)), { createStore: true });
      if (created.kind === 'name-taken') throw new CommandError(`account "${name}" already exists`);
      if (created.kind === 'invalid') throw new CommandError(`invalid ${created.setting}: ${created.reason}`);
      if (options.json) print({ user: created.account.name, api_key: created.apiKey }, true);
      else
        writeLines(process.stdout, [
          `created account "${created.account.name}"`,
          `api_key: ${created.apiKey}`,
          '(the key is shown only now; `account rotate-key` makes a new one)',
        ]);
    });

  account
    .command('list')
    .description('list the accounts')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const accounts = await withServices((s) => s.accounts.list());
      if (options.json)
        print(
          accounts.map((a) => describeAccount(a)),
          true,
        );
      else
        writeLines(
          process.stdout,
          accounts.length === 0
            ? ['no accounts (`member-api account create NAME` makes one)']
            : tableLines(accounts.map((a) => ({ user: a.name, created: new Date(a.createdAt).toISOString() }))),
        );
    });

  account
    .command('show <name>')
    .description('show an account’s settings and member counts')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const shown = await withServices(async (s) => {
        const found = await s.accounts.find(name);
        return found && describeAccount(found, await s.accounts.countMembers(found));
      });
      if (!shown) throw noAccount(name);
      print(shown, options.json);
    });

  withSettingOptions(account.command('set <name>').description('change an account’s settings'))
    .option('--json', 'print JSON')
    .action(async (name: string, options: Record<string, unknown> & { json?: boolean }) => {
      const changed = await withServices((s) => s.accounts.change(name, settingsPatch(options)));
      if (changed.kind === 'not-found') throw noAccount(name);
      if (changed.kind === 'invalid') throw new CommandError(`invalid ${changed.setting}: ${changed.reason}`);
      print(describeAccount(changed.account), options.json);
    });

  account
    .command('rotate-key <name>')
    .description('replace one of the account’s keys with a new one of the same name and scope (printed once)')
    .option('--key <keyname>', 'which key (default: "default", the one the account was created with)')
    .option('--grace <period>', 'how long the old key keeps working, e.g. 30m, 1h, 7D (default: it stops at once)')
    .option('--json', 'print {"user","api_key","key"} as JSON')
    .action(async (name: string, options: { key?: string; grace?: string; json?: boolean }) => {
      const rotated = await withServices((s) => s.accounts.rotateKey(name, { keyName: options.key, grace: options.grace }));
      const key = issuedKey(name, rotated);
      if (options.json) print({ user: name, api_key: key.apiKey, key: key.key.name }, true);
      else
        writeLines(process.stdout, [
          `new api_key "${key.key.name}" for "${name}": ${key.apiKey}`,
          options.grace ? `(the old key keeps working for ${options.grace})` : '(the old key stopped working)',
        ]);
    });

  const keys = account.command('key').description('an account’s named API keys: several at once, scoped, expiring');

  keys
    .command('add <name> <keyname>')
    .description('issue a new key (printed once)')
    .addOption(
      new Option('--scope <scope>', 'all: every call; read: /list/ only; login: /login/ with IP only').choices(['all', 'read', 'login']).default('all'),
    )
    .option('--expires <period>', 'the key stops working this long from now, e.g. 12h, 7D, 1Y (default: never)')
    .option('--json', 'print {"user","key","api_key","scope","expires"} as JSON')
    .action(async (name: string, keyName: string, options: { scope: KeyScope; expires?: string; json?: boolean }) => {
      const added = issuedKey(name, await withServices((s) => s.accounts.addKey(name, keyName, { scope: options.scope, expires: options.expires })));
      const shown = { user: name, key: added.key.name, api_key: added.apiKey, scope: added.key.scope, expires: isoOrNull(added.key.expiresAt) };
      if (options.json) print(shown, true);
      else writeLines(process.stdout, [`api_key "${keyName}" (${added.key.scope}) for "${name}": ${added.apiKey}`, '(shown only now)']);
    });

  keys
    .command('list <name>')
    .description('list the account’s keys: name, scope, created, expires, last used (never the keys)')
    .option('--json', 'print JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const found = await withServices((s) => s.accounts.keys(name));
      if (!found) throw noAccount(name);
      const rows = found.keys.map((key) => ({
        key: key.name,
        scope: key.scope,
        created: new Date(key.createdAt).toISOString(),
        expires: isoOrNull(key.expiresAt),
        last_used: isoOrNull(key.lastUsedAt),
      }));
      if (options.json) print(rows, true);
      else writeLines(process.stdout, tableLines(rows.map((row) => ({ ...row, expires: row.expires ?? 'never', last_used: row.last_used ?? 'never' }))));
    });

  keys
    .command('revoke <name> <keyname>')
    .description('revoke a key: it stops working at once')
    .action(async (name: string, keyName: string) => {
      const revoked = await withServices((s) => s.accounts.revokeKey(name, keyName));
      if (revoked.kind === 'not-found') throw noAccount(name);
      if (revoked.kind === 'no-such-key') throw new CommandError(`account "${name}" has no key named "${keyName}"`);
      writeLines(process.stdout, [`revoked key "${keyName}" of "${name}"`]);
    });

  account
    .command('delete <name>')
    .description('delete an account with all its members')
    .option('--yes', 'confirm: the account and its members are gone for good')
    .action(async (name: string, options: { yes?: boolean }) => {
      if (!options.yes) throw new CommandError(`refusing to delete "${name}" without --yes`);
      if (!(await withServices((s) => s.accounts.delete(name)))) throw noAccount(name);
      writeLines(process.stdout, [`deleted account "${name}"`]);
    });
  return account;
}

function issuedKey(name: string, issued: KeyIssue): Extract<KeyIssue, { kind: 'issued' }> {
  if (issued.kind === 'not-found') throw noAccount(name);
  if (issued.kind === 'invalid') throw new CommandError(`invalid ${issued.setting}: ${issued.reason}`);
  return issued;
}

function isoOrNull(instant: number | null): string | null {
  return instant === null ? null : new Date(instant).toISOString();
}
