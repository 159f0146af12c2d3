/**
 * One row of an import file, decoded into a member: every column checked by the same rules
 * as the API's (login, e-mail, URLs, addresses, profile fields), dates read in the account's
 * time zone. A bad value rejects the row with a reason naming the column.
 */
import { DateTime } from 'luxon';
import { hashFormat } from '../auth/legacy-hashes.js';
import { passwordLength } from '../auth/passwords.js';
import { isIpAddress, isRedirectUrl } from '../common/validate.js';
import { isEmail, isLogin, isProfileFieldName, isProfileFieldValue, MAX_PROFILE_FIELDS } from '../members/fields.js';
import type { Billing, ExpiryAction, MemberStatus, RegType } from '../members/member.js';
import type { ImportedMember } from '../members/transfer.js';

/** The columns of the portable format, in the order the export writes them. */
export const MEMBER_COLUMNS = [
  'id', 'login', 'email', 'password', 'password_hash', 'status', 'reg_type', 'reg_time', 'reg_ip',
  'exp_time', 'exp_action', 'exp_logins', 'exp_logins_action', 'login_count', 'last_login_time', 'last_login_ip',
  'deleted_time', 'email_verified_time', 'url_ok', 'url_fail',
  'bill_pc', 'bill_id', 'bill_item', 'bill_cust', 'bill_subscr', 'bill_qty',
] as const;

export type MemberColumnName = (typeof MEMBER_COLUMNS)[number];

/** Other names files commonly use for a column (the list's field names, the API's setting names). */
export const COLUMN_ALIASES: Readonly<Record<string, MemberColumnName>> = {
  reg_date: 'reg_time',
  exp_date: 'exp_time',
  last_login_date: 'last_login_time',
  urlok: 'url_ok',
  urlfail: 'url_fail',
};

const MEMBER_COLUMN_SET = new Set<string>(MEMBER_COLUMNS);
const MAX_PASSWORD_LENGTH = 1024;
const MAX_BILLING_LENGTH = 1024;

/** A rejected row: the reason, naming the column. */
export class RowRejected extends Error {}

/**
 * Written before a profile field's name where the name alone would be read as a member
 * column (a profile field called `login_count`). It cannot begin a profile field name.
 */
export const PROFILE_PREFIX = 'profile:';

/** What a source column becomes: a member column, a profile field, or the reason it can be neither. */
export function classifyColumn(
  name: string,
): { kind: 'member'; column: MemberColumnName } | { kind: 'profile'; field: string } | { kind: 'invalid'; reason: string } {
  const prefixed = name.startsWith(PROFILE_PREFIX) ? name.slice(PROFILE_PREFIX.length) : undefined;
  if (prefixed !== undefined && isProfileFieldName(prefixed)) return { kind: 'profile', field: prefixed };
  const column = COLUMN_ALIASES[name] ?? name;
  if (prefixed === undefined && MEMBER_COLUMN_SET.has(column)) return { kind: 'member', column: column as MemberColumnName };
  if (prefixed === undefined && isProfileFieldName(name)) return { kind: 'profile', field: name };
  return { kind: 'invalid', reason: `column "${name}" is neither a member column nor a valid profile field name` };
}

/** The column a profile field is written under: its name, unless that names a member column. */
export function profileColumnName(field: string): string {
  return MEMBER_COLUMN_SET.has(field) || field in COLUMN_ALIASES ? `${PROFILE_PREFIX}${field}` : field;
}

const STATUS: Record<string, MemberStatus> = { a: 'A', active: 'A', s: 'S', suspended: 'S', d: 'D', deleted: 'D' };
const REG_TYPE: Record<string, RegType> = { f: 'F', free: 'F', p: 'P', paid: 'P', m: 'M', manual: 'M', a: 'A', api: 'A' };
const ACTION: Record<string, ExpiryAction> = { s: 'S', suspend: 'S', d: 'D', delete: 'D' };

function oneOf<T>(table: Record<string, T>, column: string, value: string): T {
  const found = table[value.toLowerCase()];
  if (found === undefined) throw new RowRejected(`invalid ${column}`);
  return found;
}

function wholeNumber(column: string, value: string, min: number): number {
  if (!/^\d{1,15}$/.test(value) || Number(value) < min) throw new RowRejected(`invalid ${column}`);
  return Number(value);
}

/**
 * An instant: ISO 8601 (with a zone or offset, or in the account's zone without one),
 * `YYYY-MM-DD hh:mm:ss` and `YYYY-MM-DD` as the list writes them (account's zone), or Unix
 * seconds.
 */
export function parseInstant(value: string, timeZone: string): number | undefined {
  if (/^\d{9,11}$/.test(value)) return Number(value) * 1000;
  let parsed = DateTime.fromISO(value, { zone: timeZone });
  if (!parsed.isValid) parsed = DateTime.fromSQL(value, { zone: timeZone });
  return parsed.isValid ? parsed.toMillis() : undefined;
}

function instant(column: string, value: string, timeZone: string): number {
  const parsed = parseInstant(value, timeZone);
  if (parsed === undefined) throw new RowRejected(`invalid ${column}`);
  return parsed;
}

function checked(column: string, value: string, ok: (value: string) => boolean): string {
  if (!ok(value)) throw new RowRejected(`invalid ${column}`);
  return value;
}

export interface DecodedRow {
  readonly member: ImportedMember;
  /** A plain password to hash, when the row gives one rather than a hash. */
  readonly password?: string;
}

/**
 * Decodes one row: `values` by source column name, already mapped; empty values count as
 * not given. Throws RowRejected.
 */
export function decodeImportRow(values: ReadonlyMap<string, string>, timeZone: string): DecodedRow {
  const given = new Map<MemberColumnName, string>();
  const profile = new Map<string, string>();
  for (const [name, value] of values) {
    if (value === '') continue;
    const kind = classifyColumn(name);
    if (kind.kind === 'invalid') throw new RowRejected(kind.reason);
    if (kind.kind === 'profile') {
      if (!isProfileFieldValue(value)) throw new RowRejected(`invalid ${name}`);
      profile.set(kind.field, value);
    } else {
      given.set(kind.column, value);
    }
  }
  if (profile.size > MAX_PROFILE_FIELDS) throw new RowRejected('too many profile fields');

  const login = given.get('login');
  if (login === undefined) throw new RowRejected('missing login');
  if (!isLogin(login)) throw new RowRejected('invalid login');
  const get = <T>(column: MemberColumnName, decode: (value: string) => T): T | undefined => {
    const value = given.get(column);
    return value === undefined ? undefined : decode(value);
  };

  const password = get('password', (v) => {
    if (passwordLength(v) > MAX_PASSWORD_LENGTH) throw new RowRejected('invalid password');
    return v;
  });
  const passwordHash = get('password_hash', (v) => checked('password_hash', v, (h) => hashFormat(h) !== undefined));
  if (password !== undefined && passwordHash !== undefined) throw new RowRejected('both password and password_hash given');

  const expAt = get('exp_time', (v) => instant('exp_time', v, timeZone));
  const expAction = get('exp_action', (v) => oneOf(ACTION, 'exp_action', v));
  if (expAction !== undefined && expAt === undefined) throw new RowRejected('exp_action given without exp_time');
  const loginsLeft = get('exp_logins', (v) => wholeNumber('exp_logins', v, 0));
  const loginsAction = get('exp_logins_action', (v) => oneOf(ACTION, 'exp_logins_action', v));
  if (loginsAction !== undefined && loginsLeft === undefined) throw new RowRejected('exp_logins_action given without exp_logins');

  const billing: Partial<Record<keyof Billing, string>> = {};
  for (const key of ['pc', 'id', 'item', 'cust', 'subscr', 'qty'] as const) {
    const value = get(`bill_${key}`, (v) => checked(`bill_${key}`, v, (b) => b.length <= MAX_BILLING_LENGTH));
    if (value !== undefined) billing[key] = value;
  }

  const member: ImportedMember = {
    login,
    profile,
    id: get('id', (v) => wholeNumber('id', v, 1)),
    email: get('email', (v) => checked('email', v, isEmail)),
    passwordHash,
    status: get('status', (v) => oneOf(STATUS, 'status', v)),
    regType: get('reg_type', (v) => oneOf(REG_TYPE, 'reg_type', v)),
    regAt: get('reg_time', (v) => instant('reg_time', v, timeZone)),
    regIp: get('reg_ip', (v) => checked('reg_ip', v, isIpAddress)),
    urlOk: get('url_ok', (v) => checked('url_ok', v, isRedirectUrl)),
    urlFail: get('url_fail', (v) => checked('url_fail', v, isRedirectUrl)),
    // Without an action, an expiration suspends (as most systems' "expired" means).
    timeExpiry: expAt === undefined ? undefined : { at: expAt, action: expAction ?? 'S' },
    loginExpiry: loginsLeft === undefined ? undefined : { left: loginsLeft, action: loginsAction ?? 'S' },
    loginCount: get('login_count', (v) => wholeNumber('login_count', v, 0)),
    lastLoginAt: get('last_login_time', (v) => instant('last_login_time', v, timeZone)),
    lastLoginIp: get('last_login_ip', (v) => checked('last_login_ip', v, isIpAddress)),
    deletedAt: get('deleted_time', (v) => instant('deleted_time', v, timeZone)),
    emailVerifiedAt: get('email_verified_time', (v) => instant('email_verified_time', v, timeZone)),
    billing: Object.keys(billing).length > 0 ? billing : undefined,
  };
  // Absent keys, not keys holding undefined: what a row leaves out is left alone.
  const defined = Object.fromEntries(Object.entries(member).filter(([, value]) => value !== undefined)) as ImportedMember;
  return password === undefined ? { member: defined } : { member: defined, password };
}
