/**
 * What the periodic sweep needs from storage: installation-wide upkeep, not tied to one
 * account (writing down due expirations, purging what outlived its retention, folding the
 * counters, keeping statistics current), and the election of one sweeper among servers.
 */
export interface Housekeeping {
  /** Writes down every due time expiration; returns how many members changed. */
  expireAllDue(now: number): Promise<number>;
  /** Removes up to `limit` members deleted before `before`; their logins become free. */
  purgeDeleted(before: number, limit: number, now: number): Promise<number>;
  /** Removes sessions created before `before`, and those past their account's lifetime at `now`. */
  purgeSessions(before: number, now: number): Promise<number>;
  /** Removes password reset links that ended before `before`. */
  purgeResetLinks(before: number): Promise<number>;
  /** Removes mails sent, or given up, before `before`. */
  purgeMails(before: number): Promise<number>;
  purgeLoginEvents(before: number): Promise<number>;
  purgeThrottles(before: number): Promise<number>;
  /** Writes `member.expiring` for the time expirations within each account's warning period, at most `limit` per statement, once per expiration; answers how many. */
  warnExpiring(now: number, limit: number): Promise<number>;
  /** Moves the committed events of the outbox into the trail (the sequencer); answers how many. */
  sequenceEvents(): Promise<number>;
  /** Deletes at most `max` events older than `before`; answers how many. */
  purgeEvents(before: number, max: number): Promise<number>;
  /** Folds the member-count deltas into the counters (PostgreSQL's triggers append deltas). */
  foldMemberCounts(): Promise<number>;
  /** Folds the profile-bytes deltas into the accounts' usage (likewise). */
  foldAccountUsage(): Promise<number>;
  /** Reclaims the dead rows of the tables used as queues (outbox, deltas) when they hold many; answers the tables reclaimed. */
  vacuumQueues(): Promise<string[]>;
  /** Removes request-limit counters that expired before `before`. */
  purgeRateLimits(before: number): Promise<number>;
  /** Removes API keys that expired (or were retired by a rotation) before `before`. */
  purgeExpiredKeys(before: number): Promise<number>;
  /** Keeps the query planner's statistics current. */
  refreshStatistics(): Promise<void>;
  /**
   * Runs `work` unless another server on this store is running work of the same name, and
   * answers undefined then: a background job that runs on one server at a time (background-jobs.ts).
   */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined>;
}
