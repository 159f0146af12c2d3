/**
 * Events: what changed in an account's members, when, and by whom. Written in the same
 * transaction as the change (the store's outbox), read back by the change feed in id order.
 * One JSON shape everywhere (the feed, and the webhooks to come):
 *
 *   {"id":"42","type":"member.updated","time":"2026-11-22T23:14:34.123Z","account":"acme",
 *    "member":{"id":"5","login":"alice"},"actor":{"kind":"api"},"request_id":"…","data":{…}}
 */
import { MEMBER_FIELDS, valueOf } from '../members/member-fields.js';
import type { Member, MemberStatus } from '../members/member.js';

export const EVENT_TYPES = [
  'member.created',
  'member.updated',
  'member.status_changed',
  'member.deleted',
  'member.bulk_updated',
  'member.purged',
  'member.verified',
  'member.locked',
  'member.unlocked',
  'member.login',
  'member.expiring',
  'member.registered',
  'member.paid',
  'member.payment_failed',
  'member.refunded',
  'member.disputed',
  'member.plan_changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Who made a change: the API (a request), an import, an operator (the console), the service itself, the member (its reset page). */
export type ActorKind = 'api' | 'import' | 'operator' | 'system' | 'member';

/** Where a change came from, handed down with it to the store. */
export interface EventOrigin {
  readonly actor: ActorKind;
  /** The operator's e-mail, when an operator made it. */
  readonly email?: string;
  /** Which one: the API key's name (api), the file's name (import), the background job's (system). */
  readonly name?: string;
  /** The request's id (the `x-request-id` the API answers with), when a request made it. */
  readonly requestId?: string;
}

/** Why a member's status changed. */
export type StatusCause = 'update' | 'restore' | 'time_expiry' | 'login_expiry' | 'lockout';

/** An event before the store gives it its id. */
export interface NewEvent {
  readonly type: EventType;
  readonly at: number;
  readonly origin: EventOrigin;
  readonly member?: { readonly id: number; readonly login: string };
  readonly data: Record<string, unknown>;
}

/** An event as the feed answers it. */
export interface StoredEvent extends NewEvent {
  readonly id: number;
}

/** The event's JSON object, as the feed (and the webhooks) send it. */
export function eventObject(event: StoredEvent, accountName: string): Record<string, unknown> {
  const actor: Record<string, string> = { kind: event.origin.actor };
  if (event.origin.email !== undefined) actor.email = event.origin.email;
  if (event.origin.name !== undefined) actor.name = event.origin.name;
  const object: Record<string, unknown> = {
    id: String(event.id),
    type: event.type,
    time: new Date(event.at).toISOString(),
    account: accountName,
  };
  if (event.member) object.member = { id: String(event.member.id), login: event.member.login };
  object.actor = actor;
  if (event.origin.requestId !== undefined) object.request_id = event.origin.requestId;
  object.data = event.data;
  return object;
}

/** The password's field: named when it changes, never shown. */
const PASSWORD = 'password';

/**
 * A member's built-in fields as events show them: by their import and export column names,
 * each value written as files write it (instants in ISO 8601 UTC), the password hash left out.
 * Of a partial member (what an update sets), only the fields it holds; with `only`, only the
 * fields of those Member properties.
 */
export function builtInValues(member: Partial<Member>, only?: ReadonlySet<string>): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  for (const field of MEMBER_FIELDS) {
    if (!field.file || field.column === 'id' || field.column === 'password_hash') continue;
    if (only && !only.has(typeof field.place === 'string' ? field.place : field.place[0])) continue;
    const value = valueOf(member, field);
    if (value !== undefined) values[field.file.name] = value === null ? null : field.type.encode(value);
  }
  return values;
}

/** `member.created`: the new member's fields that are set, and its profile. */
export function createdEvent(member: Member, profile: ReadonlyMap<string, string>, at: number, origin: EventOrigin): NewEvent {
  const fields = Object.fromEntries(Object.entries(builtInValues(member)).filter(([, value]) => value !== null));
  return { type: 'member.created', at, origin, member: { id: member.id, login: member.login }, data: { ...fields, profile: Object.fromEntries(profile) } };
}

/**
 * The events one member's change makes, from its state before and after and the profile
 * values that changed: `member.updated` (which fields changed, with old and new values; the
 * password named only), and on a status change `member.status_changed` and, for a deletion,
 * `member.deleted`. Nothing when nothing changed. `compared`, when the caller knows that no
 * other Member property can differ (an update that sets these and changes no status), spares
 * writing out the others (instants are formatted: an update of one member pays for it).
 */
export function changeEvents(
  before: Member,
  after: Member,
  profile: { readonly before: ReadonlyMap<string, string>; readonly after: ReadonlyMap<string, string | null> },
  at: number,
  origin: EventOrigin,
  compared?: ReadonlySet<string>,
): NewEvent[] {
  const old = builtInValues(before, compared);
  const now = builtInValues(after, compared);
  const changed: string[] = [];
  const oldValues: Record<string, string | null> = {};
  const newValues: Record<string, string | null> = {};
  for (const name of Object.keys(now)) {
    // The last login and the count move with every login: a login is an event of its own.
    if (old[name] === now[name]) continue;
    changed.push(name);
    oldValues[name] = old[name] ?? null;
    newValues[name] = now[name] ?? null;
  }
  if (before.passwordHash !== after.passwordHash) changed.push(PASSWORD);
  const profileChanges: Record<string, { old: string | null; new: string | null }> = {};
  for (const [name, value] of profile.after) {
    const previous = profile.before.get(name) ?? null;
    if (previous !== value) profileChanges[name] = { old: previous, new: value };
  }
  if (changed.length === 0 && Object.keys(profileChanges).length === 0) return [];
  const member = { id: after.id, login: after.login };
  const events: NewEvent[] = [{ type: 'member.updated', at, origin, member, data: { changed, old: oldValues, new: newValues, profile: profileChanges } }];
  if (before.status !== after.status)
    events.push(statusEvent(member, before.status, after.status, before.status === 'D' && after.status === 'A' ? 'restore' : 'update', at, origin));
  if (after.status === 'D' && before.status !== 'D') events.push({ type: 'member.deleted', at, origin, member, data: { cause: 'update' } });
  return events;
}

export function statusEvent(
  member: { id: number; login: string },
  from: MemberStatus,
  to: MemberStatus,
  cause: StatusCause,
  at: number,
  origin: EventOrigin,
): NewEvent {
  return { type: 'member.status_changed', at, origin, member, data: { from, to, cause } };
}
