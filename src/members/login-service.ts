import { createHash, randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { countResetBefore, isLocked, lockedUntilAfter } from '../auth/lockout.js';
import type { PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { effectiveState } from './lifecycle.js';
import type { Member } from './member.js';
import type { LoginEvent, MemberStore } from './member-store.js';

export interface LoginCommand {
  readonly login: string;
  readonly password: string;
  /** The member's address, sent by the integrator with its API key; recorded with the attempt. */
  readonly ip: string | null;
}

export type LoginOutcome =
  | { kind: 'ok'; session: string; okUrl: string }
  | { kind: 'fail'; reason: 'wrong-credentials' | 'suspended' | 'locked'; failUrl: string };

/**
 * /login/: checks a member's password and counts the login.
 *
 * Every attempt costs one password verification, against a dummy hash when there is no such
 * member, so an unknown login, a wrong password and a deleted member take about the same time.
 */
export class LoginService {
  /** Verified against when there is no member, made at start so the first attempt costs the same. */
  private readonly dummyHash: Promise<string>;

  constructor(
    private readonly store: MemberStore,
    private readonly passwords: PasswordHasher,
    private readonly clock: Clock,
  ) {
    this.dummyHash = passwords.hash(randomBytes(16).toString('hex'));
  }

  async login(account: Account | undefined, command: LoginCommand): Promise<LoginOutcome> {
    const now = this.clock();
    const member = account && (await this.store.findMemberByLogin(account.id, command.login));
    const throttleIp = command.ip ?? '';
    const throttle = account && member ? await this.store.findThrottle(account.id, member.id, throttleIp) : undefined;
    const passwordOk = await this.passwords.verify(member?.passwordHash ?? (await this.dummyHash), command.password);
    const failUrl = member?.urlFail || account?.settings.failUrl || '';
    const fail = async (reason: 'wrong-credentials' | 'suspended' | 'locked', outcome: LoginEvent['outcome'] = reason): Promise<LoginOutcome> => {
      if (account && command.ip !== null) {
        await this.store.recordLoginEvent(account.id, { memberId: member?.id ?? null, login: command.login, ip: command.ip, at: now, outcome });
      }
      return { kind: 'fail', reason, failUrl };
    };

    if (!account || !member || effectiveState(member, now).status === 'D') return fail('wrong-credentials');
    if (isLocked(throttle, now)) return fail('locked');
    if (!passwordOk) {
      const policy = account.settings.lockout;
      await this.store.recordLoginFailure(account.id, member.id, throttleIp, now, countResetBefore(now, policy), (failures) =>
        lockedUntilAfter(failures, now, policy),
      );
      return fail('wrong-credentials');
    }
    if (effectiveState(member, now).status === 'S') return fail('suspended');

    const session = randomBytes(24).toString('base64url');
    const recorded = await this.store.recordLogin(account.id, member.id, {
      login: command.login,
      at: now,
      ip: command.ip,
      sessionDigest: createHash('sha256').update(session).digest('hex'),
      throttleIp,
    });
    if (recorded.kind === 'not-active') {
      // Something changed between reading the member and counting the login: a concurrent
      // login used up the allowance, an update suspended it. Answer from its state now.
      const current = await this.store.findMemberById(account.id, member.id);
      const status = current ? effectiveState(current, now).status : 'D';
      return fail(status === 'S' ? 'suspended' : 'wrong-credentials');
    }
    await this.upgradeHash(account, member, command.password);
    return { kind: 'ok', session, okUrl: member.urlOk || account.settings.okUrl || '' };
  }

  /** A hash made with older parameters is replaced after a successful login. */
  private async upgradeHash(account: Account, member: Member, password: string): Promise<void> {
    if (!this.passwords.needsRehash(member.passwordHash)) return;
    await this.store.replacePasswordHash(account.id, member.id, member.passwordHash, await this.passwords.hash(password));
  }
}
