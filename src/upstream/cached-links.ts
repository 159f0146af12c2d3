import type { UpstreamLink, UpstreamLinkStore } from './upstream-link.js';

/** How long a server trusts what it read of a link (a change made elsewhere is seen after this). */
export const LINK_CACHE_MS = 5_000;

/**
 * After this many calls in a row that got no answer, an account's upstream is not called for
 * BREAKER_PAUSE_MS (a circuit breaker): its logins answer at once instead of each waiting the
 * whole timeout. Every failure is then equally quick, so the timing still tells nothing.
 */
const BREAKER_ERRORS = 3;
const BREAKER_PAUSE_MS = 30_000;

/**
 * The links as the hot paths read them (/login/ failures, every /update/ and /create/): from
 * memory for LINK_CACHE_MS, so that an account without a link costs no store read per call.
 */
export class CachedLinks {
  private readonly cache = new Map<number, { link: UpstreamLink | undefined; until: number }>();
  /** Calls in a row that got no answer, per account, and until when the upstream is left alone. */
  private readonly breakers = new Map<number, { errors: number; until: number }>();

  constructor(private readonly links: Pick<UpstreamLinkStore, 'findLink'>) {}

  async find(accountId: number): Promise<UpstreamLink | undefined> {
    // Real time, whatever the service's clock says: this is about how stale a read may be.
    const now = performance.now();
    const cached = this.cache.get(accountId);
    if (cached && cached.until > now) return cached.link;
    const link = await this.links.findLink(accountId);
    this.cache.set(accountId, { link, until: now + LINK_CACHE_MS });
    return link;
  }

  /** Forgets what was read, and the upstream's failures (this server changed the link). */
  forget(accountId: number): void {
    this.cache.delete(accountId);
    this.breakers.delete(accountId);
  }

  /** Whether the account's upstream is being left alone after calls that got no answer. */
  paused(accountId: number): boolean {
    const breaker = this.breakers.get(accountId);
    return breaker !== undefined && breaker.errors >= BREAKER_ERRORS && performance.now() < breaker.until;
  }

  /** The upstream answered (whatever it said). */
  answered(accountId: number): void {
    this.breakers.delete(accountId);
  }

  /** A call got no answer; a call after a pause that fails again starts another pause. */
  unanswered(accountId: number): void {
    const errors = (this.breakers.get(accountId)?.errors ?? 0) + 1;
    this.breakers.set(accountId, { errors, until: performance.now() + BREAKER_PAUSE_MS });
  }
}
