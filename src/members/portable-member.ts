/**
 * Members as they move in and out of the service whole (import, export): every stored
 * attribute, the password as its hash, and the profile.
 */
import type { EventOrigin } from '../events/event.js';
import type { Member } from './member.js';

/** A member as exported: all of it. */
export interface PortableMember extends Omit<Member, 'accountId'> {
  readonly profile: ReadonlyMap<string, string>;
}

/**
 * An imported row: the login that finds the member, and what the row gives. What it leaves
 * out stays as it is on a member that exists, and takes its default on a new one. Profile
 * fields are set one by one; fields the row does not name are kept.
 */
export type ImportedMember = { readonly login: string; readonly profile: ReadonlyMap<string, string> } & Partial<Omit<PortableMember, 'login' | 'profile'>>;

/** The defaults of a new member that a row does not give. */
export const IMPORT_DEFAULTS = { status: 'A', regType: 'M' } as const satisfies Partial<ImportedMember>;

export interface ImportWrite {
  /** New members (email and passwordHash present). */
  readonly inserts: readonly ImportedMember[];
  /** Members that exist, by id, and what to change. */
  readonly updates: ReadonlyArray<{ readonly id: number; readonly member: ImportedMember }>;
  /** When the imported members' registration time is not given. */
  readonly now: number;
  /** Who writes it: the events of the batch (member.created, member.updated…) say so. */
  readonly origin: EventOrigin;
  /** A member Deleted already keeps its deletion time, whatever the batch gives (see ImportOptions). */
  readonly keepDeletionTimes?: boolean;
}

export interface MemberExport {
  /** Every profile field name any member of the account has, sorted. */
  readonly fieldNames: readonly string[];
  /** The members in id order, in chunks, from one read snapshot. */
  readonly members: AsyncIterable<PortableMember[]>;
}
