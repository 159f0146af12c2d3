import type { Account } from '../accounts/account.js';
import { eventObject, type StoredEvent } from './event.js';
import type { EventStore } from './events-store.js';

/** Events per feed page: by default, and at most. */
export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;
/** Ids one feed page reads past at most: a type filter that matches little never scans the whole trail. */
export const FEED_WINDOW = 10_000;

export interface FeedQuery {
  /** Events after this id; undefined: from the oldest kept. */
  readonly after?: number;
  readonly limit: number;
  readonly types?: readonly string[];
}

export interface FeedPage {
  readonly events: ReadonlyArray<Record<string, unknown>>;
  /** Where the next call starts (`after`): the last event's id, or past the ids read. */
  readonly next: string;
}

/** The change feed. */
export class EventsService {
  constructor(private readonly store: EventStore) {}

  /** A member's latest events, newest first (its history on the console), the change just made included. */
  async ofMember(accountId: number, memberId: number, limit: number): Promise<StoredEvent[]> {
    await this.store.sequence();
    return this.store.ofMember(accountId, memberId, limit);
  }

  async feed(account: Account, query: FeedQuery): Promise<FeedPage> {
    // What committed since the last call gets its ids first, so that a writer reads its own change at once.
    await this.store.sequence();
    const page = await this.store.page(account.id, query.after, query.limit, query.types, FEED_WINDOW);
    return { events: page.events.map((event) => eventObject(event, account.name)), next: String(page.next) };
  }
}
