/**
 * The move from an upstream service on the command line: `account link | unlink |
 * link-status` and `migrate-members`. The upstream's key is read from the option, or from
 * standard input with `--upstream-key -` (so that it stays out of the shell's history), and
 * is never printed back.
 */
import { once } from 'node:events';
import type { WriteStream } from 'node:fs';
import { privateWriteStream } from '../common/private-file.js';
import { REJECTS_FILE, rejectsPathFor } from '../import-export/files.js';
import { text } from 'node:stream/consumers';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { LinkStatus } from '../upstream/links-service.js';
import { writeLines } from '../common/terminal-text.js';
import { accountNamed, CommandError, print, type WithServices } from './cli-support.js';
import { MigrationError, type MigrationSummary } from '../upstream/member-migration.js';

const iso = (instant: number | null) => (instant === null ? null : new Date(instant).toISOString());

export function describeStatus(status: LinkStatus) {
  return {
    account: status.account,
    upstream: status.url,
    upstream_user: status.upstreamUser,
    capture_unknown: status.captureUnknown,
    mirror_writes: status.mirrorWrites,
    linked_at: iso(status.linkedAt),
    members_migrated: status.migrated,
    passwords_captured: status.passwordsCaptured,
    members_waiting: status.waiting,
    last_sync: iso(status.lastSync),
    interrupted_run: status.interruptedRun && { started_at: iso(status.interruptedRun.startedAt), last_id: status.interruptedRun.lastId },
    upstream_errors: status.upstreamErrors,
    last_error: status.lastError,
    last_error_at: iso(status.lastErrorAt),
    mirror_pending: status.mirrorPending,
    mirror_last_error: status.mirrorLastError,
  };
}

function describeMigration(summary: MigrationSummary, rejectsFile: string | null): string[] {
  const n = (value: number) => String(value).padStart(9);
  const lines = [
    `${summary.dryRun ? 'dry run (nothing written): ' : ''}${summary.mode === 'full' ? 'every member' : 'changes since the last run'}: ${summary.read} read from the upstream in ${summary.seconds.toFixed(1)} s (${Math.round(summary.membersPerSecond)} members/s)`,
    ...(summary.resumedAfter === null ? [] : [`  went on after upstream id ${summary.resumedAfter} (an interrupted run had written those before it)`]),
    `  new      ${n(summary.imported)}   (each waits for its first login to bring its password)`,
    ...(summary.renumbered === 0 ? [] : [`           ${n(summary.renumbered)}   of them numbered here: their upstream id is another member's in this store`]),
    `  updated  ${n(summary.updated)}`,
    `  deleted  ${n(summary.deletions)}   (Deleted at the upstream, kept Deleted here until the retention ends)`,
    `  rejected ${n(summary.rejected)}${rejectsFile ? `   members written to ${rejectsFile}, with _reason` : ''}`,
    ...Object.entries(summary.reasons)
      .sort(([, a], [, b]) => b - a)
      .map(([reason, count]) => `    ${n(count)}  ${reason}`),
  ];
  return lines;
}

interface LinkOptions {
  readonly upstreamUrl: string;
  readonly upstreamUser: string;
  readonly upstreamKey: string;
  readonly timeZone?: string;
  readonly captureUnknown?: boolean;
  readonly mirrorWrites?: boolean;
  readonly check: boolean;
  readonly json?: boolean;
}

interface MigrateOptions {
  readonly fields?: string;
  readonly rejects?: string;
  readonly sinceLast?: boolean;
  readonly dryRun?: boolean;
  readonly newIds?: boolean;
  readonly progress: boolean;
  readonly json?: boolean;
}

export function registerLinkCommands(program: Command, account: Command, withServices: WithServices): void {
  account
    .command('link <name>')
    .description('link an account to the service its members come from (another server of this API, the hosted original)')
    .requiredOption('--upstream-url <url>', 'the upstream API, e.g. https://members.example.com/api2')
    .requiredOption('--upstream-user <user>', 'the account name at the upstream')
    .requiredOption('--upstream-key <key>', 'its API key ("-": read it from standard input); kept in the store, never shown')
    .option('--time-zone <zone>', 'the zone the upstream writes its dates in (default: this account’s)')
    .option('--capture-unknown', 'a login unknown here is tried at the upstream, and its member brought over when right')
    .option('--mirror-writes', '/create/ and /update/ made here are made at the upstream too')
    .option('--no-check', 'link without asking the upstream first (it is down now)')
    .option('--json', 'print the outcome as JSON')
    .action(async (name: string, options: LinkOptions) => {
      const key = options.upstreamKey === '-' ? (await text(process.stdin)).trim() : options.upstreamKey;
      const outcome = await withServices(async (s) =>
        s.upstream.links.link(
          await accountNamed(s, name),
          {
            url: options.upstreamUrl,
            user: options.upstreamUser,
            key,
            timeZone: options.timeZone,
            captureUnknown: Boolean(options.captureUnknown),
            mirrorWrites: Boolean(options.mirrorWrites),
          },
          { check: options.check },
        ),
      );
      if (outcome.kind === 'invalid') throw new CommandError(`invalid ${outcome.setting}: ${outcome.reason}`);
      if (outcome.kind === 'unreachable')
        throw new CommandError(`the upstream did not answer its /list/ with these credentials (${outcome.reason}); nothing changed`);
      if (options.json) print({ account: name, linked: true, upstream_members: outcome.upstreamMembers }, true);
      else
        writeLines(process.stdout, [
          `linked account "${name}" to ${options.upstreamUrl}${outcome.upstreamMembers === null ? ' (not checked)' : ` (${outcome.upstreamMembers} members there)`}`,
          `next: member-api migrate-members ${name} --fields <the profile fields to bring>`,
        ]);
    });

  account
    .command('unlink <name>')
    .description('end the link: members whose password is still at the upstream need a password reset')
    .option('--json', 'print the outcome as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const waiting = await withServices(async (s) => s.upstream.links.unlink(await accountNamed(s, name)));
      if (waiting === undefined) throw new CommandError(`account "${name}" is not linked`);
      if (options.json) print({ account: name, unlinked: true, members_without_password: waiting }, true);
      else
        writeLines(process.stdout, [
          `unlinked account "${name}"; ${waiting} member${waiting === 1 ? '' : 's'} never logged in since the move and need a password reset`,
        ]);
    });

  account
    .command('link-status <name>')
    .description('the move so far: members migrated, passwords captured, members waiting, last sync, upstream errors')
    .option('--json', 'print as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const status = await withServices(async (s) => s.upstream.links.status(await accountNamed(s, name)));
      if (!status) throw new CommandError(`account "${name}" is not linked`);
      print(describeStatus(status), options.json);
    });

  program
    .command('migrate-members <account>')
    .description('bring a linked account’s members over from its upstream (a rerun goes on where a run stopped, and catches up)')
    .option('--fields <names>', 'the profile fields to bring, comma-separated (the API cannot list their names)')
    .option('--since-last', 'only members registered or deleted since the last run (limit=NNNs, limitd=NNNs): quick, but misses other changes')
    .option('--dry-run', 'read and check everything, write nothing')
    .option('--new-ids', 'give new members ids of this store (by default they keep the upstream’s, which integrators may have kept)')
    .option('--rejects <file>', 'where members that cannot be written here go, as JSON Lines (default: ACCOUNT-migration.rejected.jsonl)')
    .option('--no-progress', 'no progress bar (there is none when standard error is not a terminal)')
    .option('--json', 'print the summary as JSON')
    .action(async (name: string, options: MigrateOptions) => {
      const fields = (options.fields ?? '')
        .split(',')
        .map((field) => field.trim())
        .filter((field) => field !== '');
      const err = process.stderr;
      const bar =
        options.progress && err.isTTY
          ? new SingleBar({
              format: 'migrating [{bar}] {percentage}% | {value}/{total} members | {rate} members/s | ETA {eta_formatted}',
              stream: err,
              hideCursor: true,
            })
          : undefined;
      const started = performance.now();
      // Made at the first reject, new and readable by its owner only (never over an earlier
      // run's rejects, whose members a rerun does not try again, nor through a link).
      const byDefault = `${name}-migration.rejected.jsonl`;
      const rejectsPath = options.dryRun ? (options.rejects ?? byDefault) : rejectsPathFor(options.rejects, byDefault);
      let rejects: WriteStream | undefined;
      let summary: MigrationSummary;
      try {
        summary = await withServices(async (s) =>
          s.upstream.migration.run(
            await accountNamed(s, name),
            { fields, sinceLast: options.sinceLast, dryRun: options.dryRun, newIds: options.newIds },
            {
              started: (expected) => bar?.start(expected, 0, { rate: 0 }),
              progress: (read) => {
                if (bar && read % 100 === 0) bar.update(Math.min(read, bar.getTotal()), { rate: Math.round(read / ((performance.now() - started) / 1000)) });
              },
              rejected: async (member, reason) => {
                if (options.dryRun) return;
                rejects ??= privateWriteStream(rejectsPath, REJECTS_FILE.what, REJECTS_FILE.choose);
                if (!rejects.write(`${JSON.stringify({ ...member, _reason: reason })}\n`)) await once(rejects, 'drain');
              },
            },
          ),
        );
      } catch (error) {
        if (error instanceof MigrationError) throw new CommandError(error.message);
        throw error;
      } finally {
        bar?.stop();
        if (rejects) await new Promise((resolve) => rejects!.end(resolve));
      }
      const rejectsFile = rejects ? rejectsPath : null;
      if (options.json) print({ ...summary, rejectsFile }, true);
      else writeLines(process.stdout, describeMigration(summary, rejectsFile));
    });
}
