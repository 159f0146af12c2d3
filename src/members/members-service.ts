import type { Account } from '../accounts/account.js';
import { generatePassword, type PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { addPeriods, effectiveState, type PeriodUnit } from './lifecycle.js';
import type { ExpiryAction } from './member.js';
import type { MemberStore } from './member-store.js';
import type { VerifyLinks } from './verify-link.js';

/** A validated /create/ request. */
export interface CreateMemberCommand {
  readonly login: string;
  readonly email: string;
  /** Null: generate one. */
  readonly password: string | null;
  readonly urlOk: string | null;
  readonly urlFail: string | null;
  readonly timeExpiry: { action: ExpiryAction; count: number; unit: PeriodUnit } | null;
  readonly loginExpiry: { action: ExpiryAction; count: number } | null;
  readonly ip: string | null;
  readonly profile: ReadonlyMap<string, string>;
}

export type CreateMemberOutcome =
  | { kind: 'created'; id: number; login: string; password: string; verifyUrl: string }
  | { kind: 'login-taken' }
  /** The expiration period ends past the year 9999. */
  | { kind: 'expiry-out-of-range' };

export type VerifyEmailOutcome = 'verified' | 'not-found' | 'bad-code';

export class MembersService {
  constructor(
    private readonly store: MemberStore,
    private readonly passwords: PasswordHasher,
    private readonly verifyLinks: VerifyLinks,
    private readonly clock: Clock,
  ) {}

  async create(account: Account, command: CreateMemberCommand): Promise<CreateMemberOutcome> {
    const now = this.clock();
    let expiresAt: number | undefined;
    if (command.timeExpiry) {
      expiresAt = addPeriods(now, command.timeExpiry.count, command.timeExpiry.unit, account.settings.timeZone);
      if (expiresAt === undefined) return { kind: 'expiry-out-of-range' };
    }
    // A taken login is refused before the costly hash; the unique index still decides races.
    if (await this.store.loginTaken(account.id, command.login)) return { kind: 'login-taken' };
    const password = command.password ?? generatePassword();
    const inserted = await this.store.insertMember(account.id, {
      login: command.login,
      email: command.email,
      passwordHash: await this.passwords.hash(password),
      status: 'A',
      regType: 'A',
      regAt: now,
      regIp: command.ip,
      urlOk: command.urlOk,
      urlFail: command.urlFail,
      timeExpiry: command.timeExpiry && expiresAt !== undefined ? { action: command.timeExpiry.action, at: expiresAt } : null,
      loginExpiry: command.loginExpiry && { action: command.loginExpiry.action, left: command.loginExpiry.count },
      profile: command.profile,
    });
    if (inserted.kind === 'login-taken') return inserted;
    return {
      kind: 'created',
      id: inserted.id,
      login: command.login,
      password,
      verifyUrl: this.verifyLinks.url(account.name, inserted.id, command.login),
    };
  }

  /** Opens a verify link: marks the member's e-mail verified when the code is right. */
  async verifyEmail(account: Account | undefined, memberId: number, login: string, code: string): Promise<VerifyEmailOutcome> {
    const now = this.clock();
    const member = account && (await this.store.findMemberById(account.id, memberId));
    if (!account || !member || effectiveState(member, now).status === 'D' || member.login !== login) return 'not-found';
    if (!this.verifyLinks.matches(account.name, memberId, login, code)) return 'bad-code';
    return (await this.store.markEmailVerified(account.id, memberId, now)) ? 'verified' : 'not-found';
  }
}
