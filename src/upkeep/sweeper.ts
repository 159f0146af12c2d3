/**
 * The periodic sweep: writes down time expirations that fell due (requests already treat them
 * as done; this makes the stored state catch up) and purges what has outlived its retention:
 * Deleted members (freeing their logins), events past their retention, sessions, login
 * events and stale failure counters.
 */
import type { Clock } from '../common/clock.js';
import type { Housekeeping } from './housekeeping.js';

export interface RetentionSettings {
  readonly deletedRetentionDays: number;
  readonly sessionRetentionDays: number;
  readonly loginEventRetentionDays: number;
  readonly eventRetentionDays: number;
}

export interface SweepReport {
  readonly expired: number;
  readonly warned: number;
  readonly purgedMembers: number;
  readonly purgedSessions: number;
  readonly purgedResetLinks: number;
  readonly purgedMails: number;
  readonly purgedLoginEvents: number;
  readonly purgedEvents: number;
  readonly purgedThrottles: number;
  readonly purgedRateLimits: number;
  readonly purgedKeys: number;
}

const DAY = 86_400_000;
/** Members purged per statement, so that a large purge never holds the store for long. */
const PURGE_BATCH = 1000;
/** Events purged per statement (they are small rows). */
const EVENT_PURGE_BATCH = 5000;
/** Failure counters matter for at most the longest reset time an account can set (30 days). */
const THROTTLE_RETENTION = 30 * DAY;
/** Expired keys are listed (`account key list`) for this long, then forgotten. */
const EXPIRED_KEY_RETENTION = 30 * DAY;

export class Sweeper {
  private running: Promise<SweepReport> | undefined;
  private folding: Promise<number> | undefined;

  constructor(
    private readonly store: Housekeeping,
    private readonly clock: Clock,
    private readonly retention: RetentionSettings,
  ) {}

  /**
   * One pass; a pass asked for while one runs shares that one. The server's job loop runs it on
   * one server of those sharing a store at a time (server.ts): two would only contend for the
   * same rows.
   */
  sweep(): Promise<SweepReport> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Folds the deltas PostgreSQL's triggers append (member counts, profile bytes) into their
   * totals, which every create and update reads with the deltas not folded yet: run every
   * second by each server (sweeps or not), so that this read stays a few rows. Two servers
   * folding at once fold different rows (each deletes what it folds). Then the dead rows of
   * the queue tables (these deltas, the event outbox) are reclaimed if they are many. A fold
   * asked for while one runs shares it.
   */
  fold(): Promise<number> {
    this.folding ??= (async () => {
      const folded = (await this.store.foldMemberCounts()) + (await this.store.foldAccountUsage());
      await this.store.vacuumQueues();
      return folded;
    })().finally(() => (this.folding = undefined));
    return this.folding;
  }

  /** Resolves once no pass (and no fold) is running (for a clean shutdown). */
  async idle(): Promise<void> {
    await Promise.all([this.running?.catch(() => {}), this.folding?.catch(() => {})]);
  }

  private async pass(): Promise<SweepReport> {
    const now = this.clock();
    const expired = await this.store.expireAllDue(now);
    const warned = await this.store.warnExpiring(now, PURGE_BATCH);
    let purgedMembers = 0;
    for (;;) {
      const purged = await this.store.purgeDeleted(now - this.retention.deletedRetentionDays * DAY, PURGE_BATCH, now);
      purgedMembers += purged;
      if (purged < PURGE_BATCH) break;
    }
    let purgedEvents = 0;
    // The outbox first: an event is kept, and purged, as part of the trail.
    await this.store.sequenceEvents();
    for (;;) {
      const purged = await this.store.purgeEvents(now - this.retention.eventRetentionDays * DAY, EVENT_PURGE_BATCH);
      purgedEvents += purged;
      if (purged < EVENT_PURGE_BATCH) break;
    }
    const report = {
      expired,
      warned,
      purgedMembers,
      purgedSessions: await this.store.purgeSessions(now - this.retention.sessionRetentionDays * DAY, now),
      // A reset link a day past its end (its page says "expired" meanwhile); mails a month after.
      purgedResetLinks: await this.store.purgeResetLinks(now - DAY),
      purgedMails: await this.store.purgeMails(now - 30 * DAY),
      purgedEvents,
      purgedLoginEvents: await this.store.purgeLoginEvents(now - this.retention.loginEventRetentionDays * DAY),
      purgedThrottles: await this.store.purgeThrottles(now - THROTTLE_RETENTION),
      purgedRateLimits: await this.store.purgeRateLimits(now),
      purgedKeys: await this.store.purgeExpiredKeys(now - EXPIRED_KEY_RETENTION),
    };
    await this.store.foldMemberCounts();
    await this.store.foldAccountUsage();
    await this.store.refreshStatistics();
    return report;
  }
}
