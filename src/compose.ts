/**
 * The composition root: the one place where the store, the services, the request limiters,
 * the importer and the app's dependencies are built and wired to each other, all from one
 * validated Config (so there is one set of defaults: config.ts's). The server and the command
 * line build theirs here, and so do the tests, with `loadConfig({ VARIABLE: '…' })` and the
 * overrides a test needs (a clock, a hasher). Everything else receives what it needs as
 * arguments.
 */
import { BillingService } from './billing/billing-service.js';
import { StripeProvider } from './billing/stripe.js';
import { PayPalProvider } from './billing/paypal.js';
import { MailTemplates } from './mail/mail-templates.js';
import { AccountOverview } from './accounts/overview.js';
import { MemberExporter } from './import-export/exporter.js';
import { ImportJobs } from './import-export/import-jobs.js';
import { randomBytes } from 'node:crypto';
import { AccountsService } from './accounts/accounts-service.js';
import type { AppDependencies } from './app.js';
import { gatedHasher, HashingGate, hashingLimits } from './auth/hashing-gate.js';
import { createArgon2Hasher, type PasswordHasher } from './auth/passwords.js';
import { AccountRateLimiter, AnonymousLoginLimiter, KeyGuessGuard, PageFormLimiter } from './auth/request-limits.js';
import { systemClock, type Clock } from './common/clock.js';
import { loadConfig, type Config } from './config.js';
import { MemberImporter } from './import-export/importer.js';
import { LoginService } from './members/login-service.js';
import { MembersService } from './members/members-service.js';
import { VerifyLinks } from './members/verify-link.js';
import { Metrics } from './observability/metrics.js';
import { openConfiguredStore, type Store } from './store/store.js';
import { Sweeper } from './upkeep/sweeper.js';
import { EventsService } from './events/events-service.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { WebhookSender } from './webhooks/sender.js';
import { WebhooksService } from './webhooks/webhooks-service.js';
import { CachedLinks } from './upstream/cached-links.js';
import { UpstreamLinksService } from './upstream/links-service.js';
import { MemberMigration } from './upstream/member-migration.js';
import { UpstreamLogins, type UpstreamCallOutcome } from './upstream/upstream-logins.js';
import { WriteMirror, type MirrorOutcome } from './upstream/write-mirror.js';
import { OperatorsService } from './operators/operators-service.js';
import { SessionsService } from './members/sessions.js';
import { PasswordResets } from './members/password-resets.js';
import { MailSender } from './mail/mail-sender.js';

export interface Services {
  readonly store: Store;
  readonly accounts: AccountsService;
  readonly members: MembersService;
  readonly logins: LoginService;
  /** /session/ and /logout/. */
  readonly sessions: SessionsService;
  /** /reset/ and the page its link opens. */
  readonly resets: PasswordResets;
  /** Sends the queued mails (run by the server). */
  readonly mailer: MailSender;
  /** The accounts' own texts for their mails, and test mails of them. */
  readonly mailTemplates: MailTemplates;
  readonly sweeper: Sweeper;
  /** The change feed. */
  readonly events: EventsService;
  /** Webhook endpoints (the operator's commands) and their deliveries (the dispatcher, run by the server). */
  readonly webhooks: {
    readonly endpoints: WebhooksService;
    readonly dispatcher: WebhookDispatcher;
    readonly sender: WebhookSender;
  };
  /** The console's operators and their sessions. */
  readonly operators: OperatorsService;
  /** An account at a glance, for the console. */
  readonly overview: AccountOverview;
  /** The export (the command line's and the console's). */
  readonly exporter: MemberExporter;
  /** The console's imports: uploads, dry runs and runs in the background, through the importer. */
  readonly imports: ImportJobs;
  readonly clock: Clock;
  /** Signs what a member page's form leaves for the page its redirect leads to (pages/flash.ts). */
  readonly flashKey: Buffer;
  /** Admits every password hash and verification (its figures are the hashing queue's). */
  readonly hashing: HashingGate;
  /** The import, with password hashing of its own (see below). */
  readonly importer: MemberImporter;
  /** Paid memberships: the providers' notifications, checkouts, plans. */
  readonly billing: BillingService;
  /** The base of the links handed out (PUBLIC_URL, or the address the server learnt once it listened). */
  readonly linkBase: () => string;
  /** The move from an upstream service: links, the migration, the writes mirrored there. */
  readonly upstream: {
    readonly links: UpstreamLinksService;
    readonly migration: MemberMigration;
    readonly mirror: WriteMirror;
    /** Where the outcomes of calls to upstreams are told (the metrics, when there are some). */
    readonly observers: UpstreamObservers;
  };
}

/** Told each upstream call's outcome; set by whoever counts them (createMetrics). */
export interface UpstreamObservers {
  login: (outcome: UpstreamCallOutcome) => void;
  mirror: (outcome: MirrorOutcome) => void;
}

export interface ServiceOptions {
  /** The configuration; by default every variable's default. */
  readonly config?: Config;
  /** The base of the links handed out, asked for when a link is made (the server learns its address once it listens). */
  readonly publicUrl?: string | (() => string);
  readonly clock?: Clock;
  readonly hasher?: PasswordHasher;
  /** How long /login/ waits for an upstream (tests shorten it). */
  readonly upstreamTimeoutMs?: number;
  /** Whether a store that is not there is made (default true); false: StoreNotFound (the command line's commands but a few). */
  readonly createStore?: boolean;
}

/** Opens the store the configuration names, brings its schema up to date and builds the services on it. */
export async function createServices(config: Config, options: Omit<ServiceOptions, 'config'> = {}): Promise<Services> {
  const store = await openConfiguredStore(config, { create: options.createStore });
  try {
    return await servicesOver(store, { ...options, config });
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The services over a store that is open and migrated. */
export async function servicesOver(store: Store, options: ServiceOptions = {}): Promise<Services> {
  const config = options.config ?? loadConfig({});
  const clock = options.clock ?? systemClock;
  const hashing = new HashingGate(hashingLimits(config.hashConcurrency, config.hashQueue));
  const argon2 = options.hasher ?? createArgon2Hasher();
  const hasher = gatedHasher(argon2, hashing);
  const macKey = await store.secret('verify-link-key', () => randomBytes(32).toString('base64'));
  const flashKey = Buffer.from(await store.secret('page-flash-key', () => randomBytes(32).toString('base64')), 'base64');
  const publicUrl = options.publicUrl ?? config.publicUrl ?? '';
  const verifyLinks = new VerifyLinks(Buffer.from(macKey, 'base64'), typeof publicUrl === 'string' ? () => publicUrl : publicUrl);
  // The import hashes as many passwords at once as there are cores, and a whole batch may
  // wait (the command line has no clients to turn away): a gate of its own.
  const importer = new MemberImporter(store.transfer, gatedHasher(argon2, new HashingGate({ ...hashingLimits(), queue: Number.MAX_SAFE_INTEGER })), clock);
  const links = new CachedLinks(store.upstream);
  const sender = new WebhookSender(config.webhooksAllowPrivateAddresses);
  const accountsService = new AccountsService(store.accounts, clock);
  const accountNames = async () => new Map((await accountsService.list()).map((account) => [account.id, account.name]));
  const observers: UpstreamObservers = { login: () => {}, mirror: () => {} };
  const upstreamLogins = new UpstreamLogins(
    store.upstream,
    links,
    store.members,
    importer,
    clock,
    (outcome) => observers.login(outcome),
    options.upstreamTimeoutMs,
  );
  const members = new MembersService(store.members, hasher, verifyLinks, clock, store.overview);
  const linkBase = typeof publicUrl === 'string' ? () => publicUrl : publicUrl;
  const mailer = new MailSender(store.mail, (account, id, login, email) => verifyLinks.url(account, id, login, email), clock, linkBase);
  const resets = new PasswordResets(store.resets, members, (id) => accountsService.byId(id), clock, linkBase);
  const stripe = new StripeProvider(config.stripeApiUrl);
  const billing = new BillingService(
    store.billing,
    { stripe, paypal: new PayPalProvider(config.paypalIpnUrl, clock) },
    stripe,
    members,
    hasher,
    async (account, login) => void (await resets.issue(account, { by: 'login', login }, true, { welcome: true })),
    clock,
    linkBase,
    (id) => accountsService.byId(id),
  );
  return {
    store,
    accounts: accountsService,
    members,
    logins: new LoginService(store.members, store.logins, hasher, clock, store.overview, upstreamLogins),
    sessions: new SessionsService(store.sessions, clock),
    resets,
    mailer,
    mailTemplates: new MailTemplates(store.mail, (settings, to, message) => mailer.deliver(settings, to, message), clock, linkBase),
    sweeper: new Sweeper(store.housekeeping, clock, config),
    events: new EventsService(store.events),
    webhooks: {
      endpoints: new WebhooksService(store.webhooks, sender, clock, config.webhooksAllowPrivateAddresses),
      dispatcher: new WebhookDispatcher(store.webhooks, store.events, sender, accountNames, clock),
      sender,
    },
    clock,
    flashKey,
    operators: new OperatorsService(store.operators, store.accounts, hasher, clock, linkBase, () => config.publicUrl),
    overview: new AccountOverview(store.overview, clock),
    exporter: new MemberExporter(store.transfer),
    // New members without a password get a link to choose one (the welcome link's mail).
    imports: new ImportJobs(importer, hasher, async (account, login) => void (await resets.issue(account, { by: 'login', login }, true, { welcome: true })), clock),
    hashing,
    importer,
    billing,
    linkBase,
    upstream: {
      links: new UpstreamLinksService(store.upstream, links, clock),
      migration: new MemberMigration(store.upstream, importer, clock, config.deletedRetentionDays),
      mirror: new WriteMirror(store.upstream, links, store.members, clock, (outcome) => observers.mirror(outcome)),
      observers,
    },
  };
}

/** Prometheus metrics over the services' hashing gate and store pool. */
export function createMetrics(services: Pick<Services, 'hashing' | 'store' | 'upstream' | 'accounts'>): Metrics {
  const metrics = new Metrics({
    hashing: () => services.hashing.stats(),
    store: () => services.store.poolStats(),
    links: async () => {
      const names = new Map((await services.accounts.list()).map((account) => [account.id, account.name]));
      return services.upstream.links.statuses((id) => names.get(id));
    },
  });
  services.upstream.observers.login = (outcome) => metrics.countUpstreamCall('login', outcome);
  services.upstream.observers.mirror = (outcome) => metrics.countUpstreamCall('mirror', outcome);
  return metrics;
}

/**
 * Registrations and password reminders from the member pages, each: 10 an hour per client
 * address, 200 an hour per account. A site that gets more real sign-ups than that is a happy
 * problem for a later setting.
 */
export const PAGE_FORM_LIMITS = { perAddressPerHour: 10, perAccountPerHour: 200 };

/**
 * What the HTTP app is built from: the services, the request limiters (counting in the store,
 * so that several servers count together), and every limit from the Config. `extra` holds
 * what is not configuration: the logger, metrics, the version.
 */
export function appDependencies(
  services: Services,
  config: Config,
  extra: { logger: AppDependencies['logger']; metrics?: Metrics; version?: string },
): AppDependencies {
  const limiter = services.store.rateLimiter;
  return {
    limits: { bodyLimitBytes: config.bodyLimitBytes, maxParameters: config.maxParameters },
    accountScopes: config.databaseReplicaUrls.length > 0,
    requestTimeoutMs: config.requestTimeoutMs,
    lists: { total: config.maxConcurrentLists, perAccount: config.maxConcurrentListsPerAccount, waitMs: config.listSlotWaitMs },
    stallTimeoutMs: config.responseStallTimeoutMs,
    trustProxy: config.trustProxy,
    keyGuard: new KeyGuessGuard({ maxFailures: config.keyFailureLimit, windowSeconds: config.keyFailureWindowSeconds }, limiter),
    accountRates: new AccountRateLimiter(limiter),
    anonymousLogins: new AnonymousLoginLimiter(limiter),
    pageForms: {
      registrations: new PageFormLimiter(limiter, 'registrations', PAGE_FORM_LIMITS),
      reminders: new PageFormLimiter(limiter, 'reminders', PAGE_FORM_LIMITS),
      // Keyed by member: 10 password confirmations an hour each (the per-account figure is no limit).
      confirmations: new PageFormLimiter(limiter, 'confirmations', { perAddressPerHour: 10, perAccountPerHour: 1_000_000 }),
      flashKey: services.flashKey,
    },
    operators: services.operators,
    accounts: services.accounts,
    members: services.members,
    events: services.events,
    logins: services.logins,
    sessions: services.sessions,
    resets: services.resets,
    publicUrl: config.publicUrl,
    mirror: services.upstream.mirror,
    hashing: services.hashing,
    store: services.store,
    billing: services.billing,
    ...(config.admin
      ? {
          console: {
            operators: services.operators,
            accounts: services.accounts,
            members: services.members,
            logins: services.logins,
            events: services.events,
            sessions: services.sessions,
            resets: services.resets,
            webhooks: services.webhooks.endpoints,
            exporter: services.exporter,
            imports: services.imports,
            uploadLimitBytes: config.importUploadLimitBytes,
            stallTimeoutMs: config.responseStallTimeoutMs,
            overview: services.overview,
            mailTemplates: services.mailTemplates,
            clock: services.clock,
            billing: services.billing,
            linkBase: services.linkBase,
            publicUrl: config.publicUrl,
            allowPrivateAddresses: config.webhooksAllowPrivateAddresses,
          },
        }
      : {}),
    ...extra,
  };
}
