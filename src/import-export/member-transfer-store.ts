/**
 * What the import and the export need from storage: members whole, in batches. Owned by
 * them; the API's member store knows nothing of it.
 */
import type { MemberFilters } from '../members/member-store.js';
import type { ImportWrite, MemberExport } from '../members/portable-member.js';

/**
 * The members a filter finds (the console's members page), rather than the whole account:
 * those the filter finds at `now`, each with its status at `now`, and of its profile only
 * `profileFields` (the export's `fieldNames`).
 */
export interface ExportSelection {
  readonly filters: MemberFilters;
  readonly now: number;
  readonly profileFields: readonly string[];
}

export interface MemberTransferStore {
  /**
   * Batches worth writing at once: 1 where one writer takes them in turn anyway (SQLite: a
   * second would only wait, and slow the first), 2 where the database writes them side by
   * side (PostgreSQL: measured 2,600 → 4,200 members/s migrating, no better with 3).
   */
  readonly writesInFlight: number;
  /** The ids of the members holding these logins (case-insensitively), by folded login. */
  findLoginIds(accountId: number, logins: readonly string[]): Promise<Map<string, number>>;
  /** Which of these ids a member holds, in any account: ids are one sequence for the whole store. */
  findTakenIds(ids: readonly number[]): Promise<Set<number>>;
  /** Writes one batch of an import in one transaction: all of it, or none. A login or id taken meanwhile fails with UniqueViolation. */
  writeImport(accountId: number, write: ImportWrite): Promise<void>;
  /**
   * The account's members, whole, in id order, from one read snapshot, handed to `consume`;
   * with a selection, those its filter finds, with the profile fields it names.
   */
  exportMembers(accountId: number, consume: (exported: MemberExport) => Promise<void>, selection?: ExportSelection): Promise<void>;
}
