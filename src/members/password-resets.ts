/**
 * Password resets: /reset/ makes a link for one member; the page it opens sets a new password.
 *
 * A link is 192 random bits, kept as its SHA-256 digest, good once and for the account's
 * `--reset-lifetime` (an hour by default). Opening it (GET) changes nothing: mail scanners
 * open links. Setting the password is a POST of the page's form: the link is used up first
 * (a compare-and-set, so two posts cannot both use it), then the password changes through
 * the members' service: the account's password rules, the same events, and the member's
 * sessions end.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../common/clock.js';
import type { EventOrigin } from '../events/event.js';
import type { MailRequest } from '../mail/mail.js';
import type { Member } from './member.js';
import type { MemberSelector } from './member-store.js';
import type { MembersService } from './members-service.js';
import { effectiveState } from './lifecycle.js';

export interface ResetLink {
  readonly accountId: number;
  readonly memberId: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}

export interface ResetLinkStore {
  /** Keeps the link, and queues its mail when asked, in one transaction. */
  createResetLink(link: { accountId: number; memberId: number; digest: string; createdAt: number; expiresAt: number }, mail?: MailRequest): Promise<void>;
  findResetLink(digest: string): Promise<ResetLink | undefined>;
  /** Marks the link used at `at` if it is unused and not expired then; true when this call used it. */
  useResetLink(digest: string, at: number): Promise<boolean>;
}

export type ResetIssue = { kind: 'issued'; url: string; mailQueued: boolean } | { kind: 'not-found' } | { kind: 'several' };

/** Whose a link that cannot be used was, when that is still known: the page that says so is the account's, the address filled in. */
export interface LinkOwner {
  readonly account?: Account;
  readonly member?: Member;
}

export type ResetLinkState =
  | { kind: 'valid'; account: Account; member: Member; expiresAt: number }
  | ({ kind: 'used' } & LinkOwner)
  | ({ kind: 'expired' } & LinkOwner)
  | { kind: 'invalid' };

export type ResetOutcome = { kind: 'changed'; account: Account; member: Member } | Exclude<ResetLinkState, { kind: 'valid' }>;

/** The most links one reminder mail to a shared address lists. */
const MAX_SHARED_LINKS = 10;

/** The path of the page a reset link opens. */
export const RESET_PAGE_PATH = '/api2/reset-password/';

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new member's first-password link lives a week at least: it may wait in a mailbox for days. */
export const WELCOME_LINK_MS = 7 * 86_400_000;

export class PasswordResets {
  constructor(
    private readonly links: ResetLinkStore,
    private readonly members: Pick<MembersService, 'findSelected' | 'findLive' | 'byId' | 'update'>,
    private readonly accountById: (id: number) => Promise<Account | undefined>,
    private readonly clock: Clock,
    private readonly publicUrl: () => string,
  ) {}

  /** A link for the one member the selector finds (not a Deleted one); its mail queued when asked and the account has a mail server. */
  async issue(account: Account, selector: MemberSelector, sendMail: boolean, options: { welcome?: boolean } = {}): Promise<ResetIssue> {
    const found = await this.members.findSelected(account, selector);
    if (found.kind !== 'found') return found;
    return this.issueFor(account, found.member, sendMail, undefined, options.welcome);
  }

  /**
   * A link for this member, its mail queued when asked and the account has a mail server (in
   * `language`, the asking page's). A `welcome` link is a new member's first password (an
   * operator made it, or an import): its mail says so, and it lives WELCOME_LINK_MS at least.
   */
  private async issueFor(account: Account, member: Member, sendMail: boolean, language?: string, welcome = false): Promise<ResetIssue> {
    const now = this.clock();
    const token = randomBytes(24).toString('base64url');
    const lifetime = account.settings.resetLifetimeSeconds * 1000;
    const expiresAt = now + (welcome ? Math.max(lifetime, WELCOME_LINK_MS) : lifetime);
    const url = this.urlOf(account, token);
    // A member without an address (the hosted original allowed one) gets no mail: only an
    // operator can hand it a link.
    const mail =
      sendMail && account.settings.smtpUrl !== '' && member.email !== ''
        ? {
            kind: 'reset' as const,
            vars: { reset_url: url, reset_expires_at: String(expiresAt), ...(language ? { language } : {}), ...(welcome ? { welcome: '1' } : {}) },
          }
        : undefined;
    await this.links.createResetLink({ accountId: account.id, memberId: member.id, digest: digestOf(token), createdAt: now, expiresAt }, mail);
    return { kind: 'issued', url, mailQueued: mail !== undefined };
  }

  /**
   * The member pages' reminder: a link for the member the login or address names, mailed. An
   * address several members share (the API allows it) gets one mail that lists each login with
   * its own link (at most MAX_SHARED_LINKS), sent to the one address they share.
   */
  async remind(account: Account, who: string, language?: string): Promise<void> {
    if (!who.includes('@')) {
      const found = await this.members.findSelected(account, { by: 'login', login: who });
      if (found.kind === 'found') await this.issueFor(account, found.member, true, language);
      return;
    }
    const members = await this.members.findLive(account, { by: 'email', email: who }, MAX_SHARED_LINKS);
    if (members.length <= 1) {
      if (members.length === 1) await this.issueFor(account, members[0]!, true, language);
      return;
    }
    if (account.settings.smtpUrl === '') return;
    const now = this.clock();
    const expiresAt = now + account.settings.resetLifetimeSeconds * 1000;
    const links = members.map((member) => ({ member, token: randomBytes(24).toString('base64url') }));
    const list = links.map(({ member, token }) => `${member.login}:\n${this.urlOf(account, token)}`).join('\n\n');
    for (const [index, { member, token }] of links.entries()) {
      const last = index === links.length - 1;
      const mail = last ? { kind: 'reset' as const, vars: { reset_links: list, reset_expires_at: String(expiresAt), ...(language ? { language } : {}) } } : undefined;
      await this.links.createResetLink({ accountId: account.id, memberId: member.id, digest: digestOf(token), createdAt: now, expiresAt }, mail);
    }
  }

  /** A reset link's address: it names its account, so that even a link cut short leads to that account's pages. */
  private urlOf(account: Account, token: string): string {
    return `${this.publicUrl()}${RESET_PAGE_PATH}?account=${encodeURIComponent(account.name)}&token=${token}`;
  }

  /** What the page shows for a link: nothing is changed by looking. */
  async state(token: string): Promise<ResetLinkState> {
    if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return { kind: 'invalid' };
    const link = await this.links.findResetLink(digestOf(token));
    if (!link) return { kind: 'invalid' };
    const now = this.clock();
    const account = await this.accountById(link.accountId);
    const found = account && (await this.members.byId(account, link.memberId));
    // A Deleted member's address is not shown again.
    const member = found && effectiveState(found, now).status !== 'D' ? found : undefined;
    if (link.usedAt !== null) return { kind: 'used', account, member };
    if (link.expiresAt <= now) return { kind: 'expired', account, member };
    if (!account || !member) return { kind: 'invalid' };
    // An expiration that fell due and is not written down yet: as the sweep will end the link.
    if (effectiveState(member, now).status !== member.status) return { kind: 'expired', account, member };
    return { kind: 'valid', account, member, expiresAt: link.expiresAt };
  }

  /**
   * Sets the member's password and uses the link up, for a link the caller found valid (and a
   * password it checked against the account's rules, since it knows how to say why one is
   * refused). The link's use is a compare-and-set on its being unused and unexpired: of two
   * posts of one form, one changes the password.
   */
  async complete(token: string, link: Extract<ResetLinkState, { kind: 'valid' }>, password: string, origin: EventOrigin): Promise<ResetOutcome> {
    if (!(await this.links.useResetLink(digestOf(token), this.clock()))) return { kind: 'used' };
    const outcome = await this.members.update(
      link.account,
      { selector: { by: 'id', id: link.member.id }, password, deleteFields: [], setFields: new Map() },
      origin,
    );
    if (outcome.kind !== 'updated') return { kind: 'invalid' };
    return { kind: 'changed', account: link.account, member: link.member };
  }
}
