/**
 * Paid memberships as a service: the providers' notifications received and applied (once, in
 * any order; a notice no member matches yet is kept and applied when one does), checkouts
 * started and their outcome, the customer portal, the account's connection and plans, and an
 * operator's grant of access without payment. Every change to a member goes through the
 * members' own update (in the store's transaction for a notice: store/billing-repository.ts).
 */
import { dayStart, type CalendarDay } from '../members/lifecycle.js';
import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import { generatePassword, type PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import type { EventOrigin } from '../events/event.js';
import type { Member, NewMember } from '../members/member.js';
import type { MembersService } from '../members/members-service.js';
import type { Applied, BillingRecord, BillingStore, Checkout } from './billing-store.js';
import {
  makesMember,
  paidMember,
  ProviderUnavailable,
  type BillingNotice,
  type BillingProvider,
  type BillingSettings,
  type HostedCheckout,
  type MemberBilling,
  type Plan,
  type ProviderName,
  type ProviderRequest,
} from './billing.js';

/** Kept notices applied at once when their member appears (more wait for the next). */
const PENDING_BATCH = 100;

/** Kept notices the billing job looks at per round, so that a round's work is bounded however many wait. */
const KEPT_WINDOW = 500;

/** How long an account's settings and plans read for its notices are used again. */
const RECENT_MS = 1_000;

/** What an account's notices are read and applied with. */
interface Connection {
  readonly settings: BillingSettings;
  readonly plans: Plan[];
}

/** A checkout's confirmation page signs in within this long of the checkout. */
export const CHECKOUT_SIGN_IN_MS = 60 * 60 * 1000;

export class BillingService {
  /** Where the billing job's look at the kept notices has got to (a notice's id; 0: the start). */
  private keptCursor = 0;
  /** Each account's settings and plans as read for its notices, for a second (see connection). */
  private readonly recent = new Map<number, { at: number; connection: Promise<Connection> }>();

  constructor(
    private readonly store: BillingStore,
    private readonly providers: Readonly<Record<ProviderName, BillingProvider>>,
    private readonly hosted: HostedCheckout,
    private readonly members: MembersService,
    private readonly passwords: PasswordHasher,
    /** Mails a member made from a payment a link to choose its password. */
    private readonly welcome: (account: Account, login: string) => Promise<void>,
    private readonly clock: Clock,
    /** The base of the links handed to the provider (PUBLIC_URL, or the address the server learnt), never a request's Host. */
    private readonly linkBase: () => string,
    private readonly accountById: (id: number) => Promise<Account | undefined>,
  ) {}

  /** An address of the account's member pages, for the provider to send the browser back to. */
  private pagesUrl(account: Account, path: string): string {
    return `${this.linkBase()}/auth/${encodeURIComponent(account.name)}/${path}`;
  }

  settings(account: Account): Promise<BillingSettings> {
    return this.store.settings(account.id);
  }

  setSettings(account: Account, settings: BillingSettings): Promise<void> {
    return this.changing(account, () => this.store.setSettings(account.id, settings, this.clock()));
  }

  plans(account: Account): Promise<Plan[]> {
    return this.store.plans(account.id);
  }

  addPlan(account: Account, plan: Omit<Plan, 'createdAt'>): Promise<boolean> {
    return this.changing(account, () => this.store.addPlan(account.id, { ...plan, createdAt: this.clock() }));
  }

  removePlan(account: Account, name: string): Promise<boolean> {
    return this.changing(account, () => this.store.removePlan(account.id, name));
  }

  /** A change of the account's settings or plans: what was read of them is forgotten before and after it (a read begun meanwhile is not kept). */
  private async changing<T>(account: Account, write: () => Promise<T>): Promise<T> {
    this.recent.delete(account.id);
    try {
      return await write();
    } finally {
      this.recent.delete(account.id);
    }
  }

  /**
   * The account's provider settings and plans for its notices, from memory when read less than
   * a second ago: a provider sends notices in bursts (a month's renewals), and each would
   * otherwise read both. A change made by another process (the command line) is seen within that
   * second; this process's own at once.
   */
  private connection(accountId: number): Promise<Connection> {
    const now = this.clock();
    const kept = this.recent.get(accountId);
    if (kept && now - kept.at < RECENT_MS && now >= kept.at) return kept.connection;
    const connection = Promise.all([this.store.settings(accountId), this.store.plans(accountId)]).then(([settings, plans]) => ({ settings, plans }));
    // Bounded; a failed read is not kept.
    if (this.recent.size >= 10_000) this.recent.clear();
    this.recent.set(accountId, { at: now, connection });
    connection.catch(() => this.recent.delete(accountId));
    return connection;
  }

  /**
   * A provider's request: read and checked (NotAuthentic, ProviderUnavailable leave as they
   * are), each notice applied. A failure to write leaves as an error: the provider retries.
   */
  async receive(account: Account, provider: ProviderName, request: ProviderRequest, requestId?: string): Promise<Applied[]> {
    const { settings, plans } = await this.connection(account.id);
    const reader = this.providers[provider];
    const notices = await reader.read(request, settings, plans);
    const origin: EventOrigin = { actor: 'system', name: provider, ...(requestId ? { requestId } : {}) };
    const outcomes: Applied[] = [];
    for (const notice of notices) {
      const read = reader.enrich ? await reader.enrich(notice, settings) : notice;
      outcomes.push(await this.apply(account, read, settings, plans, origin));
    }
    return outcomes;
  }

  /** One notice applied; the notices kept for its member, when it was just linked, after it. */
  async apply(account: Account, notice: BillingNotice, settings: BillingSettings, plans: readonly Plan[], origin: EventOrigin): Promise<Applied> {
    const create = makesMember(notice) && !(await this.store.findsMember(account.id, notice)) ? await this.newMember(account, notice.email!) : undefined;
    const applied = await this.store.apply(account.id, notice, { plans, settings, now: this.clock(), origin, create });
    if (applied.kind === 'applied' && applied.madeWithoutPassword) {
      const member = await this.members.byId(account, applied.memberId);
      if (member) await this.welcome(account, member.login);
    }
    // The notices kept for the member apply once it is linked; and again when the provider
    // repeats a notice (the run after the link may have failed half-way).
    const linked = applied.kind === 'applied' && applied.linked ? await this.members.byId(account, applied.memberId) : undefined;
    const keys = linked ? { customer: linked.billCust, subscription: linked.billSubscr } : applied.kind === 'duplicate' ? notice : undefined;
    if (keys && (keys.customer || keys.subscription))
      for (const kept of await this.store.pendingFor(account.id, { customer: keys.customer, subscription: keys.subscription }, PENDING_BATCH))
        await this.apply(account, kept, settings, plans, origin);
    return applied;
  }

  /**
   * One round of the billing job: the kept notices whose member has appeared since they came
   * (an import gave it its customer or subscription; a later notice linked its charge)
   * applied, oldest first. Each round looks at the next window of kept notices and starts
   * again at the first once it has seen them all. A notice that fails to apply stays kept: it
   * is counted, and tried again when the rounds come back to it.
   */
  async applyKept(window = KEPT_WINDOW): Promise<{ applied: number; failed: number; error?: unknown }> {
    const { matched, last } = await this.store.keptMatched(this.keptCursor, window);
    this.keptCursor = last ?? 0;
    const accounts = new Map<number, Account | undefined>();
    let applied = 0;
    let failed = 0;
    let error: unknown;
    for (const { accountId, notice } of matched) {
      try {
        if (!accounts.has(accountId)) accounts.set(accountId, await this.accountById(accountId));
        const account = accounts.get(accountId);
        if (!account) continue;
        const { settings, plans } = await this.connection(accountId);
        const outcome = await this.apply(account, notice, settings, plans, { actor: 'system', name: `billing ${notice.provider}` });
        if (outcome.kind === 'applied') applied++;
      } catch (cause) {
        failed++;
        error ??= cause;
      }
    }
    return { applied, failed, ...(error === undefined ? {} : { error }) };
  }

  /** A member for a payer no member matches: its address as its login (or that and a number, when taken), a password it will choose by link. */
  private async newMember(account: Account, email: string): Promise<NewMember> {
    let login = email;
    for (let n = 2; (await this.members.findOne(account, login)) !== undefined; n++) login = `${email}-${n}`;
    return paidMember(login, email, await this.passwords.hash(generatePassword(), { account: String(account.id), client: '' }), this.clock());
  }

  /**
   * A checkout of a plan, for a visitor (its login, address and password, hashed now and used
   * when the payment makes the member) or a signed-in member: answers the provider's page.
   */
  async startCheckout(
    account: Account,
    plan: Plan,
    buyer: { member: Member } | { login: string; email: string; password: string; language: string; client: string },
  ): Promise<{ url: string; checkout: string }> {
    const settings = await this.store.settings(account.id);
    if (settings.stripeSecretKey === '') throw new ProviderUnavailable('this account takes no payments yet');
    const id = randomBytes(18).toString('base64url');
    const member = 'member' in buyer ? buyer.member : undefined;
    await this.store.createCheckout({
      id,
      accountId: account.id,
      plan: plan.name,
      memberId: member?.id ?? null,
      login: member ? '' : (buyer as { login: string }).login,
      email: member ? member.email : (buyer as { email: string }).email,
      passwordHash: member ? '' : await this.passwords.hash((buyer as { password: string }).password, { account: String(account.id), client: (buyer as { client: string }).client }),
      language: member ? '' : (buyer as { language: string }).language,
      createdAt: this.clock(),
    });
    const session = await this.hosted.start(settings, {
      plan,
      checkout: id,
      email: member ? member.email : (buyer as { email: string }).email,
      customer: member?.billPc === 'stripe' && member.billCust ? member.billCust : undefined,
      successUrl: this.pagesUrl(account, `joined?checkout=${encodeURIComponent(id)}`),
      cancelUrl: this.pagesUrl(account, '?action=join'),
    });
    await this.store.setCheckoutSession(id, session.session);
    return { url: session.url, checkout: id };
  }

  /** Where the member pages' join and billing forms may lead the browser: the providers' pages. */
  providerOrigins(): readonly string[] {
    return [...this.hosted.origins, 'https://www.paypal.com'];
  }

  checkout(account: Account, id: string): Promise<Checkout | undefined> {
    return this.store.checkout(account.id, id);
  }

  markSignedIn(id: string): Promise<boolean> {
    return this.store.markSignedIn(id, this.clock());
  }

  /** Where the member changes its card, plan or cancels: Stripe's portal, PayPal's own page; undefined for a member nobody bills. */
  async manageUrl(account: Account, member: Member): Promise<string | undefined> {
    if (member.billPc === 'paypal') return 'https://www.paypal.com/myaccount/autopay/';
    if (member.billPc !== 'stripe' || !member.billCust) return undefined;
    return this.hosted.manage(await this.store.settings(account.id), member.billCust, this.pagesUrl(account, 'profile'));
  }

  memberBilling(account: Account, memberId: number): Promise<MemberBilling | undefined> {
    return this.store.memberBilling(account.id, memberId);
  }

  records(account: Account, memberId: number, limit = 20): Promise<BillingRecord[]> {
    return this.store.records(account.id, memberId, limit);
  }

  /** The last instant of a day in the account's time zone: access "until" a day includes it. */
  endOfDay(account: Account, day: CalendarDay): number {
    return dayStart(day, account.settings.timeZone, 1) - 1;
  }

  /** An operator's grant of access without payment, until an instant: Manual, Active, suspended then. */
  async comp(account: Account, memberId: number, until: number, origin: EventOrigin): Promise<boolean> {
    const outcome = await this.members.update(
      account,
      { selector: { by: 'id', id: memberId }, status: 'A', suspendAt: until, regType: 'M', setFields: new Map(), deleteFields: [] },
      origin,
    );
    return outcome.kind === 'updated';
  }

  /**
   * `billing import-stripe`: each of the account's Stripe subscriptions linked to the member
   * with its address (or made, with a mailed link to choose a password), its plan, fields and
   * paid-until date set as a payment of it would. A dry run reports what would happen.
   */
  async importStripe(account: Account, dryRun: boolean): Promise<Array<{ subscription: string; email: string; status: string; outcome: string }>> {
    const [settings, plans] = await Promise.all([this.store.settings(account.id), this.store.plans(account.id)]);
    const report: Array<{ subscription: string; email: string; status: string; outcome: string }> = [];
    for await (const notice of this.hosted.subscriptions(settings)) {
      const live = notice.status === 'active' || notice.status === 'trialing' || notice.status === 'past_due';
      const line = { subscription: notice.subscription ?? '', email: notice.email ?? '', status: notice.status ?? '' };
      if (!live) {
        report.push({ ...line, outcome: 'skipped: not active' });
        continue;
      }
      const plan = plans.find((p) => p.stripePrice === notice.item);
      if (dryRun) {
        const found = await this.store.findsMember(account.id, notice);
        report.push({ ...line, outcome: plan ? `${found ? 'would link the member' : 'would make a member'} on plan ${plan.name}` : `would be refused: price ${notice.item ?? '(none)'} is no plan's` });
        continue;
      }
      const applied = await this.apply(account, notice, settings, plans, { actor: 'import', name: 'stripe' });
      report.push({ ...line, outcome: applied.kind === 'applied' ? applied.outcome : applied.kind });
    }
    return report;
  }
}
