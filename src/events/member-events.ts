/**
 * One constructor per event type that is not a member's change (event.ts builds those from
 * the member before and after: member.created, member.updated, member.status_changed,
 * member.deleted). Pure functions of what happened: the store appends what it is handed, and
 * a new event type is a constructor here and a call where it happens, never SQL.
 */
import type { EventOrigin, NewEvent } from './event.js';

type MemberRef = { readonly id: number; readonly login: string };

const SYSTEM: EventOrigin = { actor: 'system' };

/** What a login attempt tells of itself (the login service gathers it; login-records.ts). */
export interface LoginAttempt {
  /** The member, when the login named one. */
  readonly member?: MemberRef;
  /** The login as sent (kept when it named no member). */
  readonly login: string;
  readonly ip: string | null;
  readonly origin: EventOrigin;
}

/** `member.registered`: a visitor registered on the member pages; `approval`: it waits, Suspended, for an operator. */
export function registeredEvent(member: MemberRef, approval: boolean, at: number, origin: EventOrigin): NewEvent {
  return { type: 'member.registered', at, origin, member, data: { approval } };
}

/** `member.login`: an attempt and its outcome, with the address when the integrator sent one. */
export function loginEvent(attempt: LoginAttempt, outcome: string, at: number): NewEvent {
  const data: Record<string, unknown> = { outcome };
  if (attempt.ip !== null) data.ip = attempt.ip;
  if (!attempt.member) data.login = attempt.login;
  return { type: 'member.login', at, origin: attempt.origin, ...(attempt.member ? { member: attempt.member } : {}), data };
}

/** `member.locked`: failures reached the threshold; the lock lasts `until`, from one address or from all. */
export function lockedEvent(
  member: MemberRef,
  lock: { readonly until: number; readonly scope: 'address' | 'all'; readonly failures: number },
  at: number,
): NewEvent {
  return { type: 'member.locked', at, origin: SYSTEM, member, data: { until: new Date(lock.until).toISOString(), scope: lock.scope, failures: lock.failures } };
}

/** `member.unlocked`: an operator (or the API) ended a lock. */
export function unlockedEvent(member: MemberRef, at: number, origin: EventOrigin): NewEvent {
  return { type: 'member.unlocked', at, origin, member, data: {} };
}

/** The events of a login that used up the member's login allowance: its status changed, and a deletion. */
export function loginExpiryEvents(member: MemberRef, to: 'S' | 'D', at: number): NewEvent[] {
  const changed: NewEvent = { type: 'member.status_changed', at, origin: SYSTEM, member, data: { from: 'A', to, cause: 'login_expiry' } };
  return to === 'D' ? [changed, { type: 'member.deleted', at, origin: SYSTEM, member, data: { cause: 'login_expiry' } }] : [changed];
}

/** `member.verified`: the member opened its verification link. */
export function verifiedEvent(member: MemberRef, email: string, at: number, origin: EventOrigin): NewEvent {
  return { type: 'member.verified', at, origin, member, data: { email } };
}

/** `member.purged`: a Deleted member's retention ended; its login is free again. */
export function purgedEvent(member: MemberRef, at: number): NewEvent {
  return { type: 'member.purged', at, origin: SYSTEM, member, data: { cause: 'retention' } };
}

/** `member.expiring`: a member's time expiration is near (the account's `--expiry-warning`). */
export function expiringEvent(member: MemberRef, expiresAt: number, action: string | null, at: number): NewEvent {
  return {
    type: 'member.expiring',
    at,
    origin: SYSTEM,
    member,
    data: { expires_at: new Date(expiresAt).toISOString(), action, seconds_left: Math.round((expiresAt - at) / 1000) },
  };
}

/** `member.bulk_updated`: one event for a change of many members (every member, or those whose time expired). */
export function bulkUpdatedEvent(data: Record<string, unknown>, at: number, origin: EventOrigin): NewEvent {
  return { type: 'member.bulk_updated', at, origin, data };
}

/**
 * A member's own deletion, which erases it (erasure.ts's rules): `member.status_changed` to D and
 * `member.deleted`, each with `cause: erased`, as a deletion tells an integrator's sync; the
 * events before them are emptied of their data by the same change.
 */
export function erasedEvents(member: MemberRef, from: string, at: number, origin: EventOrigin): NewEvent[] {
  const changed: NewEvent = { type: 'member.status_changed', at, origin, member, data: { from, to: 'D', cause: 'erased' } };
  return from === 'D'
    ? [{ type: 'member.deleted', at, origin, member, data: { cause: 'erased' } }]
    : [changed, { type: 'member.deleted', at, origin, member, data: { cause: 'erased' } }];
}

/**
 * A payment provider's notice told (`member.paid`, `member.payment_failed`, `member.refunded`,
 * `member.disputed`, `member.plan_changed`: billing/billing.ts says when), its data the
 * provider's ids and what changed.
 */
export function billingEvent(
  member: MemberRef,
  kind: 'paid' | 'payment_failed' | 'refunded' | 'disputed' | 'plan_changed',
  data: Record<string, unknown>,
  at: number,
  origin: EventOrigin,
): NewEvent {
  return { type: `member.${kind}`, at, origin, member, data };
}
