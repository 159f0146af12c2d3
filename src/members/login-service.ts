import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { addressScope } from '../auth/client-address.js';
import { countResetBefore, isLockedOut, type LoginFailures } from '../auth/lockout.js';
import type { HashingShare, PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { effectiveState } from './lifecycle.js';
import type { Member } from './member.js';
import type { FailureCount, LoginAttemptEvents, LoginEvent, LoginRecords } from './login-records.js';
import { LocalVerifier, UpstreamVerifier, type CredentialVerifier, type UpstreamPasswords, type Verification } from './credential-verifiers.js';
import type { MemberStore } from './member-store.js';
import type { EventOrigin } from '../events/event.js';
import { countQuietly, type ActivityCounter } from '../accounts/overview.js';

export interface LoginCommand {
  readonly login: string;
  readonly password: string;
  /** The member's address (canonical), sent by the integrator with its API key; recorded with the attempt. */
  readonly ip: string | null;
  /** Who asked (the request), for the events the attempt writes. */
  readonly origin?: EventOrigin;
  /** "Keep me signed in" (the sign-in page): the session ends at its absolute lifetime only. */
  readonly remember?: boolean;
  /** The address scope of the client that sent the request (an IPv4 address, an IPv6 /64): its fair turn at hashing. */
  readonly client?: string;
}

export type LoginOutcome =
  | { kind: 'ok'; session: string; okUrl: string }
  /** `lockedUntil`: a locked member's lock ends then; told only to the right password (the member pages say to wait). */
  | { kind: 'fail'; reason: FailReason; failUrl: string; lockedUntil?: number };

type FailReason = 'wrong-credentials' | 'suspended' | 'locked';

/** The failure counts of logins that name no member (or a Deleted one) are kept under this id. */
const NO_MEMBER = 0;

/** One attempt, once verified, as the recording steps need it. */
interface Attempt {
  readonly account: Account;
  readonly command: LoginCommand;
  readonly now: number;
  /** Whose failures count this attempt: the member the login named, or NO_MEMBER. */
  readonly subject: number;
  readonly scope: string;
  readonly failUrl: string;
  readonly verified: Verification;
  readonly failures: LoginFailures | undefined;
  readonly share: HashingShare;
  /** What the events of the attempt tell. */
  readonly events: LoginAttemptEvents;
}

/**
 * /login/: verifies a member's password (credential-verifiers.ts), then records the attempt:
 * a failure's count and lock, a suspended member's refusal, or a success's count, session and
 * hash upgrade, each with its events.
 *
 * Every failed attempt does the same work, whether the login names a member or not: one
 * read of the member with its failure counts (one statement), one password verification
 * (against a dummy hash when there is no member), one write of the failure counts. So an unknown login, a
 * wrong password, a Deleted member and a locked one take the same time.
 */
export class LoginService {
  /** This store's hashes, then (for a linked account) the upstream's. */
  private readonly verifier: CredentialVerifier;

  constructor(
    private readonly members: Pick<MemberStore, 'findMemberById'>,
    private readonly records: LoginRecords,
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
    /** Counts each attempt for the console's overview. */
    private readonly activity: ActivityCounter,
    private readonly upstream?: UpstreamPasswords,
  ) {
    const local = new LocalVerifier(passwords);
    this.verifier = upstream ? new UpstreamVerifier(local, upstream) : local;
  }

  async login(account: Account | undefined, command: LoginCommand): Promise<LoginOutcome> {
    const now = this.clock();
    const outcome = await this.attempt(account, command, now);
    if (account)
      await countQuietly(this.activity, account.id, outcome.kind === 'ok' ? 'login-ok' : outcome.reason === 'locked' ? 'login-locked' : 'login-failed', now);
    return outcome;
  }

  private async attempt(account: Account | undefined, command: LoginCommand, now: number): Promise<LoginOutcome> {
    const scope = addressScope(command.ip);
    const read = account && (await this.records.findLoginSubject(account.id, command.login, scope, NO_MEMBER));
    const found = read?.member;
    // A Deleted member is no member: it is answered, and counted, as an unknown login.
    const named = found && effectiveState(found, now).status !== 'D' ? found : undefined;
    const subject = named?.id ?? NO_MEMBER;
    const failures = read?.failuresOf(subject);
    const share = loginShare(account, command.client);
    const verified = await this.verifier.verify({
      share,
      account,
      login: command.login,
      password: command.password,
      ip: command.ip,
      member: named,
      loginTaken: found !== undefined,
    });
    const failUrl = found?.urlFail || account?.settings.failUrl || '';
    if (!account) return { kind: 'fail', reason: 'wrong-credentials', failUrl };
    const { member } = verified;
    const events: LoginAttemptEvents = {
      member: member && { id: member.id, login: member.login },
      login: command.login,
      ip: command.ip,
      origin: command.origin ?? { actor: 'api' },
      loginEvent: account.settings.loginEvents,
    };
    const attempt: Attempt = { account, command, now, subject, scope, failUrl, verified, failures, share, events };
    // A member brought over now has no failures of its own (those read were of unknown logins).
    const locked = member !== undefined && !verified.broughtOver && isLockedOut(failures, now);
    if (!member || locked || !verified.ok) return this.recordFailure(attempt, locked);
    // A password the upstream confirmed is kept, whatever the member's state here (only the
    // upstream verifier, made when there is an upstream, answers `upstream`).
    if (verified.source === 'upstream') await this.upstream!.capture(account, member.id, await this.passwords.hash(command.password, share));
    if (effectiveState(member, now).status === 'S') return this.recordSuspended(attempt);
    return this.recordSuccess(attempt, member);
  }

  /** A wrong login or password, or a locked member: the failure counted (a lock may begin), and said. */
  private async recordFailure(attempt: Attempt, locked: boolean): Promise<LoginOutcome> {
    const { account, now, verified } = attempt;
    const policy = account.settings.lockout;
    await this.records.recordLoginFailure(account.id, attempt.subject, attempt.scope, {
      at: now,
      resetBefore: countResetBefore(now, policy),
      // A right password while locked is not a failure, but it costs the same.
      counted: !verified.ok || !verified.member,
      policy,
      events: { ...attempt.events, outcome: locked ? 'locked' : 'fail' },
    });
    const outcome = await this.failed(attempt, locked ? 'locked' : 'wrong-credentials');
    if (!locked || !verified.ok || !verified.member) return outcome;
    const { address, all } = attempt.failures ?? {};
    return { kind: 'fail', reason: 'locked', failUrl: attempt.failUrl, lockedUntil: Math.max(address?.lockedUntil ?? 0, all?.lockedUntil ?? 0) };
  }

  /** A suspended member with the right password: refused, and the attempt told. */
  private async recordSuspended(attempt: Attempt): Promise<LoginOutcome> {
    await this.records.recordLoginAttemptEvent(attempt.account.id, attempt.now, { ...attempt.events, outcome: 'suspended' });
    return this.failed(attempt, 'suspended');
  }

  /** The login counted (which may use up the member's allowance), a session handed out, an old hash upgraded. */
  private async recordSuccess(attempt: Attempt, member: Member): Promise<LoginOutcome> {
    const { account, command, now } = attempt;
    const session = randomBytes(24).toString('base64url');
    const recorded = await this.records.recordLogin(account.id, member.id, {
      login: command.login,
      at: now,
      ip: command.ip,
      sessionDigest: createHash('sha256').update(session).digest('hex'),
      remember: command.remember,
      throttleScope: attempt.scope,
      events: attempt.events,
    });
    if (recorded.kind === 'not-active') {
      // Something changed between reading the member and counting the login: a concurrent
      // login used up the allowance, an update suspended it. Answer from its state now.
      const current = await this.members.findMemberById(account.id, member.id);
      return this.failed(attempt, current && effectiveState(current, now).status === 'S' ? 'suspended' : 'wrong-credentials');
    }
    if (attempt.verified.source === 'local') await this.upgradeHash(account, member, command.password, attempt.share);
    return { kind: 'ok', session, okUrl: member.urlOk || account.settings.okUrl || '' };
  }

  /** The refusal, recorded with the attempt's address when the integrator sent one. */
  private async failed(attempt: Attempt, reason: FailReason): Promise<LoginOutcome> {
    const { account, command } = attempt;
    if (command.ip !== null) {
      const outcome: LoginEvent['outcome'] = reason;
      await this.records.recordLoginEvent(account.id, {
        memberId: attempt.verified.member?.id ?? null,
        login: command.login,
        ip: command.ip,
        at: attempt.now,
        outcome,
      });
    }
    return { kind: 'fail', reason, failUrl: attempt.failUrl };
  }

  /**
   * Whether the password is the member's own, for a member already signed in who confirms a
   * change with it (the member pages' password change and account deletion). Nothing is
   * recorded: the member is known, and its session is the credential that reached here.
   */
  confirmPassword(account: Account, member: Member, password: string, client?: string): Promise<boolean> {
    return this.passwords.verify(member.passwordHash, password, loginShare(account, client));
  }

  /** A member's failure counts and whether one of them locks it now (from some address, or from all). */
  async lockoutOf(account: Account, memberId: number): Promise<{ lockedUntil: number | null; counts: FailureCount[] }> {
    const now = this.clock();
    const counts = await this.records.listLoginFailures(account.id, memberId);
    const until = Math.max(0, ...counts.map((count) => count.lockedUntil));
    return { lockedUntil: until > now ? until : null, counts };
  }

  /** Ends a member's lock by forgetting its failure counts (`member.unlocked` when it was locked); answers how many there were. */
  async unlock(account: Account, memberId: number, origin: EventOrigin = { actor: 'operator' }): Promise<number> {
    const member = await this.members.findMemberById(account.id, memberId);
    return this.records.clearLoginFailures(account.id, memberId, member && { at: this.clock(), login: member.login, origin });
  }

  /** A member's recorded login attempts (those made with an `IP`), newest first. */
  recentLogins(account: Account, memberId: number, limit: number): Promise<LoginEvent[]> {
    return this.records.recentLoginEvents(account.id, memberId, limit);
  }

  /** A hash made with older parameters is replaced after a successful login. */
  private async upgradeHash(account: Account, member: Member, password: string, share: HashingShare): Promise<void> {
    if (!this.passwords.needsRehash(member.passwordHash)) return;
    await this.records.replacePasswordHash(account.id, member.id, member.passwordHash, await this.passwords.hash(password, share));
  }
}

/** A login's turn at the hashing gate: its account's (a name that is no account has one turn of its own) and its client's. */
export function loginShare(account: Pick<Account, 'id'> | undefined, client = ''): HashingShare {
  return { account: account ? String(account.id) : 'no-account', client };
}
