/**
 * The files of an import and an export: CSV (csv-parse, csv-stringify) or JSON Lines, read
 * and written as streams, so that a million members never sit in memory. Columns can be
 * renamed on the way in (`--map theirs=ours`), and rejected rows are written back out in
 * their own format with the line and the reason. A CSV cell that a spreadsheet would run as a
 * formula is written with a quote before it, taken away again on reading (spreadsheet-cells.ts).
 */
import { createReadStream, statSync } from 'node:fs';
import { PassThrough, Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pipeline as pipe } from 'node:stream';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify';
import { freePath, privateWriteStream, refuseTakenPath } from '../common/private-file.js';
import type { MemberExport, PortableMember } from '../members/portable-member.js';
import { MEMBER_FIELDS, valueOf } from '../members/member-fields.js';
import { classifyColumn, MEMBER_COLUMNS, profileColumnName } from './import-row.js';
import type { SourceRow } from './importer.js';
import { fromSpreadsheetCell, toSpreadsheetCell } from './spreadsheet-cells.js';

export type FileFormat = 'csv' | 'jsonl';

/** The format a file name says, if it says one. */
export function formatOf(path: string): FileFormat | undefined {
  if (/\.csv$/i.test(path)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(path)) return 'jsonl';
  return undefined;
}

/** theirs → ours; an empty target drops the column. */
export type ColumnMapping = ReadonlyMap<string, string>;

export function parseMapping(specs: readonly string[]): ColumnMapping {
  const mapping = new Map<string, string>();
  for (const spec of specs) {
    const at = spec.indexOf('=');
    if (at <= 0) throw new Error(`--map takes SOURCE=TARGET (or SOURCE= to drop a column), got "${spec}"`);
    mapping.set(spec.slice(0, at), spec.slice(at + 1));
  }
  return mapping;
}

/**
 * The field a column goes to ('' leaves it out). A column the mapping does not name keeps its
 * name (the command line's `--map`), or, `onlyMapped` (the console's, whose mapping names every
 * column the operator saw), is left out: a JSON Lines key first met after the lines its
 * columns were read from is not read.
 */
function mapped(mapping: ColumnMapping, name: string, onlyMapped = false): string {
  return mapping.get(name) ?? (onlyMapped ? '' : name);
}

/**
 * A file that cannot be imported as it is (its header names no login, a column that is no
 * field): the message says why and what to do, and is shown to the operator as it is.
 */
export class ImportFileError extends Error {}

/** A row that was read, with what is needed to write it back out as it came. */
export interface ReadRow extends SourceRow {
  readonly original: Record<string, string> | string;
  /** Bytes of the file up to the end of this row (for a progress bar). */
  readonly offset: number;
}

export interface RowReader {
  readonly rows: AsyncIterable<ReadRow>;
  /** CSV: the header as in the file, for the rejects file. */
  header(): readonly string[] | undefined;
  /** Closes the file (a run stopped before its end keeps it open no longer); standard input is left open. */
  close(): void;
}

/**
 * The size of a file to import, once it is known to be one that can be read: a missing file,
 * a folder or an unreadable file stops here, with its name, before anything is opened.
 */
export function importFileSize(path: string): number {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw new Error(`"${path}" is a folder, not a file to import`);
    size = stat.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`no file "${path}" (check the path; - reads standard input)`, { cause: error });
    if (code !== undefined) throw new Error(`cannot read "${path}": ${code}`, { cause: error });
    throw error;
  }
  return size;
}

/**
 * Reads the rows of an import file. A CSV header without a login column, or naming a column
 * that can be neither a member column nor a profile field, stops the import before anything
 * is written. An error reading the file (it went away, a bad disk) ends the rows with it.
 */
export function readImportFile(path: string, format: FileFormat, mapping: ColumnMapping, options: { onlyMapped?: boolean } = {}): RowReader {
  const only = options.onlyMapped ?? false;
  // `-` is standard input: `member-api export | member-api import - …` moves an account.
  const source: Readable = path === '-' ? process.stdin : createReadStream(path);
  // Piped at once (the rows below are read lazily): an error opening or reading the file then
  // always has a listener, and reaches the reader as the end of its rows.
  const file = new PassThrough();
  pipe(source, file, () => {});
  let header: string[] | undefined;
  const rows = format === 'csv' ? csvRows(file, mapping, only, (h) => (header = h)) : jsonlRows(file, mapping, only);
  return {
    rows,
    header: () => header,
    close: () => {
      file.destroy();
      if (source !== process.stdin) source.destroy();
    },
  };
}

/** The longest CSV record or JSON Lines line read (a quote left open would otherwise take the rest of the file as one record). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** The reason a JSON Lines line over MAX_RECORD_BYTES is rejected with. */
export const LINE_TOO_LONG = 'line too long (over 1 MiB)';

/**
 * The lines of a stream of bytes, each with the bytes it takes (its newline's included); a
 * line over `max` bytes is not built: its text is undefined, the rest of it skipped as it comes.
 * A line ends at "\n"; a "\r" before it is taken away.
 */
async function* linesOf(input: AsyncIterable<Buffer | string>, max = MAX_RECORD_BYTES): AsyncIterable<{ text: string | undefined; bytes: number }> {
  let parts: Buffer[] = [];
  let length = 0;
  let tooLong = false;
  const line = () => {
    if (tooLong) return undefined;
    const text = Buffer.concat(parts).toString('utf8');
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  };
  for await (const data of input) {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, end < 0 ? chunk.length : end);
      length += piece.length;
      if (!tooLong && length > max) {
        tooLong = true;
        parts = [];
      }
      if (!tooLong) parts.push(piece);
      if (end < 0) break;
      yield { text: line(), bytes: length + 1 };
      parts = [];
      length = 0;
      tooLong = false;
      start = end + 1;
    }
  }
  if (length > 0) yield { text: line(), bytes: length };
}

async function* csvRows(file: Readable, mapping: ColumnMapping, onlyMapped: boolean, onHeader: (header: string[]) => void): AsyncIterable<ReadRow> {
  // A malformed record (a stray quote) is rejected with the parser's reason, and the import
  // goes on; so is a record with another number of fields than the header.
  const skipped: ReadRow[] = [];
  let offset = 0;
  const parser = parse({
    bom: true,
    info: true,
    raw: true,
    skip_empty_lines: true,
    relax_column_count: true,
    skip_records_with_error: true,
    max_record_size: MAX_RECORD_BYTES,
    on_skip: (error, raw) => {
      // Past the size, the parser cannot tell where the record ends: the file is read no further.
      if (error?.code === 'CSV_MAX_RECORD_SIZE')
        throw new ImportFileError(
          `the record at line ${Number(error.lines ?? 0)} is over 1 MiB (a quote left open?): the file is read no further; rows before it were handled`,
        );
      skipped.push({
        line: Number(error?.lines ?? 0),
        values: new Map(),
        original: raw ?? '',
        offset,
        unreadable: `unreadable CSV: ${error?.message ?? 'malformed record'}`,
      });
    },
  });
  // A read error ends the parser with it (pipe() alone would leave it unhandled).
  pipe(file, parser, () => {});
  let names: string[] | undefined;
  let original: string[] = [];
  for await (const { record: cells, info, raw } of parser as AsyncIterable<{ record: string[]; info: { lines: number; bytes: number }; raw: string }>) {
    offset = info.bytes;
    const record = cells.map(fromSpreadsheetCell);
    if (!names) {
      original = record;
      onHeader(original);
      names = record.map((name) => mapped(mapping, name, onlyMapped));
      const invalid = names.flatMap((name) => {
        const kind = name === '' ? undefined : classifyColumn(name);
        return kind?.kind === 'invalid' ? [kind.reason] : [];
      });
      if (invalid.length > 0) throw new ImportFileError(`${invalid.join('; ')} (rename it with --map "SOURCE=TARGET", or drop it with --map "SOURCE=")`);
      if (!names.includes('login')) {
        throw new ImportFileError(
          `the header has no login column, which every row needs (its columns: ${original.join(', ')}); name the one that holds logins with --map "SOURCE=login"`,
        );
      }
      continue;
    }
    // Records skipped before this one, once the header is known (the rejects file takes its columns from it).
    yield* skipped.splice(0);
    if (record.length !== names.length) {
      yield { line: info.lines, values: new Map(), original: raw, offset, unreadable: `expected ${names.length} fields, found ${record.length}` };
      continue;
    }
    const values = new Map<string, string>();
    names.forEach((name, index) => {
      if (name !== '') values.set(name, record[index] ?? '');
    });
    yield { line: info.lines, values, offset, original: Object.fromEntries(original.map((name, index) => [name, record[index] ?? ''])) };
  }
  yield* skipped.splice(0);
}

/** A JSON Lines line read as the object it must be; undefined when it is not JSON, or not an object. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

async function* jsonlRows(file: Readable, mapping: ColumnMapping, onlyMapped: boolean): AsyncIterable<ReadRow> {
  let line = 0;
  let offset = 0;
  // A read error ends the lines with it.
  for await (const { text, bytes } of linesOf(file)) {
    line++;
    offset += bytes;
    if (text === undefined) {
      yield { line, values: new Map(), original: '', offset, unreadable: LINE_TOO_LONG };
      continue;
    }
    if (text.trim() === '') continue;
    const object = jsonObject(text);
    if (object === undefined) {
      yield { line, values: new Map(), original: text, offset, unreadable: 'not a JSON object' };
      continue;
    }
    const values = new Map<string, string>();
    let unreadable: string | undefined;
    for (const [name, value] of Object.entries(object)) {
      const target = mapped(mapping, name, onlyMapped);
      if (target === '') continue;
      if (value === null) values.set(target, '');
      else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') values.set(target, String(value));
      else unreadable ??= `invalid ${name}: not a string`;
    }
    yield { line, values, original: text, offset, ...(unreadable ? { unreadable } : {}) };
  }
}

/** CSV cells, the header's included, as a spreadsheet shows them without running them. */
const SPREADSHEET_CAST = { string: toSpreadsheetCell };

/** How a refusal names a rejects file, and how to name another. */
export const REJECTS_FILE = { what: 'the rejects file', choose: 'another name with --rejects FILE' } as const;

/**
 * Where a run's rejects go: the file named with `--rejects`, which must not exist yet (it is
 * refused now, before the run writes anything); else `byDefault`, or, when an earlier run's
 * rejects are there (kept: a rerun does not read them), the next free `….1.csv`, `….2.csv`.
 */
export function rejectsPathFor(named: string | undefined, byDefault: string): string {
  if (named === undefined) return freePath(byDefault);
  refuseTakenPath(named, REJECTS_FILE.what, REJECTS_FILE.choose);
  return named;
}

/**
 * Writes rejected rows as they came, plus `_line` and `_reason`, in the input's format, into
 * a new file only its owner may read (the plain passwords of the rows are in it).
 */
export class RejectsFile {
  private readonly out: Writable;
  private csv: ReturnType<typeof stringify> | undefined;
  private count = 0;
  /** The first error of the file (a full disk: ENOSPC), heard from the start: it rejects write() and close(), never crashes the process. */
  private failure: Error | undefined;
  private readonly failed: Promise<never>;

  constructor(
    readonly path: string,
    private readonly format: FileFormat,
    private readonly header: () => readonly string[] | undefined,
  ) {
    this.out = privateWriteStream(path, REJECTS_FILE.what, REJECTS_FILE.choose);
    this.failed = new Promise<never>((_, reject) => {
      this.out.on('error', (error) => {
        this.failure ??= error;
        reject(this.failure);
      });
    });
    // Seen by the next write() or close(); none may come (the run stopped first).
    this.failed.catch(() => {});
  }

  async write(row: ReadRow, reason: string): Promise<void> {
    if (this.failure) throw this.failure;
    this.count++;
    let ok: boolean;
    if (this.format === 'jsonl') {
      const original = typeof row.original === 'string' ? row.original : JSON.stringify(row.original);
      let fields: Record<string, unknown>;
      try {
        fields = JSON.parse(original) as Record<string, unknown>;
        if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new Error();
      } catch {
        fields = { _text: original };
      }
      ok = this.out.write(`${JSON.stringify({ ...fields, _line: row.line, _reason: reason })}\n`);
    } else {
      if (!this.csv) {
        // `_text`: a record that could not be split into fields, as it was in the file.
        this.csv = stringify({ header: true, columns: [...(this.header() ?? []), '_line', '_reason', '_text'], cast: SPREADSHEET_CAST });
        this.csv.on('error', (error) => this.out.destroy(error));
        this.csv.pipe(this.out);
      }
      const fields = typeof row.original === 'string' ? { _text: row.original.replace(/\r?\n$/, '') } : row.original;
      ok = this.csv.write({ ...fields, _line: String(row.line), _reason: reason });
    }
    // A file that fails while full never drains: its error ends the wait.
    if (!ok) await Promise.race([new Promise((resolve) => (this.csv ?? this.out).once('drain', resolve)), this.failed]);
  }

  get written(): number {
    return this.count;
  }

  async close(): Promise<void> {
    if (this.failure) {
      this.csv?.destroy();
      throw this.failure;
    }
    const done = new Promise<void>((resolve) => this.out.once('finish', resolve));
    if (this.csv) this.csv.end();
    else this.out.end();
    await Promise.race([done, this.failed]);
  }
}

/** One member as an export row: every column a string (as the table of member fields writes it), "" when not set. */
function exportRow(member: PortableMember): Record<string, string> {
  const row: Record<string, string> = {};
  for (const field of MEMBER_FIELDS) {
    if (!field.file) continue;
    const value = valueOf(member, field);
    row[field.file.name] = value === null || value === undefined ? '' : field.type.encode(value);
  }
  for (const [name, value] of member.profile) row[profileColumnName(name)] = value;
  return row;
}

/** The export's columns: the member's (no plain password: there is none), then the profile fields. */
export function exportColumns(fieldNames: readonly string[]): string[] {
  return [...MEMBER_COLUMNS, ...fieldNames.map(profileColumnName)];
}

/**
 * Streams an export to `out` in the format; answers the number of members written. Every
 * column (`exportColumns`), or only `columns` (the console's: the columns its page shows).
 */
export async function writeExport(exported: MemberExport, format: FileFormat, out: Writable, columns?: readonly string[]): Promise<number> {
  let count = 0;
  const chosen = columns ?? exportColumns(exported.fieldNames);
  const only = columns && ((row: Record<string, string>) => Object.fromEntries(columns.map((name) => [name, row[name] ?? ''])));
  async function* rows() {
    for await (const chunk of exported.members) {
      for (const member of chunk) {
        count++;
        yield only ? only(exportRow(member)) : exportRow(member);
      }
    }
  }
  if (format === 'csv') {
    await pipeline(Readable.from(rows()), stringify({ header: true, columns: [...chosen], cast: SPREADSHEET_CAST }), out, {
      end: out !== process.stdout,
    });
  } else {
    async function* lines() {
      for await (const row of rows()) {
        // Only what the member has: an empty column is a value not set.
        yield `${JSON.stringify(Object.fromEntries(Object.entries(row).filter(([, value]) => value !== '')))}\n`;
      }
    }
    await pipeline(Readable.from(lines()), out, { end: out !== process.stdout });
  }
  return count;
}

/** Lines of a JSON Lines file whose keys make up its columns (a key first met later: see mapped()). */
const JSONL_SAMPLE_LINES = 100;

/**
 * The columns of an import file, as the file names them, before any mapping: a CSV file's
 * header; the keys of a JSON Lines file's first objects. Refuses (with the reason) a file
 * with nothing in it, or whose first line is not in its format.
 */
export async function readColumns(path: string, format: FileFormat): Promise<string[]> {
  const input = createReadStream(path);
  try {
    if (format === 'csv') {
      const parser = input.pipe(parse({ bom: true, to_line: 1, relax_column_count: true, max_record_size: MAX_RECORD_BYTES }));
      for await (const record of parser as AsyncIterable<string[]>) {
        const names = record.map(fromSpreadsheetCell);
        if (names.every((name) => name.trim() === '')) break;
        // Columns are mapped by their names: two of one name could not be told apart.
        const twice = names.find((name, index) => names.indexOf(name) !== index);
        if (twice !== undefined) throw new Error(`the header names the column “${twice}” twice: rename one`);
        return names;
      }
      throw new Error('the file is empty: a CSV file starts with its header (login,email,…)');
    }
    const names = new Set<string>();
    let read = 0;
    for await (const { text } of linesOf(input)) {
      if (text === undefined) {
        if (read === 0) throw new Error('the file is not JSON Lines: its first line is over 1 MiB');
        continue;
      }
      if (text.trim() === '') continue;
      const object = jsonObject(text);
      if (object === undefined) {
        if (read === 0) throw new Error('the file is not JSON Lines: its first line is not a JSON object');
        continue;
      }
      for (const name of Object.keys(object)) names.add(name);
      if (++read >= JSONL_SAMPLE_LINES) break;
    }
    if (read === 0) throw new Error('the file is empty: JSON Lines hold one member per line ({"login":…})');
    return [...names];
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'CSV_MAX_RECORD_SIZE')
      throw new Error('the header is over 1 MiB (a quote left open?)', { cause: error });
    if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('CSV_'))
      throw new Error(`the file is not CSV: ${error.message}`, { cause: error });
    throw error;
  } finally {
    input.destroy();
  }
}
