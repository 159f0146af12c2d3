import type { UpstreamLink, UpstreamLinkStore } from './upstream-link.js';

/** How long a server trusts what it read of a link (a change made elsewhere is seen after this). */
export const LINK_CACHE_MS = 5_000;

/**
 * The links as the hot paths read them (/login/ failures, every /update/ and /create/): from
 * memory for LINK_CACHE_MS, so that an account without a link costs no store read per call.
 */
export class CachedLinks {
  private readonly cache = new Map<number, { link: UpstreamLink | undefined; until: number }>();

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

  /** Forgets what was read (this server changed the link). */
  forget(accountId: number): void {
    this.cache.delete(accountId);
  }
}
