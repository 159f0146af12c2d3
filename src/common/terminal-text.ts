/**
 * What the command line writes for people: members', upstreams' and webhook receivers' data,
 * shown and never obeyed. A terminal acts on the control characters it is given (an escape
 * sequence retitles it or erases a line, a carriage return or a C1 CSI fakes a line), and the
 * bidi overrides reorder what it shows; every writer of the command line goes through here.
 */

/**
 * C0 (a newline in a value included: only the program's own newlines end lines), DEL, C1
 * (U+009B is a CSI on some terminals), and the bidi embeddings, overrides and isolates.
 */
const TERMINAL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const hex = (char: string, digits: number) => char.charCodeAt(0).toString(16).padStart(digits, '0');

/** Text with every character a terminal would act on written as a visible escape: `\x1b`, `\x0a`, `\u202e`. */
export function terminalText(text: string): string {
  return text.replace(TERMINAL_CONTROLS, (char) => (char <= '\u00ff' ? `\\x${hex(char, 2)}` : `\\u${hex(char, 4)}`));
}

/**
 * JSON for a terminal. JSON.stringify escapes C0 but leaves DEL, C1 and the bidi controls as
 * they are; they become `\uXXXX` here, which is still JSON, and parses back to the same value.
 */
export function terminalJson(value: unknown): string {
  return escapeJsonText(JSON.stringify(value));
}

/** What JSON.stringify leaves raw that a terminal acts on: DEL, C1, the bidi controls. */
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (one document, or lines of them: its own newlines are kept) with DEL, C1 and the
 * bidi controls as `\uXXXX`: the same values, safe to show on a terminal.
 */
export function escapeJsonText(json: string): string {
  RAW_IN_JSON.lastIndex = 0;
  return RAW_IN_JSON.test(json) ? json.replace(RAW_IN_JSON, (char) => `\\u${hex(char, 4)}`) : json;
}

/** Writes lines, each made safe by terminalText; the newlines between them are the program's own. */
export function writeLines(stream: NodeJS.WritableStream, lines: readonly string[]): void {
  stream.write(lines.map((line) => `${terminalText(line)}\n`).join(''));
}

/** Writes one value as a line of JSON, made safe by terminalJson. */
export function writeJson(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${terminalJson(value)}\n`);
}
