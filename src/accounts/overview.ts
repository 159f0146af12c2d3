/**
 * An account at a glance, for the console's overview: its members by status, registrations
 * and logins per day over the last 30 days (in the account's time zone), the members whose
 * time expiration falls due in the next 7 days, and the last failed logins. Every figure is
 * read from counters and indexes, never by scanning the members: the page costs the same at
 * a hundred members and at a million.
 */
import { DateTime } from 'luxon';
import type { Account } from './account.js';
import type { Clock } from '../common/clock.js';
import type { LoginEvent } from '../members/login-records.js';
import type { MemberStatus } from '../members/member.js';

/** What is counted per account and hour as it happens. */
export type ActivityKind = 'registered' | 'login-ok' | 'login-failed' | 'login-locked';
export const ACTIVITY_KINDS: readonly ActivityKind[] = ['registered', 'login-ok', 'login-failed', 'login-locked'];

/** Told of every registration and login attempt (the members and login services call it). */
export interface ActivityCounter {
  count(accountId: number, kind: ActivityKind, at: number): Promise<void>;
}

/**
 * Counts, and lets a failed count go: the login or the registration it counts is made
 * already, and a chart a little low is better than an answer that says it failed.
 */
export async function countQuietly(counter: ActivityCounter, accountId: number, kind: ActivityKind, at: number): Promise<void> {
  try {
    await counter.count(accountId, kind, at);
  } catch {
    // The store's trouble shows in the requests around this one; this count is lost.
  }
}

export interface ActivityCount {
  /** The start of the hour, UTC. */
  readonly hour: number;
  readonly kind: ActivityKind;
  readonly n: number;
}

/** A member whose time expiration falls due soon. */
export interface ExpiringMember {
  readonly id: number;
  readonly login: string;
  readonly email: string;
  readonly expiresAt: number;
  /** What happens then: Suspended or Deleted. */
  readonly action: 'S' | 'D';
}

export interface OverviewStore extends ActivityCounter {
  activitySince(accountId: number, fromHour: number): Promise<ActivityCount[]>;
  /** Members by status at `now`, from the counters. */
  membersByStatus(accountId: number, now: number): Promise<Record<MemberStatus, number>>;
  /** Active members whose time expiration falls in [from, to), soonest first: `count` stops at `countUpTo`. */
  expiring(accountId: number, from: number, to: number, limit: number, countUpTo: number): Promise<{ count: number; members: ExpiringMember[] }>;
  /** The failed login attempts recorded with an address, newest first. */
  failedLogins(accountId: number, limit: number): Promise<LoginEvent[]>;
}

export const HOUR_MS = 3_600_000;
export const OVERVIEW_DAYS = 30;
export const EXPIRING_DAYS = 7;
/** The expiring members shown by name, and how far they are counted (beyond: "10,000 or more"). */
const EXPIRING_SHOWN = 10;
export const EXPIRING_COUNTED = 10_000;
const FAILED_SHOWN = 10;

/** One day of the charts, in the account's time zone. */
export interface OverviewDay {
  /** YYYY-MM-DD */
  readonly day: string;
  readonly registered: number;
  readonly loginOk: number;
  readonly loginFailed: number;
  readonly loginLocked: number;
}

export interface Overview {
  readonly byStatus: Record<MemberStatus, number>;
  /** The last 30 days, oldest first, today last. */
  readonly days: readonly OverviewDay[];
  readonly expiring: { readonly count: number; readonly countedUpTo: number; readonly members: readonly ExpiringMember[] };
  readonly failedLogins: readonly LoginEvent[];
}

export class AccountOverview {
  constructor(
    private readonly store: OverviewStore,
    private readonly clock: Clock,
  ) {}

  async of(account: Account): Promise<Overview> {
    const now = this.clock();
    const zone = account.settings.timeZone;
    // The first hour that can fall on the oldest day shown, whatever the zone's offset.
    const today = DateTime.fromMillis(now, { zone }).startOf('day');
    const firstDay = today.minus({ days: OVERVIEW_DAYS - 1 });
    const fromHour = Math.floor(firstDay.toMillis() / HOUR_MS) * HOUR_MS;
    const [byStatus, counts, expiring, failedLogins] = await Promise.all([
      this.store.membersByStatus(account.id, now),
      this.store.activitySince(account.id, fromHour),
      this.store.expiring(account.id, now, now + EXPIRING_DAYS * 24 * HOUR_MS, EXPIRING_SHOWN, EXPIRING_COUNTED),
      this.store.failedLogins(account.id, FAILED_SHOWN),
    ]);
    // Each day's start in the account's zone (30 dates computed, not one per counted hour);
    // an hour belongs to the day it starts on.
    const starts: number[] = [];
    const totals: Array<{ -readonly [K in keyof OverviewDay]: OverviewDay[K] }> = [];
    for (let day = firstDay; day <= today; day = day.plus({ days: 1 })) {
      starts.push(day.toMillis());
      totals.push({ day: day.toISODate()!, registered: 0, loginOk: 0, loginFailed: 0, loginLocked: 0 });
    }
    const field = { registered: 'registered', 'login-ok': 'loginOk', 'login-failed': 'loginFailed', 'login-locked': 'loginLocked' } as const;
    for (const count of counts) {
      let index = starts.length - 1;
      while (index >= 0 && starts[index]! > count.hour) index--;
      if (index >= 0) totals[index]![field[count.kind]] += count.n;
    }
    return {
      byStatus,
      days: totals,
      expiring: { ...expiring, countedUpTo: EXPIRING_COUNTED },
      failedLogins,
    };
  }
}

/** The start of the hour that holds `at`: counts are kept per account and hour. */
export const hourOf = (at: number) => Math.floor(at / HOUR_MS) * HOUR_MS;
