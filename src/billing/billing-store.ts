/** What billing needs from storage (store/billing-repository.ts implements it). */
import type { EventOrigin } from '../events/event.js';
import type { NewMember } from '../members/member.js';
import type { BillingNotice, BillingSettings, MemberBilling, Plan, ProviderName } from './billing.js';

/** What applying a notice came to. */
export type Applied =
  /** Its effect was written: the member it found or made. `linked`: the member's customer or subscription was set now (kept notices of it may apply). */
  | { kind: 'applied'; memberId: number; outcome: string; linked: boolean; madeWithoutPassword: boolean }
  /** Applied before: nothing changed. */
  | { kind: 'duplicate' }
  /** No member matches yet: kept, applied when one does. */
  | { kind: 'pending' }
  /** Nothing to change (an event type not acted on), or refused (another receiver, another price): recorded. */
  | { kind: 'recorded'; outcome: string };

/** A visitor's checkout, until its payment is confirmed. */
export interface Checkout {
  readonly id: string;
  readonly accountId: number;
  readonly plan: string;
  /** The member who bought (set when a signed-in member chose a plan, or once the payment made one). */
  readonly memberId: number | null;
  readonly login: string;
  readonly email: string;
  readonly language: string;
  readonly createdAt: number;
  readonly completedAt: number | null;
  readonly signedInAt: number | null;
}

/** A payment or another notice, as the member's page lists them. */
export interface BillingRecord {
  readonly provider: ProviderName;
  readonly eventId: string;
  readonly type: string;
  readonly state: string;
  readonly payment: string | null;
  readonly amount: number | null;
  readonly currency: string | null;
  readonly outcome: string;
  readonly receivedAt: number;
}

export interface BillingStore {
  settings(accountId: number): Promise<BillingSettings>;
  setSettings(accountId: number, settings: BillingSettings, now: number): Promise<void>;
  plans(accountId: number): Promise<Plan[]>;
  /** False when the account has a plan of that name. */
  addPlan(accountId: number, plan: Plan): Promise<boolean>;
  /** False when it has none of that name. */
  removePlan(accountId: number, name: string): Promise<boolean>;

  /**
   * Applies a notice once, in one transaction: its record (`(account, provider, id)` unique),
   * the member found (our checkout, the subscription, the customer, the charge, else the
   * payer's address) or made (`create`, or the checkout's credentials), its effect
   * (billing.ts: effectOf) through the members' update, and the events.
   */
  apply(
    accountId: number,
    notice: BillingNotice,
    context: { readonly plans: readonly Plan[]; readonly settings: Pick<BillingSettings, 'onRefund'>; readonly now: number; readonly origin: EventOrigin; readonly create?: NewMember },
  ): Promise<Applied>;
  /** The kept notices a member now matches (its customer or subscription), oldest first. */
  pendingFor(accountId: number, keys: { customer?: string | null; subscription?: string | null }, limit: number): Promise<BillingNotice[]>;
  /**
   * Of the next `window` kept notices after the id `after` (oldest first, across accounts),
   * those a member now matches (by subscription, customer or charge); `last`: where the next
   * window starts, undefined when this one reached the end.
   */
  keptMatched(after: number, window: number): Promise<{ matched: Array<{ accountId: number; notice: BillingNotice }>; last: number | undefined }>;
  /** Whether a notice that may make a member finds one (the service hashes a password only for one it will make). */
  findsMember(accountId: number, notice: BillingNotice): Promise<boolean>;

  createCheckout(checkout: Omit<Checkout, 'completedAt' | 'signedInAt' | 'memberId'> & { memberId: number | null; passwordHash: string }): Promise<void>;
  setCheckoutSession(id: string, session: string): Promise<void>;
  checkout(accountId: number, id: string): Promise<Checkout | undefined>;
  /** Marks the checkout's sign-in done; false when it was done before (a checkout signs in once). */
  markSignedIn(id: string, now: number): Promise<boolean>;

  memberBilling(accountId: number, memberId: number): Promise<MemberBilling | undefined>;
  /** The member's notices, newest first. */
  records(accountId: number, memberId: number, limit: number): Promise<BillingRecord[]>;
}
