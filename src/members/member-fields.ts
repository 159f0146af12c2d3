/**
 * The one table of a member's built-in fields. Each stored column is declared once: where it
 * lives in a Member, what kind of value it holds (how it is checked, read from a file, written
 * to one), the tokens a /list/ record names it by and how they render, its column in import
 * and export files, and the /create/ and /update/ parameters that set it. The row mapping
 * (store), the list projection and rendering, the import decoding and the export encoding are
 * all derived from it, and so are the names the API reserves.
 *
 * Adding a plain built-in field (a text, an instant, a count) is one entry here, a migration
 * that adds the column, and tests (docs/architecture.md walks through it). Setting it through the
 * API is a decoder in the route, since each parameter has its own wire rules.
 */
import { DateTime } from 'luxon';
import { isIpAddress, redirectUrl } from '../common/validate.js';
import { hashFormat } from '../auth/legacy-hashes.js';
import { isEmail, isLogin } from './fields.js';

export type MemberStatus = 'A' | 'S' | 'D';
/** F free, P paid, A created through the API, M manual. */
export type RegType = 'F' | 'P' | 'A' | 'M';
/** What an expiration does when it falls due: suspend or delete. */
export type ExpiryAction = 'S' | 'D';

export interface TimeExpiry {
  readonly action: ExpiryAction;
  /** The instant (ms) at which the member expires. */
  readonly at: number;
}

export interface LoginExpiry {
  readonly action: ExpiryAction;
  /** Successful logins still allowed; the login that brings this to 0 succeeds. */
  readonly left: number;
}

/** How a value is written in files and read back from them. */
export interface FieldType<V> {
  /** The value as a file holds it (and as the checks see it). */
  encode(value: V): string;
  /** The value a file's text stands for; undefined when the text is not one. */
  decode(text: string, timeZone: string): V | undefined;
}

/** How a /list/ token renders a value: every value is a string. */
export type ListFormat =
  /** As it is (`""` when not set). */
  | 'text'
  /** `YYYY-MM-DD` in the account's time zone. */
  | 'date'
  /** `YYYY-MM-DD hh:mm:ss` in the account's time zone. */
  | 'date-time'
  /** Its name (`Active`, `Paid`…). */
  | 'name'
  /** As it is, and the key only on members that have a value (seed 2.1: bill_item and others). */
  | 'when-present';

/** Members' columns that hold numbers (instants in milliseconds, counts); the others hold text. */
export type NumericColumn = 'id' | 'reg_at' | 'exp_time_at' | 'exp_logins_left' | 'login_count' | 'last_login_at' | 'deleted_at' | 'email_verified_at';

/** A field that is one property of a Member, or one part of a pair (an expiration's action and instant). */
export type FieldPlace = string | readonly ['timeExpiry', 'action' | 'at'] | readonly ['loginExpiry', 'action' | 'left'];

export interface MemberField {
  /** The row column. */
  readonly column: string;
  readonly place: FieldPlace;
  // The variance of a table of mixed types: each entry's type matches its place.
  readonly type: FieldType<any>;
  readonly numeric?: boolean;
  /** Every member has one (the others may be null). */
  readonly required?: boolean;
  /** A copy folded for case-insensitive comparison, kept beside it (login_key, email_key). */
  readonly folded?: string;
  /** The tokens a /list/ record names it by, and how each renders. */
  readonly list?: Readonly<Record<string, ListFormat>>;
  /** Its column in import and export files, and other names files use for it. */
  readonly file?: { readonly name: string; readonly aliases?: readonly string[] };
  /** The parameters of /create/ and /update/ that set it (their routes decode them). */
  readonly create?: readonly string[];
  readonly update?: readonly string[];
}

// ---- Kinds of value ----------------------------------------------------------------------

const text = (check: (value: string) => boolean): FieldType<string> => ({
  encode: (value) => value,
  decode: (value) => (check(value) ? value : undefined),
});

/** A URL to send a member's browser to: kept header-safe (redirectUrl). */
const redirect: FieldType<string> = { encode: (value) => value, decode: redirectUrl };

/** At most 1024 characters: what billing systems hand over (ids, items, quantities). */
const billingText = text((value) => value.length <= 1024);

/** A whole number, from `min`. */
const count = (min: number): FieldType<number> => ({
  encode: (value) => String(value),
  decode: (value) => (/^\d{1,15}$/.test(value) && Number(value) >= min ? Number(value) : undefined),
});

/**
 * An instant, written in files as ISO 8601 in UTC to the millisecond; read as ISO 8601 (with
 * a zone or offset, or in the account's zone without one), as the list writes it
 * (`YYYY-MM-DD hh:mm:ss`, `YYYY-MM-DD`, in the account's zone), or as Unix seconds.
 */
const instant: FieldType<number> = {
  encode: (value) => new Date(value).toISOString(),
  decode: (value, timeZone) => parseInstant(value, timeZone),
};

/** One of a few codes, each with a name; files may give either, in any case. */
function codes<C extends string>(names: Record<C, string>, aliases: Record<string, C> = {}): FieldType<C> & { name(code: string): string } {
  const byText = new Map<string, C>();
  for (const [code, name] of Object.entries(names) as Array<[C, string]>) {
    byText.set(code.toLowerCase(), code);
    byText.set(name.toLowerCase(), code);
  }
  for (const [alias, code] of Object.entries(aliases)) byText.set(alias, code);
  return {
    encode: (value) => value,
    decode: (value) => byText.get(value.toLowerCase()),
    name: (code) => names[code as C] ?? '',
  };
}

export const STATUS = codes<MemberStatus>({ A: 'Active', S: 'Suspended', D: 'Deleted' });
export const REG_TYPE = codes<RegType>({ F: 'Free', P: 'Paid', A: 'API', M: 'Manual' });
const ACTION = codes<ExpiryAction>({ S: 'Suspend', D: 'Delete' });

// ---- The table ---------------------------------------------------------------------------

const FIELDS = [
  { column: 'id', required: true, place: 'id', type: count(1), numeric: true, list: { id: 'text' }, file: { name: 'id' } },
  {
    column: 'login',
    required: true,
    place: 'login',
    type: text(isLogin),
    folded: 'login_key',
    list: { login: 'text' },
    file: { name: 'login' },
    create: ['_login'],
    update: ['login'],
  },
  {
    column: 'email',
    required: true,
    place: 'email',
    type: text(isEmail),
    folded: 'email_key',
    list: { email: 'text' },
    file: { name: 'email' },
    create: ['_email'],
    update: ['email'],
  },
  {
    column: 'password_hash',
    required: true,
    place: 'passwordHash',
    type: text((hash) => hashFormat(hash) !== undefined),
    file: { name: 'password_hash' },
    create: ['_password'],
    update: ['password'],
  },
  { column: 'status', required: true, place: 'status', type: STATUS, list: { status: 'name' }, file: { name: 'status' }, update: ['status'] },
  { column: 'reg_type', required: true, place: 'regType', type: REG_TYPE, list: { reg_type: 'name' }, file: { name: 'reg_type' } },
  {
    column: 'reg_at',
    required: true,
    place: 'regAt',
    type: instant,
    numeric: true,
    list: { reg_date: 'date', reg_time: 'date-time' },
    file: { name: 'reg_time', aliases: ['reg_date'] },
  },
  { column: 'reg_ip', place: 'regIp', type: text(isIpAddress), file: { name: 'reg_ip' }, create: ['IP'] },
  {
    column: 'exp_time_at',
    place: ['timeExpiry', 'at'],
    type: instant,
    numeric: true,
    list: { exp_date: 'date', exp_time: 'date-time' },
    file: { name: 'exp_time', aliases: ['exp_date'] },
    create: ['set_exp_time', 'set_exp_time_type', 'set_exptime', 'set_exptimet'],
    update: ['exp_time', 'exp_time_type'],
  },
  {
    column: 'exp_time_mode',
    place: ['timeExpiry', 'action'],
    type: ACTION,
    file: { name: 'exp_action' },
    create: ['set_is_exp_time', 'set_isexptime'],
    update: ['is_exp_time'],
  },
  {
    column: 'exp_logins_left',
    place: ['loginExpiry', 'left'],
    type: count(0),
    numeric: true,
    file: { name: 'exp_logins' },
    create: ['set_exp_logins'],
    update: ['exp_logins'],
  },
  {
    column: 'exp_logins_mode',
    place: ['loginExpiry', 'action'],
    type: ACTION,
    file: { name: 'exp_logins_action' },
    create: ['set_is_exp_logins'],
    update: ['is_exp_logins'],
  },
  { column: 'login_count', required: true, place: 'loginCount', type: count(0), numeric: true, file: { name: 'login_count' } },
  {
    column: 'last_login_at',
    place: 'lastLoginAt',
    type: instant,
    numeric: true,
    list: { last_login_date: 'date', last_login_time: 'date-time' },
    file: { name: 'last_login_time', aliases: ['last_login_date'] },
  },
  { column: 'last_login_ip', place: 'lastLoginIp', type: text(isIpAddress), file: { name: 'last_login_ip' } },
  { column: 'deleted_at', place: 'deletedAt', type: instant, numeric: true, file: { name: 'deleted_time' } },
  { column: 'email_verified_at', place: 'emailVerifiedAt', type: instant, numeric: true, file: { name: 'email_verified_time' } },
  { column: 'url_ok', place: 'urlOk', type: redirect, file: { name: 'url_ok', aliases: ['urlok'] }, create: ['set_urlok'], update: ['urlok'] },
  { column: 'url_fail', place: 'urlFail', type: redirect, file: { name: 'url_fail', aliases: ['urlfail'] }, create: ['set_urlwrong'], update: ['urlfail'] },
  { column: 'bill_pc', place: 'billPc', type: billingText, list: { bill_pc: 'text' }, file: { name: 'bill_pc' } },
  { column: 'bill_id', place: 'billId', type: billingText, list: { bill_id: 'text' }, file: { name: 'bill_id' } },
  { column: 'bill_item', place: 'billItem', type: billingText, list: { bill_item: 'when-present' }, file: { name: 'bill_item' } },
  { column: 'bill_cust', place: 'billCust', type: billingText, list: { bill_cust: 'when-present' }, file: { name: 'bill_cust' } },
  { column: 'bill_subscr', place: 'billSubscr', type: billingText, list: { bill_subscr: 'when-present' }, file: { name: 'bill_subscr' } },
  { column: 'bill_qty', place: 'billQty', type: billingText, list: { bill_qty: 'when-present' }, file: { name: 'bill_qty' } },
] as const satisfies readonly MemberField[];

export const MEMBER_FIELDS: readonly MemberField[] = FIELDS;

type Field = (typeof FIELDS)[number];
type ValueOf<F> = F extends { readonly type: FieldType<infer V> } ? V : never;
type Stored<F> = F extends { readonly required: true } ? ValueOf<F> : ValueOf<F> | null;

/** The fields a member holds one property each (the expirations are pairs: see Member), typed from the table. */
export type MemberFieldValues = { readonly [F in Field as F['place'] extends string ? F['place'] : never]: Stored<F> };

/** The row columns of the table's fields, typed from it (the store's schema adds the rest). */
export type MemberFieldColumns = { [F in Field as F['column']]: Stored<F> };

// ---- What is derived from it -------------------------------------------------------------

/** A /list/ token: the column it renders, and how. */
export interface ListToken {
  readonly field: MemberField;
  readonly format: ListFormat;
}

/** Every built-in /list/ token (the seed's table, section 2.1), in the table's order. */
export const LIST_TOKENS: ReadonlyMap<string, ListToken> = new Map(
  MEMBER_FIELDS.flatMap((field) => Object.entries(field.list ?? {}).map(([token, format]) => [token, { field, format }] as const)),
);

/** The /update/ parameters that set built-in fields. */
export const UPDATE_PARAMETERS: readonly string[] = MEMBER_FIELDS.flatMap((field) => field.update ?? []);

/** The value of a field in a member (a pair's part when the pair is set; undefined when not). */
export function valueOf(
  member: Partial<MemberFieldValues & { readonly timeExpiry: TimeExpiry | null; readonly loginExpiry: LoginExpiry | null }>,
  field: MemberField,
): unknown {
  if (typeof field.place === 'string') return (member as Record<string, unknown>)[field.place];
  const [pair, part] = field.place;
  const value = member[pair] as Record<string, unknown> | null | undefined;
  return value === undefined ? undefined : value === null ? null : value[part];
}

/**
 * An instant from a file or a list: ISO 8601, `YYYY-MM-DD hh:mm:ss` or `YYYY-MM-DD` in the
 * account's zone, or Unix seconds; undefined when it is none of these.
 */
export function parseInstant(value: string, timeZone: string): number | undefined {
  if (/^\d{9,11}$/.test(value)) return Number(value) * 1000;
  if (timeZone === 'UTC') {
    const fast = listedUtcInstant(value);
    if (fast !== undefined) return fast;
  }
  let parsed = DateTime.fromISO(value, { zone: timeZone });
  if (!parsed.isValid) parsed = DateTime.fromSQL(value, { zone: timeZone });
  return parsed.isValid ? parsed.toMillis() : undefined;
}

const LISTED = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * `YYYY-MM-DD[ hh:mm:ss]` in UTC, as a list writes it, read without luxon (a migration reads
 * three per member); undefined for anything else, or a date that does not exist, which luxon
 * then reads or refuses.
 */
function listedUtcInstant(value: string): number | undefined {
  const match = LISTED.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const instant = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(instant);
  const exact =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return exact ? instant : undefined;
}
