/**
 * `account link | unlink | link-status`: an account's link to its upstream, checked when it
 * is made (the upstream must answer its /list/ with the credentials given), and the figures
 * of the move (also the Prometheus metrics').
 */
import type { Account } from '../accounts/account.js';
import type { Clock } from '../common/clock.js';
import { isTimeZone } from '../common/validate.js';
import { trimTrailing } from '../common/text.js';
import { MemberApiError } from '../client/index.js';
import type { CachedLinks } from './cached-links.js';
import { describeUpstreamError, upstreamBase, upstreamClient } from './upstream-api.js';
import type { UpstreamLink, UpstreamLinkSettings, UpstreamLinkStore } from './upstream-link.js';

export type LinkOutcome =
  { kind: 'linked'; upstreamMembers: number | null } | { kind: 'invalid'; setting: string; reason: string } | { kind: 'unreachable'; reason: string };

export interface LinkStatus {
  readonly account: string;
  readonly url: string;
  readonly upstreamUser: string;
  readonly captureUnknown: boolean;
  readonly mirrorWrites: boolean;
  readonly linkedAt: number;
  /** Members written by migrate-members so far (new and updated, all runs). */
  readonly migrated: number;
  readonly passwordsCaptured: number;
  /** Members (not Deleted) whose password is still at the upstream. */
  readonly waiting: number;
  /** When the last finished run began; null before the first. */
  readonly lastSync: number | null;
  /** A run that did not finish: when it began, and the last upstream id it wrote. */
  readonly interruptedRun: { readonly startedAt: number; readonly lastId: number | null } | null;
  readonly upstreamErrors: number;
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
  readonly mirrorPending: number;
  readonly mirrorLastError: string | null;
}

export class UpstreamLinksService {
  constructor(
    private readonly links: UpstreamLinkStore,
    private readonly cached: CachedLinks,
    private readonly clock: Clock,
  ) {}

  /** Links the account (or changes its link), once the upstream has answered with these credentials. */
  async link(
    account: Account,
    settings: Omit<UpstreamLinkSettings, 'timeZone'> & { timeZone?: string },
    options: { check?: boolean } = {},
  ): Promise<LinkOutcome> {
    let url: URL;
    try {
      url = new URL(upstreamBase(settings.url));
    } catch {
      return { kind: 'invalid', setting: '--upstream-url', reason: 'not a URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { kind: 'invalid', setting: '--upstream-url', reason: 'must be http:// or https://' };
    if (url.username || url.password || url.search || url.hash)
      return { kind: 'invalid', setting: '--upstream-url', reason: 'no credentials, query or fragment (the user and key are options)' };
    if (settings.user === '') return { kind: 'invalid', setting: '--upstream-user', reason: 'must not be empty' };
    if (settings.key === '') return { kind: 'invalid', setting: '--upstream-key', reason: 'must not be empty' };
    const timeZone = settings.timeZone ?? account.settings.timeZone;
    if (!isTimeZone(timeZone)) return { kind: 'invalid', setting: '--time-zone', reason: 'not an IANA time zone (e.g. Europe/Paris)' };
    const complete = { ...settings, url: trimTrailing(url.href, '/'), timeZone };
    let upstreamMembers: number | null = null;
    if (options.check !== false) {
      try {
        const answer = await upstreamClient(complete, 30_000).list({ record: '{id}', limit: '1' });
        if (!('members_total' in answer)) throw new MemberApiError(answer);
        upstreamMembers = Number(answer.members_total);
      } catch (error) {
        return { kind: 'unreachable', reason: describeUpstreamError(error) };
      }
    }
    await this.links.saveLink(account.id, complete, this.clock());
    this.cached.forget(account.id);
    return { kind: 'linked', upstreamMembers };
  }

  /** Ends the link; answers the members still waiting (they need a password reset now), or undefined when there was none. */
  async unlink(account: Account): Promise<number | undefined> {
    const waiting = await this.links.countWaiting(account.id);
    const removed = await this.links.removeLink(account.id);
    this.cached.forget(account.id);
    return removed ? waiting : undefined;
  }

  async status(account: Account): Promise<LinkStatus | undefined> {
    const link = await this.links.findLink(account.id);
    return link && this.statusOf(account.name, link);
  }

  /** Every link's status, with the name of its account (for the metrics). */
  async statuses(nameOf: (accountId: number) => string | undefined): Promise<LinkStatus[]> {
    const links = await this.links.listLinks();
    return Promise.all(links.map((link) => this.statusOf(nameOf(link.accountId) ?? String(link.accountId), link)));
  }

  private async statusOf(name: string, link: UpstreamLink): Promise<LinkStatus> {
    const [waiting, mirror] = await Promise.all([this.links.countWaiting(link.accountId), this.links.mirrorBacklog(link.accountId)]);
    return {
      account: name,
      url: link.url,
      upstreamUser: link.user,
      captureUnknown: link.captureUnknown,
      mirrorWrites: link.mirrorWrites,
      linkedAt: link.linkedAt,
      migrated: link.migrated,
      passwordsCaptured: link.captured,
      waiting,
      lastSync: link.lastSyncAt,
      interruptedRun: link.syncStartedAt === null ? null : { startedAt: link.syncStartedAt, lastId: link.syncCursor },
      upstreamErrors: link.upstreamErrors,
      lastError: link.lastError,
      lastErrorAt: link.lastErrorAt,
      mirrorPending: mirror.pending,
      mirrorLastError: mirror.lastError,
    };
  }
}
