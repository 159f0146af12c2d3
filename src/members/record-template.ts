/**
 * The `record` parameter of /list/: a run of `{name}` tokens naming the fields to return, and
 * the renderer that turns a listed row into the JSON object for one member.
 */
import { createDateFormatter } from './date-format.js';
import { isProfileFieldName, LIST_FIELDS } from './fields.js';

export type BuiltInField = (typeof LIST_FIELDS)[number];

export type RecordField = { readonly kind: 'built-in'; readonly name: BuiltInField } | { readonly kind: 'profile'; readonly name: string };

export const DEFAULT_RECORD = '{id}{login}{email}{status}';

/** Member columns the list can read; each built-in field is rendered from one of them. */
export type MemberColumn =
  | 'id' | 'login' | 'email' | 'status' | 'reg_type' | 'reg_at' | 'exp_time_at' | 'last_login_at'
  | 'bill_pc' | 'bill_id' | 'bill_item' | 'bill_cust' | 'bill_subscr' | 'bill_qty';

const COLUMN_OF: Record<BuiltInField, MemberColumn> = {
  id: 'id',
  login: 'login',
  email: 'email',
  status: 'status',
  reg_date: 'reg_at',
  reg_time: 'reg_at',
  reg_type: 'reg_type',
  exp_date: 'exp_time_at',
  exp_time: 'exp_time_at',
  last_login_date: 'last_login_at',
  last_login_time: 'last_login_at',
  bill_pc: 'bill_pc',
  bill_id: 'bill_id',
  bill_item: 'bill_item',
  bill_cust: 'bill_cust',
  bill_subscr: 'bill_subscr',
  bill_qty: 'bill_qty',
};

/** Paid-member fields that appear only on members that have them (seed 2.1). */
const ONLY_WHEN_PRESENT = new Set<BuiltInField>(['bill_item', 'bill_cust', 'bill_subscr', 'bill_qty']);

const BUILT_IN = new Set<string>(LIST_FIELDS);
const TEMPLATE = /^(?:\{[^{}]+\})+$/;

/** The fields a template names, in order, each once; undefined when it is not a valid template. */
export function parseRecordTemplate(template: string): RecordField[] | undefined {
  if (!TEMPLATE.test(template)) return undefined;
  const fields: RecordField[] = [];
  const seen = new Set<string>();
  for (const [, name] of template.matchAll(/\{([^{}]+)\}/g)) {
    if (seen.has(name!)) continue;
    seen.add(name!);
    if (BUILT_IN.has(name!)) fields.push({ kind: 'built-in', name: name as BuiltInField });
    else if (isProfileFieldName(name!)) fields.push({ kind: 'profile', name: name! });
    else return undefined;
  }
  return fields;
}

/**
 * One listed member as the store reads it: the columns the template needs, and its profile
 * values in template order under `pf0`, `pf1`, ….
 */
export type ListedRow = Readonly<Record<string, string | number | null | undefined>>;

/** The key under which the store puts the i-th profile field of the template. */
export function profileColumn(index: number): string {
  return `pf${index}`;
}

export function columnsFor(fields: readonly RecordField[]): MemberColumn[] {
  return [...new Set(fields.flatMap((f) => (f.kind === 'built-in' ? [COLUMN_OF[f.name]] : [])))];
}

export function profileFieldsOf(fields: readonly RecordField[]): string[] {
  return fields.flatMap((f) => (f.kind === 'profile' ? [f.name] : []));
}

const STATUS_NAMES: Record<string, string> = { A: 'Active', S: 'Suspended', D: 'Deleted' };
const REG_TYPE_NAMES: Record<string, string> = { F: 'Free', P: 'Paid', A: 'API', M: 'Manual' };

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
    const column = COLUMN_OF[field.name];
    const text = valueText(field.name, dates);
    if (ONLY_WHEN_PRESENT.has(field.name)) {
      return (row: ListedRow) => {
        const value = row[column];
        return value === null || value === undefined ? '' : key + JSON.stringify(String(value));
      };
    }
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

function valueText(field: BuiltInField, dates: ReturnType<typeof createDateFormatter>): (value: string | number | null) => string {
  switch (field) {
    case 'status':
      return (v) => STATUS_NAMES[String(v)] ?? '';
    case 'reg_type':
      return (v) => REG_TYPE_NAMES[String(v)] ?? '';
    case 'reg_date':
    case 'exp_date':
    case 'last_login_date':
      return (v) => (v === null ? '' : dates.date(Number(v)));
    case 'reg_time':
    case 'exp_time':
    case 'last_login_time':
      return (v) => (v === null ? '' : dates.dateTime(Number(v)));
    default:
      return (v) => (v === null ? '' : String(v));
  }
}
