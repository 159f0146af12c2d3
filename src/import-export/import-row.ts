/**
 * One row of an import file, decoded into a member: every column read by the table of member
 * fields (members/member-fields.ts), checked by the same rules as the API's (login, e-mail,
 * URLs, addresses, profile fields), dates read in the account's time zone. A bad value
 * rejects the row with a reason naming the column.
 */
import { excessiveCost } from '../auth/legacy-hashes.js';
import { isOverlongPassword, MAX_PASSWORD_LENGTH, passwordLength } from '../auth/passwords.js';
import { MAX_PROFILE_FIELDS } from '../members/fields.js';
import { isProfileFieldName, isProfileFieldValue, looksLikePassword } from '../members/profile-fields.js';
import { MEMBER_FIELDS, type MemberField } from '../members/member-fields.js';
import type { ImportedMember } from '../members/portable-member.js';

/** The plain password column: not a stored field (its hash is), but a file may give it. */
const PASSWORD_COLUMN = 'password';

/** The member columns of the portable format, in the order the export writes them. */
export const MEMBER_COLUMNS: readonly string[] = MEMBER_FIELDS.flatMap((field) => (field.file ? [field.file.name] : []));

/** Every name a file may give a member column under (its own, its aliases, `password`), and the field. */
const FIELD_BY_COLUMN = new Map<string, MemberField | typeof PASSWORD_COLUMN>([
  [PASSWORD_COLUMN, PASSWORD_COLUMN],
  ...MEMBER_FIELDS.flatMap((field) => (field.file ? [field.file.name, ...(field.file.aliases ?? [])].map((name) => [name, field] as const) : [])),
]);

/** A rejected row: the reason, naming the column. */
export class RowRejected extends Error {}

/**
 * Written before a profile field's name where the name alone would be read as a member
 * column (a profile field called `login_count`). It cannot begin a profile field name.
 */
export const PROFILE_PREFIX = 'profile:';

/** What a source column becomes: a member column, a profile field, or the reason it can be neither. */
export function classifyColumn(name: string): { kind: 'member' } | { kind: 'profile'; field: string } | { kind: 'invalid'; reason: string } {
  const prefixed = name.startsWith(PROFILE_PREFIX) ? name.slice(PROFILE_PREFIX.length) : undefined;
  if (looksLikePassword(prefixed ?? name) && !FIELD_BY_COLUMN.has(name)) {
    return {
      kind: 'invalid',
      reason: `column "${name}" looks like a password, and profile fields are kept in clear: a plain password goes in the password column`,
    };
  }
  if (prefixed !== undefined && isProfileFieldName(prefixed)) return { kind: 'profile', field: prefixed };
  if (prefixed === undefined && FIELD_BY_COLUMN.has(name)) return { kind: 'member' };
  if (prefixed === undefined && isProfileFieldName(name)) return { kind: 'profile', field: name };
  return { kind: 'invalid', reason: `column "${name}" is neither a member column nor a valid profile field name` };
}

/** The column a profile field is written under: its name, unless that names a member column. */
export function profileColumnName(field: string): string {
  return FIELD_BY_COLUMN.has(field) ? `${PROFILE_PREFIX}${field}` : field;
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
  const profile = new Map<string, string>();
  const member: Record<string, unknown> = {};
  const pairs: Record<string, Record<string, unknown>> = {};
  let password: string | undefined;
  for (const [name, value] of values) {
    if (value === '') continue;
    const kind = classifyColumn(name);
    if (kind.kind === 'invalid') throw new RowRejected(kind.reason);
    if (kind.kind === 'profile') {
      if (!isProfileFieldValue(value)) throw new RowRejected(`invalid ${name}`);
      profile.set(kind.field, value);
      continue;
    }
    const field = FIELD_BY_COLUMN.get(name)!;
    if (field === PASSWORD_COLUMN) {
      if (isOverlongPassword(value) || passwordLength(value) > MAX_PASSWORD_LENGTH) throw new RowRejected('invalid password');
      password = value;
      continue;
    }
    const decoded = field.type.decode(value, timeZone);
    const column = field.file!.name;
    if (decoded === undefined) throw new RowRejected(`invalid ${column}`);
    if (typeof field.place === 'string') member[field.place] = decoded;
    else (pairs[field.place[0]] ??= {})[field.place[1]] = decoded;
  }
  if (profile.size > MAX_PROFILE_FIELDS) throw new RowRejected('too many profile fields');
  if (member.login === undefined) throw new RowRejected('missing login');
  if (typeof member.passwordHash === 'string') {
    const excess = excessiveCost(member.passwordHash);
    if (excess !== undefined) throw new RowRejected(`password_hash asks too much of a login (${excess})`);
  }
  if (password !== undefined && member.passwordHash !== undefined) throw new RowRejected('both password and password_hash given');
  // An expiration is its instant (or count) with an action; without an action it suspends
  // (as most systems' "expired" means); an action alone is no expiration.
  const time = pairs.timeExpiry;
  if (time?.action !== undefined && time.at === undefined) throw new RowRejected('exp_action given without exp_time');
  if (time?.at !== undefined) member.timeExpiry = { at: time.at, action: time.action ?? 'S' };
  const logins = pairs.loginExpiry;
  if (logins?.action !== undefined && logins.left === undefined) throw new RowRejected('exp_logins_action given without exp_logins');
  if (logins?.left !== undefined) member.loginExpiry = { left: logins.left, action: logins.action ?? 'S' };
  const decoded = { ...member, profile } as unknown as ImportedMember;
  return password === undefined ? { member: decoded } : { member: decoded, password };
}

/**
 * What a column of a file mapped by an operator can be made: a member column (its own name),
 * the plain password, or a profile field (`profile:NAME`). Not the id: a mapped import numbers
 * its new members (`--keep-ids` is the command line's, for moving a store).
 */
export const IMPORT_TARGETS: readonly string[] = [
  ...MEMBER_COLUMNS.filter((name) => name === 'login' || name === 'email'),
  PASSWORD_COLUMN,
  ...MEMBER_COLUMNS.filter((name) => name !== 'id' && name !== 'login' && name !== 'email'),
];

/** Headings other systems give the login and the e-mail. */
const COMMON_HEADINGS: Readonly<Record<string, string>> = {
  e_mail: 'email',
  mail: 'email',
  email_address: 'email',
  username: 'login',
  user: 'login',
  user_name: 'login',
};

/**
 * The target a column is guessed to be from its heading: a member column (by its name or an
 * alias, any case, `E-mail` and `Username` too), else the profile field of its name, else ''
 * (left out: a name that can be neither, and the id).
 */
export function guessTarget(column: string, accountFields: readonly string[] = []): string {
  const loose = looseName(column);
  const field = FIELD_BY_COLUMN.get(column) ?? FIELD_BY_COLUMN.get(loose) ?? FIELD_BY_COLUMN.get(COMMON_HEADINGS[loose] ?? '');
  if (field) return field === PASSWORD_COLUMN ? PASSWORD_COLUMN : IMPORT_TARGETS.includes(field.file!.name) ? field.file!.name : '';
  // A field the account has already ("First Name" for its first_name, "Plan" for its plan).
  const existing = accountFields.find((name) => looseName(name) === loose);
  if (existing) return `${PROFILE_PREFIX}${existing}`;
  const kind = classifyColumn(column);
  return kind.kind === 'profile' ? `${PROFILE_PREFIX}${kind.field}` : '';
}

/** A heading or a field's name compared loosely: case, spaces and hyphens aside. */
function looseName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}
