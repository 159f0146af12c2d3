/**
 * The `record` parameter of /list/: a run of `{name}` tokens naming the fields to return, and
 * the renderer that turns a listed row into the JSON object for one member.
 */
import { createDateFormatter } from './date-format.js';
import { isProfileFieldName } from './profile-fields.js';
import { LIST_TOKENS, type ListToken } from './member-fields.js';

export type RecordField = { readonly kind: 'built-in'; readonly name: string; readonly token: ListToken } | { readonly kind: 'profile'; readonly name: string };

export const DEFAULT_RECORD = '{id}{login}{email}{status}';

const TEMPLATE = /^(?:\{[^{}]+\})+$/;

/** The fields a template names, in order, each once; undefined when it is not a valid template. */
export function parseRecordTemplate(template: string): RecordField[] | undefined {
  if (!TEMPLATE.test(template)) return undefined;
  const fields: RecordField[] = [];
  const seen = new Set<string>();
  for (const [, name] of template.matchAll(/\{([^{}]+)\}/g)) {
    if (seen.has(name!)) continue;
    seen.add(name!);
    const token = LIST_TOKENS.get(name!);
    if (token) fields.push({ kind: 'built-in', name: name!, token });
    else if (isProfileFieldName(name!)) fields.push({ kind: 'profile', name: name! });
    else return undefined;
  }
  return fields;
}

/**
 * One listed member as the store reads it: the columns of the record's built-in fields (as
 * the table of member fields names them), and its profile values in template order under
 * `pf0`, `pf1`, ….
 */
export type ListedRow = Readonly<Record<string, string | number | null | undefined>>;

/** The key under which the store puts the i-th profile field of the template. */
export function profileColumn(index: number): string {
  return `pf${index}`;
}

export function profileFieldsOf(fields: readonly RecordField[]): string[] {
  return fields.flatMap((f) => (f.kind === 'profile' ? [f.name] : []));
}

/**
 * A function from a listed row to the member's JSON object text. Every value is a string;
 * a date that is not set is "", a profile field the member lacks is "".
 */
export function createRecordRenderer(fields: readonly RecordField[], timeZone: string): (row: ListedRow) => string {
  const dates = createDateFormatter(timeZone);
  let profileIndex = 0;
  const parts = fields.map((field) => {
    const key = `${JSON.stringify(field.name)}:`;
    if (field.kind === 'profile') {
      const column = profileColumn(profileIndex++);
      return (row: ListedRow) => key + JSON.stringify(row[column] ?? '');
    }
    const { column } = field.token.field;
    if (field.token.format === 'when-present') {
      return (row: ListedRow) => {
        const value = row[column];
        return value === null || value === undefined ? '' : key + JSON.stringify(String(value));
      };
    }
    const text = valueText(field.token, dates);
    return (row: ListedRow) => key + JSON.stringify(text(row[column] ?? null));
  });
  return (row) => {
    let out = '';
    for (const part of parts) {
      const piece = part(row);
      if (piece !== '') out += out === '' ? piece : `,${piece}`;
    }
    return `{${out}}`;
  };
}

function valueText(token: ListToken, dates: ReturnType<typeof createDateFormatter>): (value: string | number | null) => string {
  switch (token.format) {
    case 'name': {
      const type = token.field.type as { name?: (code: string) => string };
      return (v) => (v === null ? '' : (type.name?.(String(v)) ?? String(v)));
    }
    case 'date':
      return (v) => (v === null ? '' : dates.date(Number(v)));
    case 'date-time':
      return (v) => (v === null ? '' : dates.dateTime(Number(v)));
    default:
      return (v) => (v === null ? '' : String(v));
  }
}
