/**
 * The export: an account's members (or those a filter of the console finds) streamed into a
 * file or a reply, page by page from one read snapshot, never all held at once. One path for
 * `member-api export` and the console's Export.
 */
import type { Writable } from 'node:stream';
import type { Account } from '../accounts/account.js';
import { writeExport, type FileFormat } from './files.js';
import type { ExportSelection, MemberTransferStore } from './member-transfer-store.js';

/** What the console exports: the members a filter finds, in the columns its page shows. */
export interface ExportChoice {
  readonly selection: ExportSelection;
  /** The file's columns (as `exportColumns` names them). */
  readonly columns: readonly string[];
}

export class MemberExporter {
  constructor(private readonly store: MemberTransferStore) {}

  /** Writes the members to `out` in the format, and answers how many; every member and column without a choice. */
  async write(account: Account, format: FileFormat, out: Writable, choice?: ExportChoice): Promise<number> {
    let count = 0;
    await this.store.exportMembers(
      account.id,
      async (exported) => {
        count = await writeExport(exported, format, out, choice?.columns);
      },
      choice?.selection,
    );
    return count;
  }
}
