/**
 * The command line: `member-api serve`, `migrate`, `import`, `export`, `backup`, and the
 * command families of cli/ (`account …`, `member …`, `webhook …`, `operator …`). Every
 * command has --help, and exits non-zero with a one-line reason on bad input.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { loadConfig, type Config } from './config.js';
import type { ImportCommandOptions } from './import-export/commands.js';
import { registerLinkCommands } from './cli/link-commands.js';
import { registerMailCommands } from './cli/mail-commands.js';
import { registerWebhookCommands } from './cli/webhook-commands.js';
import { registerOperatorCommands } from './cli/operator-commands.js';
import { registerMemberCommands } from './cli/member-commands.js';
import { registerAccountCommands } from './cli/account-commands.js';
import { registerBillingCommands } from './cli/billing-commands.js';
import { print, reportUnknownOptionsFirst, withServices } from './cli/cli-support.js';
import { packageVersion } from './version.js';
import { writeLines } from './common/terminal-text.js';

export function buildCli(): Command {
  const program = new Command('member-api')
    .description('Member management HTTP API v2 server. Configured by environment variables (see docs/configuration.md).')
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
      await startServer(config, stopOnSignals);
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

  const account = registerAccountCommands(program, withServices);

  program
    .command('import <file>')
    .description('create or update (by login) an account’s members from a CSV or JSON Lines file ("-" for standard input)')
    .requiredOption('--account <name>', 'the account the members belong to')
    .addOption(new Option('--format <format>', 'the file’s format (default: from its name; csv for standard input)').choices(['csv', 'jsonl']))
    .option(
      '--map <source=target>',
      'read column SOURCE as TARGET (repeatable); SOURCE= drops the column',
      (value: string, all: string[]) => [...all, value],
      [],
    )
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
  registerBillingCommands(program, withServices);

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
