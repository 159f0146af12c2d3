/**
 * `migrate-members`: the upstream's members, read from its /list/ (every built-in field the
 * list gives, and the profile fields named), written here through the importer (upsert by
 * login, ids kept where no member of this store holds them: ids are global here, across
 * accounts, so another tenant's member may have one), each new one marked "password at
 * upstream". Members are matched by login (here, and by the link's mirrored writes), never by
 * id; the run's place is an upstream id. The list is read as it
 * streams; the run's place (the last upstream id written) is kept after every batch, so an
 * interrupted run goes on from there when run again.
 *
 * Runs: the first reads every member. A later run reads every member again (updating what
 * changed, adding what is new); `sinceLast` instead asks only `limit=NNNs` (registered since)
 * and `limitd=NNNs` (deleted since the last run began), which is quick but misses changes to
 * members that already were here.
 *
 * Members Deleted at the upstream (which /list/ gives only with `limitd`) come over as Deleted,
 * keeping their logins until this store's retention ends: those deleted within the retention
 * (a `sinceLast` run: since the last run), new or here already, with the latest time their
 * deletion can have been (deletion-times.ts); a member deleted longer ago is purged here
 * already, so it comes over only to end a member here (a rerun after a gap longer than the
 * retention). A member Deleted here already keeps its deletion time, so a rerun changes nothing.
 */
import type { Account } from '../accounts/account.js';
import { PASSWORD_AT_UPSTREAM } from '../auth/legacy-hashes.js';
import type { Clock } from '../common/clock.js';
import type { MemberImporter, SourceRow, ImportSummary } from '../import-export/importer.js';
import { MAX_RECORD_FIELDS } from '../members/fields.js';
import { isProfileFieldName } from '../members/profile-fields.js';
import { DELETION_WINDOWS_SECONDS, DeletionTimes } from './deletion-times.js';
import { DELETED_TIME_COLUMN, describeUpstreamError, importValues, isUpstreamError, migrationRecord, upstreamClient } from './upstream-api.js';
import type { UpstreamLinkStore } from './upstream-link.js';

export interface MigrationOptions {
  /** Profile fields to bring (the API cannot list their names). */
  readonly fields: readonly string[];
  /** Only what changed since the last run: registrations and deletions (`limit=NNNs`, `limitd=NNNs`). */
  readonly sinceLast?: boolean;
  readonly dryRun?: boolean;
  /** New members get ids of this store rather than the upstream's. */
  readonly newIds?: boolean;
}

export interface MigrationProgress {
  /** The upstream's count of the members it is sending (from a first, short call); 0 when unknown. */
  started?(expected: number): void;
  progress?(read: number): void;
  /** A listed member that could not be written here, as the upstream listed it, and why. */
  rejected?(member: Readonly<Record<string, string>>, reason: string): Promise<void>;
}

export interface MigrationSummary extends ImportSummary {
  /** What was asked: every member, or only the changes since the last run. */
  readonly mode: 'full' | 'since-last';
  readonly dryRun: boolean;
  /**
   * Members the upstream lists as Deleted, written as Deleted here: those deleted within the
   * retention (new ones too, their logins kept), and members here deleted longer ago. A rerun
   * writes them again (changing nothing), as it does every member.
   */
  deletions: number;
  /** Rows skipped because an interrupted run had written them already. */
  resumedAfter: number | null;
  /** New members given an id of this store, their upstream id being another member's here. */
  renumbered: number;
  seconds: number;
  membersPerSecond: number;
}

const BUILT_IN_COUNT = migrationRecord([]).split('{').length - 1;
const DAY_SECONDS = 86_400;

/** A cause the command line shows as it is. */
export class MigrationError extends Error {}

/** Seconds since `at`, rounded up, with a minute to spare for clocks that differ. */
function secondsSince(at: number, now: number): number {
  return Math.ceil((now - at) / 1000) + 60;
}

export class MemberMigration {
  constructor(
    private readonly links: UpstreamLinkStore,
    private readonly importer: MemberImporter,
    private readonly clock: Clock,
    /** DELETED_RETENTION_DAYS: a Deleted member is kept (and keeps its login) this long here. */
    private readonly deletedRetentionDays: number,
  ) {}

  async run(account: Account, options: MigrationOptions, progress: MigrationProgress = {}): Promise<MigrationSummary> {
    const link = await this.links.findLink(account.id);
    if (!link) throw new MigrationError(`account "${account.name}" is not linked (member-api account link ${account.name} --upstream-url …)`);
    const invalid = options.fields.find((name) => !isProfileFieldName(name));
    if (invalid !== undefined) throw new MigrationError(`--fields: "${invalid}" is not a profile field name`);
    const record = migrationRecord(options.fields);
    const room = MAX_RECORD_FIELDS - BUILT_IN_COUNT;
    if (options.fields.length > room) throw new MigrationError(`--fields: at most ${room} profile fields (a record holds ${MAX_RECORD_FIELDS} fields)`);
    if (options.sinceLast && link.lastSyncAt === null)
      throw new MigrationError('--since-last needs a run that finished before it (run migrate-members without it first)');

    const started = this.clock();
    const client = upstreamClient(link);
    // An interrupted full run goes on where it stopped: rows it wrote are skipped.
    const resumeAfter = !options.sinceLast && link.syncStartedAt !== null ? link.syncCursor : null;
    const runStartedAt = resumeAfter !== null ? link.syncStartedAt! : started;
    const importOptions = {
      dryRun: Boolean(options.dryRun),
      keepIds: !options.newIds,
      renumberTaken: true,
      timeZone: link.timeZone,
      source: 'migrate-members',
      passwordForNew: PASSWORD_AT_UPSTREAM,
    };
    let renumbered = 0;
    let read = 0;
    const links = this.links;
    // What the upstream listed for each row, for the report of rows rejected.
    const listed = new WeakMap<SourceRow, Readonly<Record<string, string>>>();
    /** The listed members as rows; `take` leaves a member out (false), or adds to its values. */
    async function* rows(params: Record<string, string>, take: (id: number, values: Map<string, string>) => boolean = () => true): AsyncIterable<SourceRow> {
      const members = client.members({ record, ...params });
      for await (const member of members) {
        read++;
        progress.progress?.(read);
        const id = Number(member.id);
        const values = importValues(member, options.fields);
        if (!take(id, values)) continue;
        const row = { line: id, values };
        listed.set(row, member);
        yield row;
      }
    }
    const rejected = async (row: SourceRow, reason: string) => progress.rejected?.(listed.get(row) ?? {}, reason);
    const events = {
      rejected,
      renumbered: () => {
        renumbered++;
      },
      batchWritten: async (last: SourceRow, written: number) => {
        if (!options.sinceLast) await links.recordSyncProgress(account.id, runStartedAt, last.line, written);
      },
    };

    const sinceSeconds = link.lastSyncAt === null ? null : secondsSince(link.lastSyncAt, started);
    const since = sinceSeconds === null ? null : `${sinceSeconds}s`;
    // Deleted members: those within `kept` seconds come over whole; those deleted since the
    // last run but longer ago (`older`) only to end members here (they are past the retention).
    const retention = this.deletedRetentionDays * DAY_SECONDS;
    const kept = options.sinceLast ? Math.min(sinceSeconds!, retention) : retention;
    const older = sinceSeconds !== null && sinceSeconds > kept ? sinceSeconds : null;
    let summary: ImportSummary;
    let deletions = 0;
    try {
      const largest = older ?? kept;
      const windows = [largest, kept, ...DELETION_WINDOWS_SECONDS, ...(sinceSeconds === null ? [] : [sinceSeconds])].filter((seconds) => seconds <= largest);
      const deletedWithin = (seconds: number) => ({ status: 'D' as const, limitd: `${seconds}s` });
      const deletedAt = await DeletionTimes.ask((seconds) => client.members({ record: '{id}', ...deletedWithin(seconds) }), windows, this.clock);
      progress.started?.((await this.expected(client, options.sinceLast ? { limit: since! } : {})) + deletedAt.count);
      summary = await this.importer.run(
        account,
        rows(options.sinceLast ? { limit: since! } : {}, (id) => resumeAfter === null || id > resumeAfter),
        importOptions,
        events,
      );
      // The deletion time is a bound, not a fact: a member Deleted here already keeps its own.
      const deletedOptions = { ...importOptions, keepDeletionTimes: true };
      const boundTime = (id: number, values: Map<string, string>) => {
        const latest = deletedAt.latest(id);
        if (latest !== undefined) values.set(DELETED_TIME_COLUMN, new Date(latest).toISOString());
        return true;
      };
      const written = new Set<number>();
      if (kept > 0) {
        const takeKept = (id: number, values: Map<string, string>) => {
          written.add(id);
          return boundTime(id, values);
        };
        const deleted = await this.importer.run(account, rows(deletedWithin(kept), takeKept), deletedOptions, { rejected, renumbered: events.renumbered });
        deletions += deleted.imported + deleted.updated;
        summary.read += deleted.read;
        summary.rejected += deleted.rejected;
        for (const [reason, count] of Object.entries(deleted.reasons)) summary.reasons[reason] = (summary.reasons[reason] ?? 0) + count;
      }
      if (older !== null) {
        // Past the retention: a member that never came here is no news (refused, unreported).
        const takeOlder = (id: number, values: Map<string, string>) => !written.has(id) && boundTime(id, values);
        const deleted = await this.importer.run(account, rows(deletedWithin(older), takeOlder), { ...deletedOptions, passwordForNew: undefined }, {});
        deletions += deleted.updated;
        summary.read += deleted.read;
      }
    } catch (error) {
      if (!isUpstreamError(error)) throw error;
      const message = describeUpstreamError(error);
      await this.links.recordUpstreamError(account.id, `sync: ${message}`, this.clock());
      throw new MigrationError(`the upstream failed: ${message}${options.dryRun ? '' : '; run migrate-members again to go on from where this run stopped'}`);
    }
    if (!options.dryRun) {
      if (options.sinceLast) await this.links.recordSyncProgress(account.id, started, 0, summary.imported + summary.updated + deletions);
      await this.links.finishSync(account.id, runStartedAt);
    }
    const seconds = (this.clock() - started) / 1000;
    return {
      ...summary,
      mode: options.sinceLast ? 'since-last' : 'full',
      dryRun: Boolean(options.dryRun),
      deletions,
      resumedAfter: resumeAfter,
      renumbered,
      seconds,
      membersPerSecond: seconds > 0 ? read / seconds : read,
    };
  }

  /** How many members the upstream will send (members_total of a one-member list). */
  private async expected(client: ReturnType<typeof upstreamClient>, params: Record<string, string>): Promise<number> {
    const answer = await client.list({ record: '{id}', ...params, limit: params.limit ? [params.limit, '1'] : '1' });
    return 'members_total' in answer ? Number(answer.members_total) : 0;
  }
}
