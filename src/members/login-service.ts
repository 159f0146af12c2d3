import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { addressScope } from '../auth/client-address.js';
import { countResetBefore, isLockedOut, lockedUntilAcrossAddresses, lockedUntilAfter } from '../auth/lockout.js';
import { PASSWORD_AT_UPSTREAM } from '../auth/legacy-hashes.js';
import type { PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { effectiveState } from './lifecycle.js';
import type { Member } from './member.js';
import type { FailureCount, LoginEvent, LoginRecords } from './login-records.js';
import type { MemberStore } from './member-store.js';
import type { EventOrigin } from '../events/event.js';

export interface LoginCommand {
  readonly login: string;
  readonly password: string;
  /** The member's address (canonical), sent by the integrator with its API key; recorded with the attempt. */
  readonly ip: string | null;
  /** Who asked (the request), for the events the attempt writes. */
  readonly origin?: EventOrigin;
}

export type LoginOutcome =
  { kind: 'ok'; session: string; okUrl: string } | { kind: 'fail'; reason: 'wrong-credentials' | 'suspended' | 'locked'; failUrl: string };

/** What the upstream said of a password: right, wrong, or nothing in time (a no). */
export type UpstreamCheck = 'ok' | 'fail' | 'unavailable';

/**
 * The service a linked account's members come from (upstream/), as the login needs it: it
 * checks the passwords of members whose password is still there, keeps them once right, and
 * may bring over a member it knows and this store does not.
 */
export interface UpstreamPasswords {
  /** The account's link, when it has one. */
  linkOf(account: Account): Promise<{ readonly captureUnknown: boolean } | undefined>;
  check(account: Account, login: string, password: string, ip: string | null): Promise<UpstreamCheck>;
  /** Keeps a password the upstream confirmed (its argon2id hash), clearing the member's mark. */
  capture(account: Account, memberId: number, hash: string): Promise<void>;
  /** Brings the member with this login over from the upstream; undefined when it has none. */
  bringOver(account: Account, login: string): Promise<Member | undefined>;
}

/** The failure counts of logins that name no member (or a Deleted one) are kept under this id. */
const NO_MEMBER = 0;

/**
 * /login/: checks a member's password and counts the login.
 *
 * Every failed attempt does the same work, whether the login names a member or not: one
 * read of the member, one of its failure counts, one password verification (against a dummy
 * hash when there is no member), one write of the failure counts. So an unknown login, a
 * wrong password, a Deleted member and a locked one take the same time.
 *
 * While the account is linked to an upstream, a password this store cannot confirm is asked
 * there: for a member whose password is still there, that is the check (and a right
 * password is kept here); for any other failure it is only so that every failure waits for
 * the upstream alike, and its answer is not used (except, with `captureUnknown`, to bring
 * over a member the upstream knows and this store does not).
 */
export class LoginService {
  /** Verified against when there is no member, made at start so the first attempt costs the same. */
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly members: Pick<MemberStore, 'findMemberByLogin' | 'findMemberById'>,
    private readonly records: LoginRecords,
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
    private readonly upstream?: UpstreamPasswords,
  ) {
    this.dummyHash = passwords.hash(randomBytes(16).toString('hex'));
  }

  async login(account: Account | undefined, command: LoginCommand): Promise<LoginOutcome> {
    const now = this.clock();
    const found = account && (await this.members.findMemberByLogin(account.id, command.login));
    // A Deleted member is no member: it is answered, and counted, as an unknown login.
    let member = found && effectiveState(found, now).status !== 'D' ? found : undefined;
    const subject = member?.id ?? NO_MEMBER;
    const scope = addressScope(command.ip);
    const failures = account && (await this.records.findLoginFailures(account.id, subject, scope));
    let atUpstream = member?.passwordHash === PASSWORD_AT_UPSTREAM;
    // The mark matches no password; the dummy hash costs what a real one does.
    const localOk = await this.passwords.verify(member && !atUpstream ? member.passwordHash : await this.dummyHash, command.password);
    const link = account && !localOk && this.upstream ? await this.upstream.linkOf(account) : undefined;
    const upstream = account && link ? await this.upstream!.check(account, command.login, command.password, command.ip) : undefined;
    let passwordOk = atUpstream ? upstream === 'ok' : localOk;
    // A member brought over now has no failures of its own (those read were of unknown logins).
    let broughtOver = false;
    if (account && !found && upstream === 'ok' && link?.captureUnknown) {
      member = await this.upstream!.bringOver(account, command.login);
      atUpstream = broughtOver = member !== undefined;
      passwordOk = atUpstream;
    }
    const failUrl = found?.urlFail || account?.settings.failUrl || '';
    // The events the attempt writes: member.login when the account asks for them, and what
    // the attempt changes (a lock, a login allowance used up).
    const events = account && {
      member: member && { id: member.id, login: member.login },
      login: command.login,
      ip: command.ip,
      origin: command.origin ?? { actor: 'api' as const },
      loginEvent: account.settings.loginEvents,
    };
    const fail = async (reason: 'wrong-credentials' | 'suspended' | 'locked', outcome: LoginEvent['outcome'] = reason): Promise<LoginOutcome> => {
      if (account && command.ip !== null) {
        await this.records.recordLoginEvent(account.id, { memberId: member?.id ?? null, login: command.login, ip: command.ip, at: now, outcome });
      }
      return { kind: 'fail', reason, failUrl };
    };
    if (!account) return fail('wrong-credentials');

    const locked = member !== undefined && !broughtOver && isLockedOut(failures, now);
    if (!member || locked || !passwordOk) {
      const policy = account.settings.lockout;
      await this.records.recordLoginFailure(account.id, subject, scope, {
        at: now,
        resetBefore: countResetBefore(now, policy),
        // A right password while locked is not a failure, but it costs the same.
        counted: !passwordOk || !member,
        lockUntil: (count, n) => (count === 'all' ? lockedUntilAcrossAddresses(n, now, policy) : lockedUntilAfter(n, now, policy)),
        events: events && { ...events, outcome: locked ? 'locked' : 'fail' },
      });
      return fail(locked ? 'locked' : 'wrong-credentials');
    }
    // A password the upstream confirmed is kept, whatever the member's state here.
    if (atUpstream) await this.upstream!.capture(account, member.id, await this.passwords.hash(command.password));
    if (effectiveState(member, now).status === 'S') {
      await this.records.recordLoginAttemptEvent(account.id, now, { ...events!, outcome: 'suspended' });
      return fail('suspended');
    }

    const session = randomBytes(24).toString('base64url');
    const recorded = await this.records.recordLogin(account.id, member.id, {
      login: command.login,
      at: now,
      ip: command.ip,
      sessionDigest: createHash('sha256').update(session).digest('hex'),
      throttleScope: scope,
      events,
    });
    if (recorded.kind === 'not-active') {
      // Something changed between reading the member and counting the login: a concurrent
      // login used up the allowance, an update suspended it. Answer from its state now.
      const current = await this.members.findMemberById(account.id, member.id);
      const status = current ? effectiveState(current, now).status : 'D';
      return fail(status === 'S' ? 'suspended' : 'wrong-credentials');
    }
    if (!atUpstream) await this.upgradeHash(account, member, command.password);
    return { kind: 'ok', session, okUrl: member.urlOk || account.settings.okUrl || '' };
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
  private async upgradeHash(account: Account, member: Member, password: string): Promise<void> {
    if (!this.passwords.needsRehash(member.passwordHash)) return;
    await this.records.replacePasswordHash(account.id, member.id, member.passwordHash, await this.passwords.hash(password));
  }
}
