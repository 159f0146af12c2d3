import type { Account } from '../accounts/account.js';
import { UniqueViolation } from '../common/store-errors.js';
import { generatePassword, type PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { addPeriods, dayStart, effectiveState, type CalendarDay, type EffectiveState, type PeriodUnit } from './lifecycle.js';
import { foldKey, type ExpiryAction, type LoginExpiry, type Member, type MemberStatus, type TimeExpiry } from './member.js';
import type { MemberFilters, MemberPage, MemberPageQuery, MemberSelector, MemberStore, MemberUpdate, Selection } from './member-store.js';
import { createRecordRenderer, type RecordField } from './record-template.js';
import { MAX_UPDATE_PROFILE_BYTES } from './fields.js';
import type { VerifyLinks } from './verify-link.js';
import type { EventOrigin } from '../events/event.js';
import type { MailRequest } from '../mail/mail.js';
import { countQuietly, type ActivityCounter } from '../accounts/overview.js';

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
  /** Queue the welcome mail (when the account has a mail server). */
  readonly sendWelcome?: boolean;
  /**
   * A visitor registering on the member pages: reg_type Free, `member.registered`, and when
   * it waits for approval, Suspended with a mail to these operators (not the welcome mail).
   */
  readonly registration?: {
    readonly approval: boolean;
    readonly operators: readonly string[];
    readonly approveUrl: string;
    /** The language of the page: the member's mails (now, or at the decision) are in it. */
    readonly language?: string;
  };
  /** The address scope of the client that asked (a visitor registering): its fair turn at hashing. */
  readonly client?: string;
}

export type CreateMemberOutcome =
  | { kind: 'created'; id: number; login: string; email: string; password: string; verifyUrl: string }
  | { kind: 'login-taken' }
  /** The account would hold more profile data than its storage quota. */
  | { kind: 'over-quota' }
  /** The expiration period ends past the year 9999. */
  | { kind: 'expiry-out-of-range' };

export type VerifyEmailOutcome = 'verified' | 'invalid';

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
  /** End the matched members' sessions. */
  readonly revokeSessions?: boolean;
  /** A mail to each member changed, queued with the change (when the account has a mail server). */
  readonly mail?: MailRequest;
  /** Suspended at this instant (an operator's grant of access until a date); takes the place of `timeExpiry`. */
  readonly suspendAt?: number;
  /** Manual: an operator's grant of access without payment. */
  readonly regType?: 'M';
}

/** Whether an update asks for any change at all (a selector alone is "nothing to change"). */
export function changesSomething(command: Omit<UpdateMembersCommand, 'selector'>): boolean {
  return (
    Object.entries(command).some(([key, value]) => key !== 'selector' && key !== 'deleteFields' && key !== 'setFields' && value !== undefined) ||
    command.deleteFields.length > 0 ||
    command.setFields.size > 0
  );
}

export type UpdateMembersOutcome = MemberUpdate | { kind: 'login-taken' } | { kind: 'expiry-out-of-range' };

/** A list as the API writes it: each chunk of members as JSON texts joined by commas, then the total. */
export interface RenderedListing extends AsyncIterable<string> {
  /** Known once every chunk has been read. */
  readonly total: number;
}

/** A validated /list/ request; days and durations are resolved against the account and now. */
export interface ListMembersCommand {
  readonly record: readonly RecordField[];
  readonly filters: Omit<MemberFilters, 'registeredFrom' | 'registeredBefore' | 'deletedFrom'>;
  /** Registered on a later day, in the account's time zone. */
  readonly registerAfter?: CalendarDay;
  /** Registered on an earlier day, in the account's time zone. */
  readonly registerBefore?: CalendarDay;
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
    /** Counts each registration for the console's overview. */
    private readonly activity: ActivityCounter,
  ) {}

  async create(account: Account, command: CreateMemberCommand, origin: EventOrigin): Promise<CreateMemberOutcome> {
    const now = this.clock();
    let expiresAt: number | undefined;
    if (command.timeExpiry) {
      expiresAt = addPeriods(now, command.timeExpiry.count, command.timeExpiry.unit, account.settings.timeZone);
      if (expiresAt === undefined) return { kind: 'expiry-out-of-range' };
    }
    // A taken login is refused before the costly hash; the unique index still decides races.
    if (await this.store.loginTaken(account.id, command.login)) return { kind: 'login-taken' };
    if (command.profile.size > 0 && (await this.storageLeft(account)) < profileBytes(command.profile.values())) return { kind: 'over-quota' };
    const password = command.password ?? generatePassword();
    const { registration } = command;
    let id: number;
    try {
      id = await this.store.insertMember(
        account.id,
        {
          login: command.login,
          email: command.email,
          passwordHash: await this.passwords.hash(password, { account: String(account.id), client: command.client ?? '' }),
          status: registration?.approval ? 'S' : 'A',
          regType: registration ? 'F' : 'A',
          regAt: now,
          regIp: command.ip,
          urlOk: command.urlOk,
          urlFail: command.urlFail,
          timeExpiry: command.timeExpiry && expiresAt !== undefined ? { action: command.timeExpiry.action, at: expiresAt } : null,
          loginExpiry: command.loginExpiry && { action: command.loginExpiry.action, left: command.loginExpiry.count },
          profile: command.profile,
        },
        origin,
        this.createMail(account, command),
        registration && { approval: registration.approval, language: registration.language },
      );
    } catch (error) {
      // Taken meanwhile: the unique index decided a race.
      if (error instanceof UniqueViolation) return { kind: 'login-taken' };
      throw error;
    }
    await countQuietly(this.activity, account.id, 'registered', now);
    return {
      kind: 'created',
      id,
      login: command.login,
      email: command.email,
      password,
      verifyUrl: this.verifyLinks.url(account.name, id, command.login, command.email),
    };
  }

  /** The mail a new member's creation queues, if any (none without a mail server). */
  private createMail(account: Account, command: CreateMemberCommand): MailRequest | undefined {
    if (account.settings.smtpUrl === '') return undefined;
    const { registration } = command;
    if (registration?.approval) {
      if (registration.operators.length === 0) return undefined;
      return { kind: 'registered', vars: { to: registration.operators.join(','), approve_url: registration.approveUrl } };
    }
    // A member without an address (the hosted original allowed it) gets no mail.
    if (!command.sendWelcome || command.email === '') return undefined;
    return registration?.language ? { kind: 'welcome', vars: { language: registration.language } } : { kind: 'welcome' };
  }

  async update(account: Account, command: UpdateMembersCommand, origin: EventOrigin): Promise<UpdateMembersOutcome> {
    const now = this.clock();
    let timeExpiry: TimeExpiry | null | undefined;
    if (command.timeExpiry) {
      const at = addPeriods(now, command.timeExpiry.count, command.timeExpiry.unit, account.settings.timeZone);
      if (at === undefined) return { kind: 'expiry-out-of-range' };
      timeExpiry = { action: command.timeExpiry.action, at };
    } else {
      timeExpiry = command.suspendAt === undefined ? command.timeExpiry : { action: 'S', at: command.suspendAt };
    }
    const loginExpiry: LoginExpiry | null | undefined = command.loginExpiry && { action: command.loginExpiry.action, left: command.loginExpiry.count };
    // Hashed once, whatever the number of members: they all get the same password.
    const passwordHash = command.password === undefined ? undefined : await this.passwords.hash(command.password, { account: String(account.id), client: '' });
    try {
      return await this.store.updateMembers(
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
          revokeSessions: command.revokeSessions,
          mail: account.settings.smtpUrl === '' ? undefined : command.mail,
          regType: command.regType,
        },
        now,
        {
          maxProfileBytes: MAX_UPDATE_PROFILE_BYTES,
          storageQuota: account.settings.storageQuotaMb * 1024 * 1024,
        },
        origin,
      );
    } catch (error) {
      // A new login another member holds.
      if (error instanceof UniqueViolation) return { kind: 'login-taken' };
      throw error;
    }
  }

  /** One member by login (in any state), with its profile fields and its state now. */
  async findOne(account: Account, login: string): Promise<{ member: Member; profile: Map<string, string>; state: EffectiveState } | undefined> {
    const member = await this.store.findMemberByLogin(account.id, login);
    if (!member) return undefined;
    return { member, profile: await this.store.findProfile(account.id, member.id), state: effectiveState(member, this.clock()) };
  }

  /** The one member a selector finds that is not Deleted; or that there is none, or several. */
  async findSelected(account: Account, selector: MemberSelector): Promise<{ kind: 'found'; member: Member } | { kind: 'not-found' } | { kind: 'several' }> {
    const found = await this.findLive(account, selector, 2);
    if (found.length === 0) return { kind: 'not-found' };
    if (found.length > 1) return { kind: 'several' };
    return { kind: 'found', member: found[0]! };
  }

  /** At most `limit` members a selector finds that are not Deleted (of the first `limit` + 8 found in any state). */
  async findLive(account: Account, selector: MemberSelector, limit: number): Promise<Member[]> {
    const now = this.clock();
    const found = await this.store.findMembers(account.id, selector, limit + 8);
    return found.filter((member) => effectiveState(member, now).status !== 'D').slice(0, limit);
  }

  /**
   * The members a search's words name exactly: the member whose login they are, then those
   * whose address they are (at most `limit`, none Deleted): what the console's search shows
   * first, and opens when there is one.
   */
  async exactMatches(account: Account, text: string, limit = 5): Promise<Member[]> {
    const [byLogin, byAddress] = await Promise.all([
      this.store.findMemberByLogin(account.id, text),
      text.includes('@') ? this.findLive(account, { by: 'email', email: text }, limit) : Promise.resolve([]),
    ]);
    const named = byLogin && effectiveState(byLogin, this.clock()).status !== 'D' ? [byLogin] : [];
    return [...named, ...byAddress.filter((member) => member.id !== byLogin?.id)].slice(0, limit);
  }

  /**
   * The members whose login or address begins with the search's words (not the `exact` ones,
   * none Deleted), at most `limit`, logins first: what the console's search shows after the
   * exact matches. Each look-up is one range of an index, bounded by `limit`.
   */
  async prefixMatches(account: Account, text: string, exact: readonly Member[], limit = 10): Promise<Member[]> {
    if (text === '') return [];
    const now = this.clock();
    const [byLogin, byAddress] = await Promise.all([
      this.store.findMembersStartingWith(account.id, 'login_key', text, limit + exact.length + 8),
      this.store.findMembersStartingWith(account.id, 'email_key', text, limit + exact.length + 8),
    ]);
    const seen = new Set(exact.map((member) => member.id));
    const found: Member[] = [];
    for (const member of [...byLogin, ...byAddress]) {
      if (seen.has(member.id) || effectiveState(member, now).status === 'D') continue;
      seen.add(member.id);
      found.push(member);
    }
    return found.slice(0, limit);
  }

  /**
   * What a registration on the member pages may not take: a login another member holds, an
   * address another member has (not Deleted), told together so the page says every problem at
   * once. The API's /create/ takes shared addresses, as the seed's does.
   */
  async registrationConflicts(account: Account, login: string, email: string): Promise<{ login: boolean; email: boolean }> {
    const [loginTaken, byAddress] = await Promise.all([
      login === '' ? false : this.store.loginTaken(account.id, login),
      email === '' ? undefined : this.findSelected(account, { by: 'email', email }),
    ]);
    return { login: loginTaken, email: byAddress !== undefined && byAddress.kind !== 'not-found' };
  }

  /**
   * The login a sign-in page's "login or e-mail address" stands for: a member's login as it
   * is; else an address exactly one member of the account has (not Deleted), as that member's
   * login; `shared` for an address several members have (none of them signs in with it). Both
   * look-ups are made for anything with an `@`, found or not, so the answer's time does not
   * tell which matched. The API's /login/ takes logins only (the seed's).
   */
  async signInLogin(account: Account, identifier: string): Promise<{ kind: 'login'; login: string } | { kind: 'shared' }> {
    if (!identifier.includes('@')) return { kind: 'login', login: identifier };
    // The member whose login it is comes first; then those whose address it is.
    const [first, second] = await this.exactMatches(account, identifier, 2);
    if (!first || foldKey(first.login) === foldKey(identifier)) return { kind: 'login', login: identifier };
    return second ? { kind: 'shared' } : { kind: 'login', login: first.login };
  }

  /** An operator marks the member's current address verified (`member.verified`); false when there is no such member, or it is Deleted. */
  async markVerified(account: Account, id: number, origin: EventOrigin): Promise<boolean> {
    const member = await this.store.findMemberById(account.id, id);
    if (!member || effectiveState(member, this.clock()).status === 'D') return false;
    return this.store.markEmailVerified(account.id, id, member.email, this.clock(), origin);
  }

  /** The registrations awaiting approval (their members Suspended), the oldest `limit` with their profiles, and how many in all. */
  async pendingRegistrations(account: Account, limit: number): Promise<{ members: Array<{ member: Member; profile: Map<string, string> }>; total: number }> {
    const { ids, total } = await this.store.pendingRegistrations(account.id, limit);
    const members = await Promise.all(
      ids.map(async (id) => ({ member: await this.store.findMemberById(account.id, id), profile: await this.store.findProfile(account.id, id) })),
    );
    return { members: members.filter((entry): entry is { member: Member; profile: Map<string, string> } => entry.member !== undefined), total };
  }

  /**
   * An operator's decision on a registration awaiting approval: approved, Active with the
   * welcome mail; refused, Deleted (with the refused mail when `tell`). The queue's row is taken
   * first, so of two decisions (two operators, a double click) one is made.
   */
  async decideRegistration(
    account: Account,
    id: number,
    decision: { approve: boolean; tell: boolean },
    origin: EventOrigin,
  ): Promise<'decided' | 'not-waiting'> {
    const member = await this.store.findMemberById(account.id, id);
    if (!member || effectiveState(member, this.clock()).status !== 'S') return 'not-waiting';
    const taken = await this.store.takePendingRegistration(account.id, id);
    if (!taken) return 'not-waiting';
    // In the language of the page the registration was made on.
    const vars = taken.language === '' ? undefined : { language: taken.language };
    const mail: MailRequest | undefined = decision.approve ? { kind: 'welcome', vars } : decision.tell ? { kind: 'refused', vars } : undefined;
    await this.update(account, { selector: { by: 'id', id }, status: decision.approve ? 'A' : 'D', setFields: new Map(), deleteFields: [], mail }, origin);
    return 'decided';
  }

  /** How many members an update with this selector would change now (`dry_run=1`), and the sum of their ids (a bulk preview binds its confirmation to it). */
  countSelected(account: Account, selector: MemberSelector): Promise<Selection> {
    return this.store.countSelected(account.id, selector);
  }

  /**
   * A member's own deletion: erased, not the restorable Deleted of an operator's or the API's
   * `status=D` (what stays is said in docs/security.md). False when there is no such member.
   */
  async erase(account: Account, id: number, origin: EventOrigin): Promise<boolean> {
    return (await this.store.eraseMember(account.id, id, this.clock(), origin)) !== undefined;
  }

  /** One member by id (in any state). */
  byId(account: Account, id: number): Promise<Member | undefined> {
    return this.store.findMemberById(account.id, id);
  }

  /** A member's profile fields. */
  profileOf(account: Account, id: number): Promise<Map<string, string>> {
    return this.store.findProfile(account.id, id);
  }

  /** A page of the account's members (the console's members page), by keyset. */
  pageMembers(account: Account, query: MemberPageQuery): Promise<MemberPage> {
    return this.store.pageMembers(account.id, query, this.clock());
  }

  /** What the account's storage quota has left, in bytes of profile values. */
  private async storageLeft(account: Account): Promise<number> {
    return account.settings.storageQuotaMb * 1024 * 1024 - (await this.store.profileBytes(account.id));
  }

  /**
   * Lists members: the rendered records in chunks (each chunk JSON object texts joined by
   * commas), read from a store cursor in one snapshot that opens at the first read; after
   * them, `total`, the number of members the filters match.
   */
  list(account: Account, command: ListMembersCommand): RenderedListing {
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
    const listing = this.store.listMembers(account.id, { record: command.record, filters, limit: command.limit }, now);
    return {
      [Symbol.asyncIterator]: () => renderAll(listing, render)[Symbol.asyncIterator](),
      get total() {
        return listing.total;
      },
    };
  }

  /**
   * Opens a verify link: marks the member's e-mail verified when the link is right for the
   * member as it is now (its login, and the address the link was made for). The code binds the
   * address, so the member is read first; every bad link (a wrong code, an unknown account or
   * member, a changed login or address, a Deleted member) is the same 'invalid', after the
   * same MAC work.
   */
  async verifyEmail(
    accountName: string,
    memberId: number,
    login: string,
    code: string,
    findAccount: (name: string) => Promise<Account | undefined>,
    origin: EventOrigin,
  ): Promise<VerifyEmailOutcome> {
    const now = this.clock();
    const account = await findAccount(accountName);
    const member = account && (await this.store.findMemberById(account.id, memberId));
    const matches = this.verifyLinks.matches(accountName, memberId, login, member?.email ?? '', code);
    if (!matches || !account || !member || effectiveState(member, now).status === 'D' || member.login !== login) return 'invalid';
    return (await this.store.markEmailVerified(account.id, memberId, member.email, now, origin)) ? 'verified' : 'invalid';
  }
}

function profileBytes(values: Iterable<string>): number {
  let bytes = 0;
  for (const value of values) bytes += Buffer.byteLength(value);
  return bytes;
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
