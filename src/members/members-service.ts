import type { Account } from '../accounts/account.js';
import { generatePassword, type PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { addPeriods, dayStart, effectiveState, type PeriodUnit } from './lifecycle.js';
import type { ExpiryAction, LoginExpiry, MemberStatus, TimeExpiry } from './member.js';
import type { MemberFilters, MemberSelector, MemberStore, MemberUpdate } from './member-store.js';
import { columnsFor, createRecordRenderer, profileFieldsOf, type RecordField } from './record-template.js';
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

/** A validated /update/ request; absent fields stay as they are. */
export interface UpdateMembersCommand {
  readonly selector: MemberSelector;
  readonly login?: string;
  readonly email?: string;
  readonly password?: string;
  readonly urlOk?: string | null;
  readonly urlFail?: string | null;
  readonly status?: MemberStatus;
  /** Null clears it; a period starts now. */
  readonly timeExpiry?: { action: ExpiryAction; count: number; unit: PeriodUnit } | null;
  /** Null clears it; the allowance counts logins from now. */
  readonly loginExpiry?: { action: ExpiryAction; count: number } | null;
  readonly deleteFields: readonly string[];
  readonly setFields: ReadonlyMap<string, string>;
}

export type UpdateMembersOutcome = MemberUpdate | { kind: 'expiry-out-of-range' };

/** A validated /list/ request; days and durations are resolved against the account and now. */
export interface ListMembersCommand {
  readonly record: readonly RecordField[];
  readonly filters: Omit<MemberFilters, 'registeredFrom' | 'registeredBefore' | 'deletedFrom'>;
  /** `YYYY-MM-DD`: registered on a later day, in the account's time zone. */
  readonly registerAfter?: string;
  /** `YYYY-MM-DD`: registered on an earlier day, in the account's time zone. */
  readonly registerBefore?: string;
  readonly registeredWithinSeconds?: number;
  readonly deletedWithinSeconds?: number;
  readonly limit: number | null;
}

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

  async update(account: Account, command: UpdateMembersCommand): Promise<UpdateMembersOutcome> {
    const now = this.clock();
    let timeExpiry: TimeExpiry | null | undefined;
    if (command.timeExpiry) {
      const at = addPeriods(now, command.timeExpiry.count, command.timeExpiry.unit, account.settings.timeZone);
      if (at === undefined) return { kind: 'expiry-out-of-range' };
      timeExpiry = { action: command.timeExpiry.action, at };
    } else {
      timeExpiry = command.timeExpiry;
    }
    const loginExpiry: LoginExpiry | null | undefined = command.loginExpiry && { action: command.loginExpiry.action, left: command.loginExpiry.count };
    // Hashed once, whatever the number of members: they all get the same password.
    const passwordHash = command.password === undefined ? undefined : await this.passwords.hash(command.password);
    return this.store.updateMembers(
      account.id,
      command.selector,
      {
        login: command.login,
        email: command.email,
        passwordHash,
        urlOk: command.urlOk,
        urlFail: command.urlFail,
        status: command.status,
        timeExpiry,
        loginExpiry,
        deleteFields: command.deleteFields,
        setFields: command.setFields,
      },
      now,
    );
  }

  /**
   * Lists members: `consume` gets the rendered records in chunks, read from a store cursor
   * (each chunk is JSON object texts joined by commas), and after them `total()`, the number
   * of members the filters match.
   */
  async list(
    account: Account,
    command: ListMembersCommand,
    consume: (records: AsyncIterable<string>, total: () => Promise<number>) => Promise<void>,
  ): Promise<void> {
    const now = this.clock();
    const { timeZone } = account.settings;
    const since = (seconds: number | undefined) => (seconds === undefined ? undefined : now - seconds * 1000);
    const laterOf = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
    const filters: MemberFilters = {
      ...command.filters,
      registeredFrom: laterOf(
        command.registerAfter === undefined ? undefined : dayStart(command.registerAfter, timeZone, 1),
        since(command.registeredWithinSeconds),
      ),
      registeredBefore: command.registerBefore === undefined ? undefined : dayStart(command.registerBefore, timeZone),
      deletedFrom: since(command.deletedWithinSeconds),
    };
    const render = createRecordRenderer(command.record, timeZone);
    const query = { columns: columnsFor(command.record), profileFields: profileFieldsOf(command.record), filters, limit: command.limit };
    await this.store.listMembers(account.id, query, now, (listing) => consume(renderAll(listing.rows, render), listing.total));
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

/** Each chunk of rows as one text, so that a long list makes as little garbage as it can. */
async function* renderAll<R>(rows: AsyncIterable<R[]>, render: (row: R) => string): AsyncIterable<string> {
  for await (const chunk of rows) {
    if (chunk.length === 0) continue;
    let text = render(chunk[0]!);
    for (let i = 1; i < chunk.length; i++) text += `,${render(chunk[i]!)}`;
    yield text;
  }
}
