/**
 * Members as rows, and rows as members: the one mapping, derived from the table of member
 * fields (members/member-fields.ts). Nothing else in the store names a member's columns
 * one by one.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { foldKey, type Member } from '../members/member.js';
import { MEMBER_FIELDS, valueOf, type MemberField } from '../members/member-fields.js';
import { IMPORT_DEFAULTS, type ImportedMember } from '../members/portable-member.js';
import type { MemberTable } from './schema.js';

export type MemberRow = Selectable<MemberTable>;
type Row = Record<string, unknown>;

/** The one row-to-domain conversion for members. */
export function toMember(row: MemberRow): Member {
  const member: Record<string, unknown> = { accountId: row.account_id };
  const pairs: Record<string, Record<string, unknown>> = { timeExpiry: {}, loginExpiry: {} };
  for (const field of MEMBER_FIELDS) {
    const value = (row as Row)[field.column] ?? null;
    if (typeof field.place === 'string') member[field.place] = value;
    else pairs[field.place[0]]![field.place[1]] = value;
  }
  // A pair is set when all of its parts are.
  for (const [name, parts] of Object.entries(pairs)) member[name] = Object.values(parts).every((part) => part !== null) ? parts : null;
  return member as unknown as Member;
}

/**
 * The columns for the values `member` holds (those it leaves out are left out), with the
 * folded copies kept beside login and e-mail.
 */
export function columnsOf(member: Partial<Member>): Row {
  const columns: Row = {};
  for (const field of MEMBER_FIELDS) {
    const value = valueOf(member, field);
    if (value === undefined) continue;
    columns[field.column] = value;
    if (field.folded) columns[field.folded] = typeof value === 'string' ? foldKey(value) : value;
  }
  return columns;
}

/** Every column of the table (but the id) as null: what a new row does not give. */
const NULLS: Readonly<Row> = Object.freeze(Object.fromEntries(MEMBER_FIELDS.filter((f: MemberField) => f.column !== 'id').map((f) => [f.column, null])));

/**
 * The row of a new member, whichever way it comes (the API, an import): what it does not
 * give takes the defaults of an import (or null); `now` stamps the row (and a deletion
 * without a time).
 */
export function memberRow(accountId: number, member: ImportedMember, now: number): Insertable<MemberTable> {
  const status = member.status ?? IMPORT_DEFAULTS.status;
  return {
    ...NULLS,
    ...columnsOf(member),
    account_id: accountId,
    status,
    reg_type: member.regType ?? IMPORT_DEFAULTS.regType,
    reg_at: member.regAt ?? now,
    login_count: member.loginCount ?? 0,
    deleted_at: status === 'D' ? (member.deletedAt ?? now) : null,
    updated_at: now,
  } as Insertable<MemberTable>;
}

/** The columns an imported row changes on a member that exists: only what it gives. */
export function changedColumns(member: ImportedMember, now: number): Updateable<MemberTable> {
  const { id, ...given } = member;
  const columns = columnsOf(given);
  delete columns.id;
  // A status given decides the deletion time: kept (or now) for Deleted, cleared otherwise.
  if (member.status !== undefined) columns.deleted_at = member.status === 'D' ? (member.deletedAt ?? now) : null;
  return { ...columns, updated_at: now } as Updateable<MemberTable>;
}

/** Member columns that hold numbers; the others hold text. */
export const NUMERIC_COLUMNS: ReadonlySet<string> = new Set([...MEMBER_FIELDS.filter((f) => f.numeric).map((f) => f.column), 'updated_at']);
