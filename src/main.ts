/**
 * The command line: `member-api serve`, `migrate`, and `account …`. Every command has
 * --help, and exits non-zero with a one-line reason on bad input.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_SESSION_FIELDS, MESSAGE_STYLES, PASSWORD_CHECKS, type Account, type KeyScope, type MessageStyle, type PasswordCheck } from './accounts/account.js';
import type { KeyIssue } from './accounts/accounts-service.js';
import type { SettingsPatch } from './accounts/account-rules.js';
import { loadConfig, type Config } from './config.js';
import type { ImportCommandOptions } from './import-export/commands.js';
import { registerLinkCommands } from './cli/link-commands.js';
import { registerMailCommands } from './cli/mail-commands.js';
import { registerWebhookCommands } from './cli/webhook-commands.js';
import { registerOperatorCommands } from './cli/operator-commands.js';
import { registerMemberCommands } from './cli/member-commands.js';
import { noAccount, reportUnknownOptionsFirst, tableLines, withServices } from './cli/cli-support.js';
import { packageVersion } from './version.js';
import { writeJson, writeLines } from './common/terminal-text.js';

class CliError extends Error {}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** The account settings, as options shared by `account create` and `account set`. */
function withSettingOptions(command: Command): Command {
  return command
    .addOption(new Option('--ok-url <url>', 'default URL after a successful login (absolute http(s) or a /path; "" for none)'))
    .addOption(new Option('--fail-url <url>', 'default URL after a failed login (absolute http(s) or a /path; "" for none)'))
    .addOption(new Option('--min-password-length <n>', 'shortest password accepted (default 8)').argParser(wholeNumber))
    .addOption(new Option('--time-zone <zone>', 'IANA time zone for rendering and filtering dates (default UTC)'))
    .addOption(new Option('--lockout-threshold <n>', 'failed logins in a row that lock a member; 0 turns lockout off (default 30)').argParser(wholeNumber))
    .addOption(new Option('--lockout-step <seconds>', 'lock time added per failure past the threshold (default 60)').argParser(wholeNumber))
    .addOption(new Option('--lockout-max <seconds>', 'longest lock (default 900)').argParser(wholeNumber))
    .addOption(new Option('--lockout-reset <seconds>', 'time without failures after which the count starts over (default 43200)').argParser(wholeNumber))
    .addOption(new Option('--rate-limit <per-minute>', 'requests per minute the account’s keyed calls may make; 0 for no limit (default 0)').argParser(wholeNumber))
    .addOption(new Option('--login-rate-limit <per-minute>', '/login/ calls without a key per minute, per member and per client address; 0 for no limit (default 0)').argParser(wholeNumber))
    .addOption(new Option('--storage-quota <MiB>', 'most profile data the account’s members may hold together, in MiB (default 1024)').argParser(wholeNumber))
    .addOption(new Option('--login-events <on|off>', 'every login attempt writes a member.login event (default off)').choices(['on', 'off']))
    .addOption(new Option('--expiry-warning <period>', 'member.expiring is written this long before a time expiration: NNm, NNh, NND or NNW; 0 for none (default 0)').argParser(warningPeriod))
    .addOption(new Option('--session-idle <period>', 'a /login/ session ends after this long without a /session/ check: NNm, NNh, NND or NNW (default 2h)').argParser((value) => period(value)))
    .addOption(new Option('--session-lifetime <period>', 'a /login/ session ends this long after the login (default 30D)').argParser((value) => period(value)))
    .addOption(new Option('--reset-lifetime <period>', 'a /reset/ link works this long (default 1h)').argParser((value) => period(value)))
    .addOption(new Option('--smtp-url <url>', 'the account’s mail server, smtp://user:password@host:port or smtps://…; "" sends no mail (default "")'))
    .addOption(new Option('--mail-from <address>', 'the sender of the account’s mails, e.g. "Site <no-reply@example.com>"'))
    .addOption(
      new Option('--session-fields <names>', `/session/ record fields readable with the session id alone, comma-separated: /list/ fields and profile fields; "" for none (default ${DEFAULT_SESSION_FIELDS.join(',')})`).argParser(
        fieldNames,
      ),
    )
    .addOption(new Option('--get-writes <on|off>', '/login/, /create/ and /update/ answer GET with the parameters in the query string, as the hosted original does; off: 405, send POST (default on)').choices(['on', 'off']))
    .addOption(new Option('--messages <style>', 'the FAIL text of a wrong login or password: short ("wrong login or password") or original (the hosted original\'s) (default short)').choices([...MESSAGE_STYLES]))
    .addOption(new Option('--password-check <check>', 'common: refuse a chosen password on the ~49,000 most common ones; off: take it (default common)').choices([...PASSWORD_CHECKS]));
}

/** `reg_date,city` (white space around a name ignored); "" for none. */
function fieldNames(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

interface SettingOptions {
  okUrl?: string;
  failUrl?: string;
  minPasswordLength?: number;
  timeZone?: string;
  lockoutThreshold?: number;
  lockoutStep?: number;
  lockoutMax?: number;
  lockoutReset?: number;
  rateLimit?: number;
  loginRateLimit?: number;
  storageQuota?: number;
  loginEvents?: 'on' | 'off';
  expiryWarning?: number;
  sessionIdle?: number;
  sessionLifetime?: number;
  resetLifetime?: number;
  smtpUrl?: string;
  mailFrom?: string;
  sessionFields?: string[];
  getWrites?: 'on' | 'off';
  messages?: MessageStyle;
  passwordCheck?: PasswordCheck;
}

/** A warning period (`7D`, `12h`, `30m`, `2W`, or 0) in seconds. */
function warningPeriod(value: string): number {
  if (value === '0') return 0;
  return period(value, '; or 0 for none');
}

/** A period (`7D`, `12h`, `30m`, `2W`) in seconds. */
function period(value: string, more = ''): number {
  const match = /^(\d{1,6})([mhDW])$/.exec(value);
  if (!match) throw new InvalidArgumentError(`a period: a whole number and m (minutes), h (hours), D (days) or W (weeks), e.g. 7D${more}`);
  return Number(match[1]) * { m: 60, h: 3600, D: 86400, W: 7 * 86400 }[match[2] as 'm' | 'h' | 'D' | 'W'];
}

function settingsPatch(options: SettingOptions): SettingsPatch {
  return {
    okUrl: options.okUrl,
    failUrl: options.failUrl,
    minPasswordLength: options.minPasswordLength,
    timeZone: options.timeZone,
    rateLimitPerMinute: options.rateLimit,
    loginRateLimitPerMinute: options.loginRateLimit,
    storageQuotaMb: options.storageQuota,
    loginEvents: options.loginEvents === undefined ? undefined : options.loginEvents === 'on',
    expiryWarningSeconds: options.expiryWarning,
    sessionIdleSeconds: options.sessionIdle,
    sessionLifetimeSeconds: options.sessionLifetime,
    resetLifetimeSeconds: options.resetLifetime,
    smtpUrl: options.smtpUrl,
    mailFrom: options.mailFrom,
    sessionFields: options.sessionFields,
    getWrites: options.getWrites === undefined ? undefined : options.getWrites === 'on',
    messages: options.messages,
    passwordCheck: options.passwordCheck,
    lockout: {
      threshold: options.lockoutThreshold,
      stepSeconds: options.lockoutStep,
      maxSeconds: options.lockoutMax,
      resetSeconds: options.lockoutReset,
    },
  };
}

function describeAccount(account: Account, members?: Record<string, number>) {
  const { settings } = account;
  return {
    user: account.name,
    created: new Date(account.createdAt).toISOString(),
    ok_url: settings.okUrl,
    fail_url: settings.failUrl,
    min_password_length: settings.minPasswordLength,
    time_zone: settings.timeZone,
    lockout_threshold: settings.lockout.threshold,
    lockout_step_seconds: settings.lockout.stepSeconds,
    lockout_max_seconds: settings.lockout.maxSeconds,
    lockout_reset_seconds: settings.lockout.resetSeconds,
    rate_limit_per_minute: settings.rateLimitPerMinute,
    login_rate_limit_per_minute: settings.loginRateLimitPerMinute,
    storage_quota_mb: settings.storageQuotaMb,
    login_events: settings.loginEvents ? 'on' : 'off',
    expiry_warning_seconds: settings.expiryWarningSeconds,
    session_idle_seconds: settings.sessionIdleSeconds,
    session_lifetime_seconds: settings.sessionLifetimeSeconds,
    reset_lifetime_seconds: settings.resetLifetimeSeconds,
    // The mail server's password is never printed back.
    smtp_url: withoutPassword(settings.smtpUrl),
    mail_from: settings.mailFrom,
    session_fields: settings.sessionFields.join(','),
    get_writes: settings.getWrites ? 'on' : 'off',
    messages: settings.messages,
    password_check: settings.passwordCheck,
    ...(members ? { members: { active: members.A ?? 0, suspended: members.S ?? 0, deleted: members.D ?? 0 } } : {}),
  };
}

function withoutPassword(smtpUrl: string): string {
  if (smtpUrl === '') return '';
  const url = new URL(smtpUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

/**
 * Every line for people and every JSON document goes out through common/terminal-text.ts,
 * which escapes what a terminal would obey. An account's settings, for people, are a table
 * (a nested record's keys joined to its own: `members.active`).
 */
function print(value: unknown, json: boolean | undefined): void {
  if (json) {
    writeJson(process.stdout, value);
    return;
  }
  const rows = Object.entries(value as object).flatMap(([key, item]) =>
    item !== null && typeof item === 'object' ? Object.entries(item as object).map(([inner, innerItem]) => ({ setting: `${key}.${inner}`, value: innerItem })) : [{ setting: key, value: item }],
  );
  writeLines(process.stdout, tableLines(rows));
}

function issuedKey(name: string, issued: KeyIssue): Extract<KeyIssue, { kind: 'issued' }> {
  if (issued.kind === 'not-found') throw noAccount(name);
  if (issued.kind === 'invalid') throw new CliError(`invalid ${issued.setting}: ${issued.reason}`);
  return issued;
}

function isoOrNull(instant: number | null): string | null {
  return instant === null ? null : new Date(instant).toISOString();
}

export function buildCli(): Command {
  const program = new Command('member-api')
    .description('Member management HTTP API v2 server. Configured by environment variables (see README).')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ outputError: (text, write) => write(text) });

  program
    .command('serve')
    .description('run the HTTP server (DATABASE_URL, PORT, HOST, PUBLIC_URL, … from the environment)')
    .action(async () => {
      const config: Config = loadConfig();
      // Loaded here, so that the other commands do not pay for the HTTP stack.
      const { startServer, stopOnSignals } = await import('./server.js');
      stopOnSignals(await startServer(config));
    });

  program
    .command('migrate')
    .description('bring the database schema up to date (the server also does this at start)')
    .action(async () => {
      const { openStore } = await import('./store/store.js');
      const store = openStore(loadConfig().databaseUrl);
      try {
        const applied = await store.migrate();
        writeLines(process.stdout, [applied.length ? `applied: ${applied.join(', ')}` : 'schema is up to date']);
      } finally {
        await store.close();
      }
    });

  const account = program.command('account').description('manage accounts (the API’s user + api_key)');

  withSettingOptions(account.command('create <name>').description('create an account and print its API key (shown once)'))
    .option('--json', 'print {"user","api_key"} as JSON')
    .action(async (name: string, options: SettingOptions & { json?: boolean }) => {
      // The one command besides serve and migrate that may make a new store.
      const created = await withServices((s) => s.accounts.create(name, settingsPatch(options)), { createStore: true });
      if (created.kind === 'name-taken') throw new CliError(`account "${name}" already exists`);
      if (created.kind === 'invalid') throw new CliError(`invalid ${created.setting}: ${created.reason}`);
      if (options.json) print({ user: created.account.name, api_key: created.apiKey }, true);
      else writeLines(process.stdout, [`created account "${created.account.name}"`, `api_key: ${created.apiKey}`, '(the key is shown only now; `account rotate-key` makes a new one)']);
    });

  account
    .command('list')
    .description('list the accounts')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const accounts = await withServices((s) => s.accounts.list());
      if (options.json) print(accounts.map((a) => describeAccount(a)), true);
      else writeLines(process.stdout, accounts.length === 0 ? ['no accounts (`member-api account create NAME` makes one)'] : tableLines(accounts.map((a) => ({ user: a.name, created: new Date(a.createdAt).toISOString() }))));
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
    .action(async (name: string, options: SettingOptions & { json?: boolean }) => {
      const changed = await withServices((s) => s.accounts.change(name, settingsPatch(options)));
      if (changed.kind === 'not-found') throw noAccount(name);
      if (changed.kind === 'invalid') throw new CliError(`invalid ${changed.setting}: ${changed.reason}`);
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
      else writeLines(process.stdout, [`new api_key "${key.key.name}" for "${name}": ${key.apiKey}`, options.grace ? `(the old key keeps working for ${options.grace})` : '(the old key stopped working)']);
    });

  const keys = account.command('key').description('an account’s named API keys: several at once, scoped, expiring');

  keys
    .command('add <name> <keyname>')
    .description('issue a new key (printed once)')
    .addOption(new Option('--scope <scope>', 'all: every call; read: /list/ only; login: /login/ with IP only').choices(['all', 'read', 'login']).default('all'))
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
      if (revoked.kind === 'no-such-key') throw new CliError(`account "${name}" has no key named "${keyName}"`);
      writeLines(process.stdout, [`revoked key "${keyName}" of "${name}"`]);
    });

  account
    .command('delete <name>')
    .description('delete an account with all its members')
    .option('--yes', 'confirm: the account and its members are gone for good')
    .action(async (name: string, options: { yes?: boolean }) => {
      if (!options.yes) throw new CliError(`refusing to delete "${name}" without --yes`);
      if (!(await withServices((s) => s.accounts.delete(name)))) throw noAccount(name);
      writeLines(process.stdout, [`deleted account "${name}"`]);
    });

  program
    .command('import <file>')
    .description('create or update (by login) an account’s members from a CSV or JSON Lines file ("-" for standard input)')
    .requiredOption('--account <name>', 'the account the members belong to')
    .addOption(new Option('--format <format>', 'the file’s format (default: from its name; csv for standard input)').choices(['csv', 'jsonl']))
    .option('--map <source=target>', 'read column SOURCE as TARGET (repeatable); SOURCE= drops the column', (value: string, all: string[]) => [...all, value], [])
    .option('--dry-run', 'check every row and report what would happen, writing nothing')
    .option('--keep-ids', 'give new members the file’s ids (when moving members to a new store)')
    .option('--rejects <file>', 'where rejected rows go (default: FILE.rejected.csv or .jsonl)')
    .option('--no-progress', 'no progress bar (there is none when standard error is not a terminal)')
    .option('--json', 'print the summary as JSON')
    .action(async (file: string, options: ImportCommandOptions) => {
      const { importCommand, describeImport } = await import('./import-export/commands.js');
      const report = await withServices((s) => importCommand(s, file, options));
      if (options.json) print(report, true);
      else writeLines(process.stdout, describeImport(report));
    });

  program
    .command('export')
    .description('write an account’s members, whole (password hashes included), as CSV or JSON Lines')
    .requiredOption('--account <name>', 'the account whose members to write')
    .addOption(new Option('--format <format>', 'csv or jsonl (default: from --output’s name, else csv)').choices(['csv', 'jsonl']))
    .option('--output <file>', 'write to this file instead of standard output')
    .action(async (options: { account: string; format?: 'csv' | 'jsonl'; output?: string }) => {
      const { exportCommand } = await import('./import-export/commands.js');
      const count = await withServices((s) => exportCommand(s, options));
      if (options.output && options.output !== '-') writeLines(process.stderr, [`exported ${count} members to ${options.output}`]);
    });

  registerMemberCommands(program, withServices);
  registerLinkCommands(program, account, withServices);
  registerMailCommands(account, withServices);
  registerWebhookCommands(program, withServices);
  registerOperatorCommands(program, withServices);

  program
    .command('backup <file>')
    .description('copy the SQLite store, while the server runs, into FILE (itself a working store); PostgreSQL: use pg_dump')
    .action(async (file: string) => {
      const { backupCommand } = await import('./import-export/commands.js');
      await withServices((s) => backupCommand(s, file));
      writeLines(process.stdout, [`backed up to ${file}`]);
    });

  reportUnknownOptionsFirst(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (error) {
    // One line, whatever went wrong: a bad argument, a bad setting, an unreachable store, a
    // file's header (its text escaped like every other line: it may come from anywhere).
    writeLines(process.stderr, [`member-api: ${error instanceof Error ? error.message : String(error)}`]);
    process.exitCode = 1;
  }
}

// Run directly (`tsx src/main.ts …`, `npm run dev`) as well as through bin/member-api.js.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv);
