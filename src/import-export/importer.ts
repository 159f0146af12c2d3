/**
 * The import: rows in, members created or updated (by login), in batches. Each batch is
 * decoded, its plain passwords hashed on every core at once, and written in one
 * transaction. A rerun of the same file changes nothing it has not changed already: a login
 * that exists is updated, never duplicated.
 */
import type { Account } from '../accounts/account.js';
import type { PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { foldKey } from '../members/member.js';
import type { MemberTransferStore } from './member-transfer-store.js';
import type { ImportedMember } from '../members/portable-member.js';
import { UniqueViolation } from '../common/store-errors.js';
import { decodeImportRow, RowRejected, type DecodedRow } from './import-row.js';

export interface SourceRow {
  /** Where the row starts in its file (1-based), for the rejects report. */
  readonly line: number;
  /** Values by column name, after the column mapping. */
  readonly values: ReadonlyMap<string, string>;
  /** Why the row could not even be read (a line that is not JSON): it is rejected with this. */
  readonly unreadable?: string;
}

export interface ImportOptions {
  /** Decide and report everything, write nothing (and hash nothing). */
  readonly dryRun: boolean;
  /** Give new members the file's `id` (moving a store: ids that integrators keep stay right). */
  readonly keepIds: boolean;
  /**
   * With keepIds: a new member whose id another member of this store holds already (ids are
   * one sequence for every account) is numbered here, rather than the batch failing. For a
   * migration, which finds its members by login, never by id.
   */
  readonly renumberTaken?: boolean;
  /** The zone dates without one are read in; the account's by default. */
  readonly timeZone?: string;
  /**
   * What a new member without a password or hash is stored with, instead of being refused:
   * the mark of a password still at the upstream (a migration: see upstream/).
   */
  readonly passwordForNew?: string;
  /**
   * A member Deleted already keeps its deletion time, whatever a row gives: for rows whose
   * deletion times are bounds rather than facts (a migration's), so that a rerun changes nothing.
   */
  readonly keepDeletionTimes?: boolean;
  /** What the members' histories name as the source of their changes: the file's name, or the migration. */
  readonly source?: string;
}

export interface ImportSummary {
  read: number;
  /** New members. */
  imported: number;
  updated: number;
  rejected: number;
  /** Rejections by reason. */
  reasons: Record<string, number>;
  /** Plain passwords hashed (the costly part). */
  hashed: number;
}

export interface ImportEvents {
  rejected?(row: SourceRow, reason: string): void | Promise<void>;
  /**
   * Rows handled so far, and the last row handled: after each batch, and while a batch's
   * passwords are hashed (the slow part), after each of them.
   */
  progress?(handled: number, row: SourceRow): void;
  /** A batch is written (committed): its last row, and how many of its rows were written. */
  batchWritten?(last: SourceRow, written: number): Promise<void>;
  /** A new member numbered here, its id being taken (renumberTaken): told once its batch is written (decided, in a dry run). */
  renumbered?(row: SourceRow): void;
  /**
   * The logins of a batch's new members stored with `passwordForNew` (their rows give no
   * password): told once the batch is written (decided, in a dry run).
   */
  withoutPassword?(logins: readonly string[]): void | Promise<void>;
}

/** Rows decided and written together. */
export const IMPORT_BATCH = 1000;

interface Accepted {
  readonly row: SourceRow;
  readonly decoded: DecodedRow;
}

export class MemberImporter {
  constructor(
    private readonly store: MemberTransferStore,
    /** Admitted by a gate as wide as the machine's cores: a batch hashes on all of them. */
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
  ) {}

  async run(account: Account, rows: AsyncIterable<SourceRow>, options: ImportOptions, events: ImportEvents = {}): Promise<ImportSummary> {
    const summary: ImportSummary = { read: 0, imported: 0, updated: 0, rejected: 0, reasons: {}, hashed: 0 };
    const seen = new Set<string>();
    const reject = async (row: SourceRow, reason: string) => {
      summary.rejected++;
      summary.reasons[reason] = (summary.reasons[reason] ?? 0) + 1;
      await events.rejected?.(row, reason);
    };

    let batch: Accepted[] = [];
    const handled = () => summary.imported + summary.updated + summary.rejected;
    // Batches are written while the next ones are read and decoded: the writes run in the
    // store (a worker thread, or PostgreSQL), the reading on this thread, so each hides the
    // other; where the store writes side by side, two are in flight (writesInFlight). A batch's
    // progress is told only once every batch before it is written (a run resumed from it
    // misses nothing).
    const inFlight: Array<Promise<void>> = [];
    let told: Promise<void> = Promise.resolve();
    const flush = async () => {
      const accepted = batch;
      batch = [];
      if (inFlight.length >= this.store.writesInFlight) await inFlight.shift();
      const before = handled();
      let hashed = 0;
      const written = this.writeBatch(
        account,
        accepted,
        options,
        summary,
        reject,
        (row) => events.progress?.(before + ++hashed, row),
        (row) => events.renumbered?.(row),
        events.withoutPassword && ((logins) => events.withoutPassword!(logins)),
      );
      const previous = told;
      told = (async () => {
        const count = await written;
        await previous;
        if (!options.dryRun) await events.batchWritten?.(accepted.at(-1)!.row, count);
        events.progress?.(handled(), accepted.at(-1)!.row);
      })();
      // Awaited by a later flush or at the end; until then its failure is not unhandled.
      told.catch(() => {});
      inFlight.push(told);
    };
    for await (const row of rows) {
      summary.read++;
      if (row.unreadable !== undefined) {
        await reject(row, row.unreadable);
        continue;
      }
      let decoded: DecodedRow;
      try {
        decoded = decodeImportRow(row.values, options.timeZone ?? account.settings.timeZone);
      } catch (error) {
        if (!(error instanceof RowRejected)) throw error;
        await reject(row, error.message);
        continue;
      }
      if (!options.keepIds && decoded.member.id !== undefined) decoded = { ...decoded, member: withoutId(decoded.member) };
      // A login twice in one file is a mistake in the file: the first row counts.
      const key = foldKey(decoded.member.login);
      if (seen.has(key)) {
        await reject(row, 'login repeated in this file (its first row counts)');
        continue;
      }
      seen.add(key);
      batch.push({ row, decoded });
      if (batch.length >= IMPORT_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    for (const write of inFlight) await write;
    return summary;
  }

  private async writeBatch(
    account: Account,
    batch: readonly Accepted[],
    options: ImportOptions,
    summary: ImportSummary,
    reject: (row: SourceRow, reason: string) => Promise<void>,
    hashed: (row: SourceRow) => void,
    told: (renumbered: SourceRow) => void = () => {},
    withoutPassword?: (logins: readonly string[]) => void | Promise<void>,
  ): Promise<number> {
    // Hashes made for a row are kept across a second attempt: hashing is the costly part.
    const hashes = new Map<SourceRow, string>();
    for (let attempt = 1; ; attempt++) {
      const existing = await this.store.findLoginIds(
        account.id,
        batch.map((a) => a.decoded.member.login),
      );
      let inserts: Accepted[] = [];
      const updates: Array<Accepted & { id: number }> = [];
      const refused: Array<[SourceRow, string]> = [];
      for (const accepted of batch) {
        const { member, password } = accepted.decoded;
        const id = existing.get(foldKey(member.login));
        if (id !== undefined) updates.push({ ...accepted, id });
        else if (member.email === undefined) refused.push([accepted.row, 'missing email (needed for a new member)']);
        else if (member.passwordHash === undefined && password === undefined && options.passwordForNew === undefined) {
          refused.push([accepted.row, 'missing password or password_hash (needed for a new member)']);
        } else inserts.push(accepted);
      }
      const renumbered = options.keepIds && options.renumberTaken ? await this.takenIds(inserts) : new Set<Accepted>();
      if (renumbered.size > 0) inserts = inserts.map((a) => (renumbered.has(a) ? { ...a, decoded: { ...a.decoded, member: withoutId(a.decoded.member) } } : a));
      const withPasswords = [...inserts, ...updates].filter((a) => a.decoded.password !== undefined);
      if (!options.dryRun) {
        await this.hashPasswords(withPasswords, hashes, hashed);
        const memberOf = (a: Accepted) => {
          const passwordHash = hashes.get(a.row);
          return passwordHash === undefined ? a.decoded.member : { ...a.decoded.member, passwordHash };
        };
        const newMemberOf = (a: Accepted) => {
          const member = memberOf(a);
          return member.passwordHash === undefined ? { ...member, passwordHash: options.passwordForNew } : member;
        };
        try {
          await this.store.writeImport(account.id, {
            inserts: inserts.map(newMemberOf),
            updates: updates.map((a) => ({ id: a.id, member: memberOf(a) })),
            now: this.clock(),
            origin: { actor: 'import', ...(options.source === undefined ? {} : { name: options.source }) },
            keepDeletionTimes: options.keepDeletionTimes,
          });
        } catch (error) {
          // A login taken between the look-up and the write (an API client creating members
          // meanwhile): look again. A given id that is taken cannot get better: say so.
          if (error instanceof UniqueViolation && attempt === 1) continue;
          if (error instanceof UniqueViolation && options.keepIds)
            throw new Error(`a member id in lines ${batch[0]!.row.line}–${batch.at(-1)!.row.line} is taken in this store`, { cause: error });
          throw error;
        }
        summary.hashed += withPasswords.length;
      }
      for (const [row, reason] of refused) await reject(row, reason);
      for (const a of renumbered) told(a.row);
      const placeholders = inserts.filter((a) => a.decoded.member.passwordHash === undefined && a.decoded.password === undefined);
      if (withoutPassword && placeholders.length > 0) await withoutPassword(placeholders.map((a) => a.decoded.member.login));
      summary.imported += inserts.length;
      summary.updated += updates.length;
      return inserts.length + updates.length;
    }
  }

  /** The new members whose given id a member of this store holds already. */
  private async takenIds(inserts: readonly Accepted[]): Promise<Set<Accepted>> {
    const given = inserts.flatMap((a) => (a.decoded.member.id === undefined ? [] : [a.decoded.member.id]));
    const taken = given.length === 0 ? new Set<number>() : await this.store.findTakenIds(given);
    return new Set(inserts.filter((a) => a.decoded.member.id !== undefined && taken.has(a.decoded.member.id)));
  }

  /**
   * Hashes the plain passwords not hashed yet, all at once: the hasher's gate spreads them
   * over the cores.
   */
  private async hashPasswords(accepted: readonly Accepted[], hashes: Map<SourceRow, string>, hashed: (row: SourceRow) => void): Promise<void> {
    await Promise.all(
      accepted.map(async (a) => {
        if (hashes.has(a.row)) return;
        hashes.set(a.row, await this.hasher.hash(a.decoded.password!));
        hashed(a.row);
      }),
    );
  }
}

function withoutId(member: ImportedMember): ImportedMember {
  return Object.fromEntries(Object.entries(member).filter(([key]) => key !== 'id')) as ImportedMember;
}
