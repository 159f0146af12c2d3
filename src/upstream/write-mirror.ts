/**
 * Writes mirrored to the upstream (`account link … --mirror-writes`): a /create/ or /update/
 * that succeeded here is queued as a row, and sent to the upstream after the answer, in
 * order per account. The local answer never waits for the upstream and never fails because
 * of it. A write the upstream cannot be reached for (no answer, a 5xx, a 429) is tried again
 * with a growing wait, for as long as the link lasts; a write the upstream refuses (an ERROR
 * answer: a login taken there) is tried MAX_REFUSED_ATTEMPTS times, then dropped and
 * recorded as the link's last error, so that one bad write does not hold every later one.
 */
import type { Account } from '../accounts/account.js';
import type { Clock } from '../common/clock.js';
import type { MemberStore } from '../members/member-store.js';
import { describeUpstreamError, isUpstreamError, upstreamClient } from './upstream-api.js';
import type { CachedLinks } from './cached-links.js';
import type { MirrorJob, UpstreamLinkStore } from './upstream-link.js';

export type WireParameters = ReadonlyArray<readonly [string, string]>;

/** How long a server holds a write it is sending. */
const LEASE_MS = 60_000;
const MAX_REFUSED_ATTEMPTS = 5;
const FIRST_RETRY_MS = 1_000;
const LONGEST_RETRY_MS = 10 * 60_000;
/** The upstream gets this long per mirrored write. */
const SEND_TIMEOUT_MS = 30_000;

/** The credentials are the link's, not the caller's. */
/**
 * Not sent upstream: the credentials (the link's are used), and what only this service knows
 * (its mails and sessions), which the hosted original would take for profile fields.
 */
const CREDENTIALS = new Set(['user', 'api_key', 'send_welcome', 'revoke_sessions']);

export type MirrorOutcome = 'sent' | 'retry' | 'dropped';

export class WriteMirror {
  constructor(
    private readonly links: UpstreamLinkStore,
    private readonly cached: CachedLinks,
    private readonly members: Pick<MemberStore, 'findMemberById'>,
    private readonly clock: Clock,
    private readonly observe: (outcome: MirrorOutcome) => void = () => {},
  ) {}

  /**
   * What an /update/ will send upstream, read before it runs: a member named by id is named
   * by its login there (ids differ for members created during the move). Undefined when the
   * account's writes are not mirrored.
   */
  async prepareUpdate(account: Account, params: WireParameters): Promise<WireParameters | undefined> {
    const link = await this.cached.find(account.id);
    if (!link?.mirrorWrites) return undefined;
    const byId = params.find(([name]) => name === 'find_member_id');
    const kept = params.filter(([name]) => !CREDENTIALS.has(name));
    if (!byId || byId[1] === '*' || !/^\d{1,15}$/.test(byId[1])) return kept;
    const member = await this.members.findMemberById(account.id, Number(byId[1]));
    if (!member) return undefined;
    return [['find_member_login', member.login], ...kept.filter(([name]) => name !== 'find_member_id')];
  }

  /** Queues a write that succeeded here (`params` from prepareUpdate, or a /create/'s with its password). */
  async record(account: Account, endpoint: MirrorJob['endpoint'], params: WireParameters): Promise<void> {
    if (endpoint === 'create') {
      const link = await this.cached.find(account.id);
      if (!link?.mirrorWrites) return;
    }
    await this.links.enqueueMirror(
      account.id,
      endpoint,
      params.filter(([name]) => !CREDENTIALS.has(name)),
      this.clock(),
    );
  }

  /** Sends the writes that are due, one at a time, until none is; answers how many were taken. */
  async drain(): Promise<number> {
    let taken = 0;
    for (;;) {
      const job = await this.links.claimMirror(this.clock(), LEASE_MS);
      if (!job) return taken;
      taken++;
      this.observe(await this.send(job));
    }
  }

  private async send(job: MirrorJob): Promise<MirrorOutcome> {
    const link = await this.links.findLink(job.accountId);
    if (!link) {
      await this.links.finishMirror(job.id);
      return 'dropped';
    }
    const params: Record<string, string | string[]> = {};
    for (const [name, value] of job.params) {
      const given = params[name];
      params[name] = given === undefined ? value : [...(Array.isArray(given) ? given : [given]), value];
    }
    const client = upstreamClient(link, SEND_TIMEOUT_MS);
    try {
      const answer = job.endpoint === 'create' ? await client.create(params as never) : await client.update(params as never);
      if (answer.result === 'OK') {
        await this.links.finishMirror(job.id);
        return 'sent';
      }
      const refused = `${job.endpoint}: upstream answered ${answer.result}: ${answer.message}`;
      await this.links.recordUpstreamError(job.accountId, refused, this.clock());
      if (job.attempts >= MAX_REFUSED_ATTEMPTS) {
        await this.links.finishMirror(job.id);
        return 'dropped';
      }
      await this.links.retryMirror(job.id, refused, this.clock() + this.backoff(job.attempts));
      return 'retry';
    } catch (error) {
      if (!isUpstreamError(error)) throw error;
      const message = `${job.endpoint}: ${describeUpstreamError(error)}`;
      await this.links.recordUpstreamError(job.accountId, message, this.clock());
      await this.links.retryMirror(job.id, message, this.clock() + this.backoff(job.attempts));
      return 'retry';
    }
  }

  /** Exponential, with jitter (half to all of it), so that servers do not retry in step. */
  private backoff(attempts: number): number {
    const wait = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
    return Math.round(wait * (0.5 + Math.random() / 2));
  }
}
