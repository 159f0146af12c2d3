/**
 * `member-api import`, `export` and `backup`: the files, the progress bar and the summary
 * around the importer and the store.
 */
import { closeSync, rmSync } from 'node:fs';
import { basename } from 'node:path';
import { SingleBar } from 'cli-progress';
import { createPrivateFile, privateWriteStream } from '../common/private-file.js';
import type { Services } from '../compose.js';
import { accountNamed } from '../cli/cli-support.js';
import { formatOf, importFileSize, parseMapping, readImportFile, RejectsFile, rejectsPathFor, type FileFormat, type ReadRow } from './files.js';
import type { ImportSummary } from './importer.js';

export interface ImportCommandOptions {
  readonly account: string;
  readonly format?: FileFormat;
  readonly map: string[];
  readonly dryRun?: boolean;
  readonly keepIds?: boolean;
  readonly rejects?: string;
  readonly json?: boolean;
  readonly progress: boolean;
}

export interface ImportReport extends ImportSummary {
  seconds: number;
  rowsPerSecond: number;
  rejectsFile: string | null;
  dryRun: boolean;
}

function chosenFormat(path: string, format: FileFormat | undefined): FileFormat {
  const chosen = format ?? formatOf(path);
  if (!chosen) throw new Error(`cannot tell the format of "${path}": name it .csv or .jsonl, or say --format csv|jsonl`);
  return chosen;
}

export async function importCommand(
  services: Services,
  path: string,
  options: ImportCommandOptions,
  err: NodeJS.WriteStream = process.stderr,
): Promise<ImportReport> {
  const format = path === '-' ? (options.format ?? 'csv') : chosenFormat(path, options.format);
  const total = path === '-' ? 0 : importFileSize(path);
  const mapping = parseMapping(options.map);
  const account = await accountNamed(services, options.account);
  // A dry run writes nothing, not even the rejects: its summary counts them by reason.
  const keepRejects = !options.dryRun;
  // The rejects file is made at the first reject, new (never over a file or through a link).
  const byDefault = path === '-' ? `import-rejected.${format}` : `${path}.rejected.${format}`;
  const rejectsPath = keepRejects ? rejectsPathFor(options.rejects, byDefault) : (options.rejects ?? byDefault);
  const reader = readImportFile(path, format, mapping);
  let rejects: RejectsFile | undefined;

  const bar =
    options.progress && err.isTTY && total > 0
      ? new SingleBar({ format: 'importing [{bar}] {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted}', stream: err, hideCursor: true })
      : undefined;
  const started = performance.now();
  bar?.start(total, 0, { rows: 0, rate: 0 });
  let summary: ImportSummary;
  try {
    summary = await services.importer.run(
      account,
      reader.rows,
      { dryRun: Boolean(options.dryRun), keepIds: Boolean(options.keepIds), source: path === '-' ? 'standard input' : basename(path) },
      {
        async rejected(row, reason) {
          if (!keepRejects) return;
          rejects ??= new RejectsFile(rejectsPath, format, reader.header);
          await rejects.write(row as ReadRow, reason);
        },
        progress(handled, row) {
          // The bar follows the rows handled (where they end in the file), not the bytes read ahead.
          bar?.update(Math.max(bar.getProgress() * total, (row as ReadRow).offset), {
            rows: handled,
            rate: Math.round(handled / ((performance.now() - started) / 1000)),
          });
        },
      },
    );
  } finally {
    bar?.stop();
    await rejects?.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { ...summary, seconds, rowsPerSecond: summary.read / seconds, rejectsFile: rejects ? rejectsPath : null, dryRun: Boolean(options.dryRun) };
}

/** The summary's lines, for people (main.ts writes them through common/terminal-text.ts: a reason may quote the file). */
export function describeImport(report: ImportReport): string[] {
  const n = (value: number) => String(value).padStart(9);
  const lines = [
    `${report.dryRun ? 'dry run (nothing written): ' : ''}${report.read} rows read in ${report.seconds.toFixed(1)} s (${Math.round(report.rowsPerSecond)} rows/s)`,
    `  imported${n(report.imported)}   (new members)`,
    `  updated ${n(report.updated)}`,
    `  rejected${n(report.rejected)}${report.rejectsFile ? `   rows written to ${report.rejectsFile}` : ''}`,
    ...Object.entries(report.reasons)
      .sort(([, a], [, b]) => b - a)
      .map(([reason, count]) => `    ${n(count)}  ${reason}`),
  ];
  if (report.hashed > 0) lines.push(`  (${report.hashed} plain password${report.hashed === 1 ? '' : 's'} hashed with argon2id)`);
  return lines;
}

export async function exportCommand(services: Services, options: { account: string; format?: FileFormat; output?: string }): Promise<number> {
  const account = await accountNamed(services, options.account);
  const output = options.output && options.output !== '-' ? options.output : undefined;
  const format = options.format ?? (output ? formatOf(output) : undefined) ?? 'csv';
  // Password hashes are in it: a new file only its owner may read, never over a file or through a link.
  const out = output ? privateWriteStream(output, 'the export file', 'another name for --output') : process.stdout;
  return services.exporter.write(account, format, out);
}

export async function backupCommand(services: Services, path: string): Promise<void> {
  if (!services.store.backup) {
    throw new Error('this store is PostgreSQL: back it up with pg_dump (see docs/operating.md), not with member-api backup');
  }
  // A new, empty file only its owner may read (never over a file or through a link), which
  // SQLite's backup fills: it takes an empty file for an empty database.
  closeSync(createPrivateFile(path, 'the backup file'));
  try {
    await services.store.backup(path);
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  }
}
