import type { StoredEvent } from './event.js';

/** A page of the feed: events in id order, and where the next page starts. */
export interface EventPage {
  readonly events: readonly StoredEvent[];
  /** The last id read past (an event returned, or one skipped by the type filter). */
  readonly next: number;
}

/** What the change feed needs from storage (the retention sweep deletes through Housekeeping). */
export interface EventStore {
  /**
   * Gives the events whose transactions have committed their feed ids (the sequencer); the
   * feed and the webhooks run it before they read. Answers how many it numbered.
   */
  sequence(): Promise<number>;
  /**
   * Events of the account after `after` (every event when undefined, from the oldest kept),
   * in id order: at most `limit`, of the given types when `types` is set, reading at most
   * `window` ids past `after` (a filter that matches little never scans the whole table).
   */
  /** These events of the account (those still kept), in id order. */
  byIds(accountId: number, ids: readonly number[]): Promise<StoredEvent[]>;
  page(accountId: number, after: number | undefined, limit: number, types: readonly string[] | undefined, window: number): Promise<EventPage>;
  /** A member's latest events, newest first (those not numbered yet too: their id is 0). */
  ofMember(accountId: number, memberId: number, limit: number): Promise<StoredEvent[]>;
}
