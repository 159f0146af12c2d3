/**
 * The member lifecycle as pure functions of `now`: when an expiration falls due, and what a
 * member's state is at a given instant whether or not the sweep has written it down yet.
 */
import { DateTime } from 'luxon';
import type { ExpiryAction, Member, MemberStatus } from './member.js';

export type PeriodUnit = 'm' | 'h' | 'D' | 'M' | 'Y';

export const PERIOD_UNITS: readonly PeriodUnit[] = ['m', 'h', 'D', 'M', 'Y'];

const LUXON_UNIT = { m: 'minutes', h: 'hours', D: 'days', M: 'months', Y: 'years' } as const;

export function isPeriodUnit(value: string): value is PeriodUnit {
  return (PERIOD_UNITS as readonly string[]).includes(value);
}

/** A period written as a count and a unit, like `30m`, `12h`, `7D`; undefined when malformed. */
export function parsePeriod(text: string): { count: number; unit: PeriodUnit } | undefined {
  const match = /^([1-9]\d{0,8})([mhDMY])$/.exec(text);
  return match ? { count: Number(match[1]), unit: match[2] as PeriodUnit } : undefined;
}

/**
 * `count` calendar periods after `now`, counted in the account's time zone: a day keeps the
 * wall-clock time across a daylight-saving change, a month ending on the 31st lands on the
 * last day of a shorter month. Undefined when the result is past the year 9999.
 */
export function addPeriods(now: number, count: number, unit: PeriodUnit, timeZone: string): number | undefined {
  const due = DateTime.fromMillis(now, { zone: timeZone }).plus({ [LUXON_UNIT[unit]]: count });
  if (!due.isValid || due.year > 9999) return undefined;
  return due.toMillis();
}

export interface EffectiveState {
  readonly status: MemberStatus;
  readonly deletedAt: number | null;
}

/**
 * The member's state at `now`. Only an Active member expires; one whose time has come is
 * Suspended or Deleted from that instant, the deletion dated at the moment it expired.
 */
export function effectiveState(member: Pick<Member, 'status' | 'timeExpiry' | 'deletedAt'>, now: number): EffectiveState {
  const expiry = member.timeExpiry;
  if (member.status === 'A' && expiry && expiry.at <= now) {
    return { status: expiry.action, deletedAt: expiry.action === 'D' ? expiry.at : member.deletedAt };
  }
  return { status: member.status, deletedAt: member.deletedAt };
}

/** A calendar day, as a list filter names it; where it starts depends on the time zone. */
export interface CalendarDay {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** A `YYYY-MM-DD` that names a day that exists; undefined otherwise. */
export function parseDay(text: string): CalendarDay | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return DateTime.fromObject({ year, month, day }, { zone: 'UTC' }).isValid ? { year, month, day } : undefined;
}

/** The instant a calendar day starts in a time zone, `offsetDays` days later. */
export function dayStart(day: CalendarDay, timeZone: string, offsetDays = 0): number {
  return DateTime.fromObject(day, { zone: timeZone }).plus({ days: offsetDays }).startOf('day').toMillis();
}

/** The action named by /create/'s numeric modes: 0 none, 1 suspend, 2 delete; undefined for anything else. */
export function expiryActionFromCreateMode(mode: string): ExpiryAction | null | undefined {
  // A switch, not an object lookup: `constructor` must not name anything.
  switch (mode) {
    case '0':
      return null;
    case '1':
      return 'S';
    case '2':
      return 'D';
    default:
      return undefined;
  }
}
