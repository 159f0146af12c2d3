/**
 * The login side of a link: asks the upstream whether a password is right (at most
 * UPSTREAM_LOGIN_TIMEOUT_MS; no answer is a no), keeps a password it confirmed, and brings
 * over a member the upstream knows and this store does not (`--capture-unknown`).
 */
import type { Account } from '../accounts/account.js';
import { PASSWORD_AT_UPSTREAM } from '../auth/legacy-hashes.js';
import type { Clock } from '../common/clock.js';
import type { MemberImporter } from '../import-export/importer.js';
import type { UpstreamCheck, UpstreamPasswords } from '../members/credential-verifiers.js';
import type { Member } from '../members/member.js';
import type { MemberStore } from '../members/member-store.js';
import { describeUpstreamError, importValues, migrationRecord, UPSTREAM_LOGIN_TIMEOUT_MS, upstreamClient } from './upstream-api.js';
import type { CachedLinks } from './cached-links.js';
import type { UpstreamLinkStore } from './upstream-link.js';

const SUSPENDED = 'member suspended';

/** `skipped`: not called, the upstream being paused after calls that got no answer (CachedLinks). */
export type UpstreamCallOutcome = 'ok' | 'fail' | 'error' | 'skipped';

export class UpstreamLogins implements UpstreamPasswords {
  constructor(
    private readonly links: UpstreamLinkStore,
    private readonly cached: CachedLinks,
    private readonly members: Pick<MemberStore, 'findMemberByLogin'>,
    private readonly importer: MemberImporter,
    private readonly clock: Clock,
    /** Told each call's outcome (for the metrics). */
    private readonly observe: (outcome: UpstreamCallOutcome) => void = () => {},
    private readonly timeoutMs = UPSTREAM_LOGIN_TIMEOUT_MS,
  ) {}

  async linkOf(account: Account): Promise<{ captureUnknown: boolean } | undefined> {
    return this.cached.find(account.id);
  }

  async check(account: Account, login: string, password: string, ip: string | null): Promise<UpstreamCheck> {
    const link = await this.cached.find(account.id);
    if (!link) return 'fail';
    if (this.cached.paused(account.id)) {
      this.observe('skipped');
      return 'unavailable';
    }
    try {
      const answer = await upstreamClient(link, this.timeoutMs).login(ip === null ? { login, password } : { login, password, IP: ip });
      // `member suspended` is said only to the right password (the contract's /login/): the
      // password is right, and the state here decides.
      const outcome = answer.result === 'OK' || (answer.result === 'FAIL' && answer.message === SUSPENDED) ? 'ok' : 'fail';
      this.cached.answered(account.id);
      this.observe(outcome);
      return outcome;
    } catch (error) {
      this.cached.unanswered(account.id);
      this.observe('error');
      await this.links.recordUpstreamError(account.id, `login: ${describeUpstreamError(error)}`, this.clock()).catch(() => {});
      return 'unavailable';
    }
  }

  async capture(account: Account, memberId: number, hash: string): Promise<void> {
    await this.links.capturePassword(account.id, memberId, hash);
  }

  /**
   * Brings one member over from the upstream (`login_full`), marked "password at upstream",
   * and answers it as stored here (found by its login: its upstream id may be another
   * member's here, and then it is numbered here); undefined when the upstream does not list it.
   */
  async bringOver(account: Account, login: string): Promise<Member | undefined> {
    const link = await this.cached.find(account.id);
    if (!link) return undefined;
    try {
      const client = upstreamClient(link, this.timeoutMs);
      const answer = await client.list({ record: migrationRecord([]), login_full: login });
      if (!('members' in answer) || answer.members.length !== 1) return undefined;
      const values = importValues(answer.members[0]!, []);
      const rows = (async function* () {
        yield { line: 1, values };
      })();
      const summary = await this.importer.run(account, rows, {
        dryRun: false,
        keepIds: true,
        renumberTaken: true,
        timeZone: link.timeZone,
        passwordForNew: PASSWORD_AT_UPSTREAM,
        source: 'a login brought over from the upstream',
      });
      if (summary.imported !== 1) return undefined;
      return await this.members.findMemberByLogin(account.id, login);
    } catch (error) {
      await this.links.recordUpstreamError(account.id, `bring over: ${describeUpstreamError(error)}`, this.clock()).catch(() => {});
      return undefined;
    }
  }
}
