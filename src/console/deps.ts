/** What the console's sections are given: the services they change members and accounts through (compose.ts builds them). */
import type { AccountsService } from '../accounts/accounts-service.js';
import type { AccountOverview } from '../accounts/overview.js';
import type { MailTemplates } from '../mail/mail-templates.js';
import type { EventsService } from '../events/events-service.js';
import type { LoginService } from '../members/login-service.js';
import type { MembersService } from '../members/members-service.js';
import type { SessionsService } from '../members/sessions.js';
import type { PasswordResets } from '../members/password-resets.js';
import type { WebhooksService } from '../webhooks/webhooks-service.js';
import type { MemberExporter } from '../import-export/exporter.js';
import type { ImportJobs } from '../import-export/import-jobs.js';
import type { OperatorsService } from '../operators/operators-service.js';
import type { Clock } from '../common/clock.js';
import type { BillingService } from '../billing/billing-service.js';

export interface ConsoleContext {
  readonly operators: OperatorsService;
  readonly accounts: AccountsService;
  readonly members: MembersService;
  readonly logins: LoginService;
  readonly events: EventsService;
  /** A member's sessions, listed and ended. */
  readonly sessions: SessionsService;
  /** The reset mail an operator sends a member. */
  readonly resets: PasswordResets;
  /** The account's webhook receivers and their deliveries. */
  readonly webhooks: WebhooksService;
  /** Export and import (export.ts, import.ts). */
  readonly exporter: MemberExporter;
  readonly imports: ImportJobs;
  /** The largest import file taken, in bytes (IMPORT_UPLOAD_LIMIT_BYTES). */
  readonly uploadLimitBytes: number;
  /** An export's download whose client takes nothing for this long is cut off (RESPONSE_STALL_TIMEOUT_MS). */
  readonly stallTimeoutMs: number;
  /** The account at a glance. */
  readonly overview: AccountOverview;
  /** The account's own texts for its mails, and test mails. */
  readonly mailTemplates: MailTemplates;
  readonly clock: Clock;
  /** Paid memberships: plans, the providers' connection, a member's payments, a grant without payment. */
  readonly billing: BillingService;
  /** The base of the addresses the console shows to paste elsewhere (PUBLIC_URL, or the address the server learnt). */
  readonly linkBase: () => string;
  /** The public address, when set: https makes the cookie Secure, and its origin is this site's. */
  readonly publicUrl: string | undefined;
  /** WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: whether an owner's mail server may be on a private address. */
  readonly allowPrivateAddresses?: boolean;
}

/** The same, as a section is given it. */
export type ConsoleDeps = ConsoleContext;
