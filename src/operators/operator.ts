import type { LockoutPolicy } from '../accounts/account.js';
import type { OperatorMailKind } from '../mail/mail.js';

/**
 * Operators: the people who run a membership site, signed in to the console. Each may see
 * some accounts, with a role on each: viewers read, editors also change members, owners also
 * change settings, keys, mails, webhooks and operators. Above them, the server's
 * administrators (`operator administrator EMAIL`) are owners of every account, and may also
 * create accounts and set an account's page layout (its HTML is served on this server's origin).
 */
export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Whether `role` may do what `needed` may. */
export function roleAllows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/**
 * The operator's role on the account (its name compared case-insensitively, as everywhere:
 * `/admin/accounts/Demo` is demo's); an administrator is an owner of every account.
 */
export function roleOn(operator: Operator, accountName: string): Role | undefined {
  if (operator.administrator) return 'owner';
  return operator.accounts.find((grant) => grant.account.toLowerCase() === accountName.toLowerCase())?.role;
}

export interface Operator {
  readonly id: number;
  readonly email: string;
  readonly hasPassword: boolean;
  /** Whether it signs in with a second step (a TOTP code, or a recovery code). */
  readonly twoStep: boolean;
  /** One of the server's administrators: an owner of every account, and more. */
  readonly administrator: boolean;
  readonly createdAt: number;
  /** The accounts it may see, by account id, with its role on each. */
  readonly accounts: ReadonlyArray<{ readonly accountId: number; readonly account: string; readonly role: Role }>;
}

/** The mail that carries a set-up link, sent through an account's mail settings. */
export interface OperatorLinkMail {
  readonly accountId: number;
  readonly kind: OperatorMailKind;
  readonly vars: Record<string, string>;
  readonly now: number;
}

export interface OperatorCredentials {
  readonly id: number;
  readonly passwordHash: string | null;
  readonly failures: number;
  readonly lastFailureAt: number;
  readonly lockedUntil: number;
}

export interface OperatorSession {
  readonly operatorId: number;
  readonly createdAt: number;
  readonly seenAt: number;
  /** The password was right; the second step is still awaited. */
  readonly pending: boolean;
}

/** An operator's second factor as stored: the secret (once enrolled), the one being enrolled, and the last step a code was taken at. */
export interface OperatorTwoStep {
  readonly secret: string | null;
  readonly pending: string | null;
  readonly step: number;
}

/** A mail to an operator, queued with the change that asks for it. */
export interface OperatorMail {
  readonly kind: OperatorMailKind;
  readonly vars: Record<string, string>;
}

/** An invitation from the console: what the store does for a new operator, and for one that exists. */
export interface OperatorInvite {
  readonly email: string;
  readonly accountId: number;
  readonly role: Role;
  readonly now: number;
  /** A new operator's set-up link (kept only when the operator is made now). */
  readonly link: { readonly digest: string; readonly expiresAt: number };
  /** Queued when the operator is made now (its link in it). */
  readonly toNew?: OperatorMail;
  /** Queued when the operator existed and the account is new to it. */
  readonly toExisting?: OperatorMail;
}

/** What the operators need from storage. Links and sessions are kept as digests of their tokens. */
export interface OperatorStore {
  /** The operator with this e-mail (folded), made when missing, with `role` on the account. */
  grant(email: string, accountId: number, role: Role, now: number): Promise<number>;
  /** An invitation, in one transaction (OperatorInvite); whether the operator was made now, and whether the account is new to it. */
  invite(invite: OperatorInvite): Promise<{ id: number; isNew: boolean; newToAccount: boolean }>;
  byEmail(email: string): Promise<Operator | undefined>;
  /** Makes the operator of this address (made when new, when `on`) one of the server's administrators, or no longer; its id, or undefined when there is none to change. */
  setAdministrator(email: string, on: boolean, now: number): Promise<number | undefined>;
  byId(id: number): Promise<Operator | undefined>;
  list(): Promise<Operator[]>;
  /** Removes the operator, or only its access to one account; either ends every set-up link it has. */
  remove(id: number, accountId?: number): Promise<void>;
  credentials(email: string): Promise<OperatorCredentials | undefined>;
  /**
   * Counts a failed sign-in and sets the lock it begins (by `policy`), in one transaction;
   * answers the lock's end (0: none begins). Id 0 (no operator) changes nothing.
   */
  countFailure(id: number, now: number, policy: LockoutPolicy): Promise<number>;
  /**
   * Takes a right password (or second step) at `now`, unless the operator is locked then,
   * checked in the same statement; `clearFailures` forgets its failures. False when locked.
   */
  acceptPassword(id: number, now: number, clearFailures: boolean): Promise<boolean>;
  /**
   * Replaces the operator's password (null clears it), in one transaction with the end of
   * every set-up link and every session it has: whoever held one of those holds nothing now.
   */
  replacePassword(id: number, passwordHash: string | null): Promise<void>;
  /**
   * Keeps a new set-up link, the operator's only one: any link handed out before ends with it;
   * its mail queued in the same transaction when one is given.
   */
  addLink(digest: string, operatorId: number, expiresAt: number, mail?: OperatorLinkMail): Promise<void>;
  /**
   * Uses a link (once) to set the password, as replacePassword does, in one transaction: its
   * operator, or undefined when the link is unknown, used or expired (then nothing changes).
   */
  setPasswordByLink(digest: string, passwordHash: string, now: number): Promise<number | undefined>;
  linkOperator(digest: string, now: number): Promise<number | undefined>;
  addSession(digest: string, operatorId: number, now: number, pending?: boolean): Promise<void>;
  /**
   * Ends a pending session and starts a full one under a new digest (a new token once the
   * second step is passed), at once: false when the pending session was ended meanwhile.
   */
  completeSession(pendingDigest: string, digest: string, now: number): Promise<boolean>;
  /** Ends the operator's pending sessions (a lock, a new sign-in: one pending at a time). */
  endPendingSessions(operatorId: number): Promise<void>;
  /** Ends every session of the operator but this one. */
  endOtherSessions(operatorId: number, keepDigest: string): Promise<void>;
  twoStep(id: number): Promise<OperatorTwoStep>;
  /** Keeps (or, with null, drops) the secret being enrolled. */
  setTwoStepPending(id: number, secret: string | null): Promise<void>;
  /** Turns the second step on with this secret, the step its first code was taken at, and new recovery codes (their digests): the old ones end. */
  enableTwoStep(id: number, secret: string, step: number, recoveryDigests: readonly string[]): Promise<void>;
  /** Turns it off: the secret and every recovery code removed. */
  disableTwoStep(id: number): Promise<void>;
  /** Takes a code's time step, once: false when this step (or a later one) was taken already. */
  takeStep(id: number, step: number): Promise<boolean>;
  /** Uses a recovery code, once: false when it is unknown or used. */
  useRecoveryCode(id: number, digest: string, now: number): Promise<boolean>;
  recoveryCodesLeft(id: number): Promise<number>;
  session(digest: string): Promise<OperatorSession | undefined>;
  touchSession(digest: string, now: number): Promise<void>;
  endSession(digest: string): Promise<void>;
  endSessions(operatorId: number): Promise<void>;
}
