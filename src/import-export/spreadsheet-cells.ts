/**
 * CSV cells that a spreadsheet shows as text, never runs (OWASP's "CSV injection"): a cell
 * that begins with `=`, `+`, `-`, `@`, a tab or a carriage return (or the full-width
 * `＝ ＋ － ＠`, which Apple Numbers reads as them) is a formula to Excel, LibreOffice and
 * Sheets, so a login `@SUM(1+1)*cmd` or a profile value `=HYPERLINK(…)` would run on the
 * machine of whoever opens the export. Such a cell is written with a `'` before it, which a
 * spreadsheet takes as "text" and hides.
 *
 * The import reads our own export back exactly, so the escape must be undone without
 * guessing: a value that already begins with quotes before one of those characters (`'=1`)
 * gets one quote more as well, and reading takes one quote away from any cell that begins
 * with quotes before one of them. Written then read, every value comes back as it was (a
 * bijection). csv-stringify's `escape_formulas` adds the quote but leaves `'=1` alone, which
 * would then read back as `=1`.
 */

/** Needs a quote: any run of quotes (none included) before a formula's first character. */
const FORMULA_START = /^'*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
/** Was given one: at least one quote before a formula's first character. */
const ESCAPED_FORMULA_START = /^'+[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** The cell a value is written as in a CSV file. */
export function toSpreadsheetCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** The value a CSV cell holds (undoes toSpreadsheetCell). */
export function fromSpreadsheetCell(cell: string): string {
  return ESCAPED_FORMULA_START.test(cell) ? cell.slice(1) : cell;
}
