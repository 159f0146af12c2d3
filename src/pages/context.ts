/** What the member pages are given: the services they sign in, register and change members through (compose.ts builds them). */
import type { AccountsService } from '../accounts/accounts-service.js';
import type { HashingGate } from '../auth/hashing-gate.js';
import type { AnonymousLoginLimiter, PageFormLimiter } from '../auth/request-limits.js';
import type { EventsService } from '../events/events-service.js';
import type { ParamLimits } from '../http/params.js';
import type { LoginService } from '../members/login-service.js';
import type { MembersService } from '../members/members-service.js';
import type { PasswordResets } from '../members/password-resets.js';
import type { SessionsService } from '../members/sessions.js';
import type { LoginOutcome } from '../observability/metrics.js';
import type { OperatorsService } from '../operators/operators-service.js';
import type { BillingService } from '../billing/billing-service.js';

export interface MemberPagesContext {
  readonly accounts: AccountsService;
  readonly members: MembersService;
  readonly logins: LoginService;
  readonly sessions: SessionsService;
  readonly resets: PasswordResets;
  /** The member's history, in its data. */
  readonly events: Pick<EventsService, 'ofMember'>;
  /** Who hears of a registration that waits for approval. */
  readonly operators: Pick<OperatorsService, 'approvalNotice'>;
  readonly hashing: HashingGate;
  /** Paid memberships: the plans, checkouts, the customer portal. */
  readonly billing: BillingService;
  readonly anonymousLogins: AnonymousLoginLimiter;
  /** Registrations, and reminders, per address and per account. */
  readonly registrations: PageFormLimiter;
  readonly reminders: PageFormLimiter;
  /** A signed-in member's password confirmations, per member. */
  readonly confirmations: PageFormLimiter;
  /** Signs what a form leaves for the page its redirect leads to (flash.ts). */
  readonly flashKey: Buffer;
  readonly limits: ParamLimits;
  readonly publicUrl: string | undefined;
  /** Told every sign-in's outcome (the login metrics). */
  readonly countLogin?: (outcome: LoginOutcome) => void;
}
