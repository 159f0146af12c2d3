/**
 * buildApp() assembles the HTTP application from services that were built elsewhere. It
 * never listens: tests call `app.inject()`, and server.ts listens and closes.
 */
import { accountScope } from './common/account-scope.js';
import type { HashingGate } from './auth/hashing-gate.js';
import { createServer } from 'node:http';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { AccountsService } from './accounts/accounts-service.js';
import type { AccountRateLimiter, AnonymousLoginLimiter, KeyGuessGuard, PageFormLimiter } from './auth/request-limits.js';
import type { OperatorsService } from './operators/operators-service.js';
import { registerMemberPages } from './pages/plugin.js';
import type { Config } from './config.js';
import type { Store } from './store/store.js';
import type { LoginService } from './members/login-service.js';
import type { MembersService } from './members/members-service.js';
import { registerBodyParsers } from './http/body-parsers.js';
import { FORM_BODY_LIMIT_BYTES } from './http/page-security.js';
import { ConcurrencySlots, type ConcurrencyLimits } from './http/concurrency.js';
import { errorBody, errorHandler, MESSAGES } from './http/errors.js';
import { hasSecretInQuery, recordAnswers, RequestLogController } from './http/logging.js';
import { multipartOptions, type ParamLimits } from './http/params.js';
import { registerConsole, type ConsoleContext } from './console/plugin.js';
import { registerCreateRoute } from './http/routes/create.js';
import { registerListRoute } from './http/routes/list.js';
import { registerLoginRoute } from './http/routes/login.js';
import { registerUpdateRoute } from './http/routes/update.js';
import { registerSessionRoutes } from './http/routes/session.js';
import type { SessionsService } from './members/sessions.js';
import type { PasswordResets } from './members/password-resets.js';
import { registerResetRoutes } from './http/routes/reset.js';
import type { WriteMirror } from './upstream/write-mirror.js';
import { registerVerifyRoute } from './http/routes/verify.js';
import { registerEventsRoute } from './http/routes/events.js';
import type { EventsService } from './events/events-service.js';
import { registerHealthRoutes } from './http/routes/health.js';
import { registerBillingRoutes } from './http/routes/billing.js';
import type { BillingService } from './billing/billing-service.js';
import { registerHomePage } from './http/routes/home.js';
import { registerOpenApi } from './http/openapi.js';
import { outcomeOf, type Metrics, type RequestOutcome } from './observability/metrics.js';
import { randomUUID } from 'node:crypto';
import { trimTrailing } from './common/text.js';

export interface AppDependencies {
  readonly limits: ParamLimits;
  /** Wrong API keys per client address; the accounts' request rates; logins without a key. */
  readonly keyGuard: KeyGuessGuard;
  readonly accountRates: AccountRateLimiter;
  readonly anonymousLogins: AnonymousLoginLimiter;
  /** How long a client may take to send its whole request before it is cut off (408). */
  readonly requestTimeoutMs: number;
  /** Lists being read at once, in all and per account; more are refused with 503. */
  readonly lists: ConcurrencyLimits;
  /** A list whose client takes nothing for this long is cut off, and its snapshot released. */
  readonly stallTimeoutMs: number;
  readonly trustProxy: Config['trustProxy'];
  /** A pino logger, or false for none. */
  readonly logger: pino.Logger | false;
  readonly accounts: AccountsService;
  readonly members: MembersService;
  /** The change feed (/api2/events/). */
  readonly events: EventsService;
  readonly logins: LoginService;
  /** /session/ and /logout/. */
  readonly sessions: SessionsService;
  /** /reset/ and the page its link opens. */
  readonly resets: PasswordResets;
  /** Queues /create/ and /update/ for accounts that mirror their writes to an upstream. */
  readonly mirror?: WriteMirror;
  /** Lets the routes that hash refuse early when hashing is at capacity. */
  readonly hashing: HashingGate;
  /** For /readyz, which asks whether the store answers. */
  readonly store: Pick<Store, 'ping'>;
  /** Where request and login figures go; none when metrics are off. */
  readonly metrics?: Metrics;
  /** The service's version, shown in the OpenAPI document. */
  readonly version?: string;
  /** PUBLIC_URL, when set: a page's form posted from there is this site's own. */
  readonly publicUrl?: string;
  /** The member pages' forms anyone can send, per address and per account. */
  readonly pageForms: {
    readonly registrations: PageFormLimiter;
    readonly reminders: PageFormLimiter;
    readonly confirmations: PageFormLimiter;
    /** Signs what a form leaves for the page its redirect leads to (pages/flash.ts). */
    readonly flashKey: Buffer;
  };
  /** Who is told of a registration awaiting approval (the account's operators). */
  readonly operators: Pick<OperatorsService, 'approvalNotice'>;
  /** The operator's console at /admin/ (ADMIN=off leaves it out). */
  readonly console?: ConsoleContext;
  /** Paid memberships: the providers' notifications, the member pages' checkout. */
  readonly billing: BillingService;
  /**
   * Each request in an account scope of its own (common/account-scope.ts), so that its writes
   * send its accounts' next reads to the primary: on with standbys (DATABASE_REPLICA_URLS),
   * off otherwise (the scope costs every request a little, for nothing then).
   */
  readonly accountScopes?: boolean;
}

/** The body limit of the endpoints that take only short parameters (/login/, /list/). */
export const SMALL_BODY_LIMIT_BYTES = 64 * 1024;

/** A request id a client or proxy sent is kept when it is this tame; otherwise one is made. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    logController: new RequestLogController(),
    bodyLimit: deps.limits.bodyLimitBytes,
    routerOptions: { ignoreTrailingSlash: true },
    // Fastify takes a hop count too, though its types do not say so.
    trustProxy: deps.trustProxy as boolean | string,
    // Our own server, for its timeouts: Node enforces requestTimeout only when it checks its
    // connections, by default every 30 s; a client that stops sending is cut off with a 408
    // within a quarter of the timeout instead.
    serverFactory: (handler) =>
      createServer(
        {
          requestTimeout: deps.requestTimeoutMs,
          headersTimeout: Math.min(deps.requestTimeoutMs, 60_000),
          connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(deps.requestTimeoutMs / 4))),
          keepAliveTimeout: 72_000,
        },
        handler,
      ),
    // Draining is handled below, with the API's own answer shape.
    return503OnClosing: false,
    // Every log line of a request carries its id (reqId), and so does the answer's X-Request-Id.
    requestIdHeader: false,
    genReqId: (request) => {
      const sent = request.headers['x-request-id'];
      return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
    },
  }) as unknown as FastifyInstance;

  // Hooks on every request are callbacks, not async functions: a promise each is measurable
  // on the cheapest routes (/session/ is on every page of an integrator's site).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    done();
  });
  // The rest of the request runs inside the scope: Fastify calls the next step from `done`.
  if (deps.accountScopes) app.addHook('onRequest', (_request, _reply, done) => accountScope.run(done));
  if (deps.metrics) observeRequests(app, deps.metrics);
  if (deps.logger) recordAnswers(app);

  drainOnClose(app);
  registerBodyParsers(app);
  await app.register(multipart, multipartOptions(deps.limits));
  app.setErrorHandler(errorHandler(deps.metrics));
  await registerOpenApi(app, deps.version ?? '0.0.0');

  // Paths answer 405 (with Allow) for a method they do not take, and 404 otherwise.
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const path = normalisePath(route.url);
    const methods = methodsByPath.get(path) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByPath.set(path, methods);
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = methodsByPath.get(normalisePath(request.url));
    if (allowed) {
      void reply
        .code(405)
        .header('allow', [...allowed].join(', '))
        .send(errorBody(MESSAGES.methodNotAllowed));
    } else {
      void reply.code(404).send(errorBody(MESSAGES.notFound));
    }
  });

  const context = {
    limits: deps.limits,
    accounts: deps.accounts,
    keyGuard: deps.keyGuard,
    accountRates: deps.accountRates,
    anonymousLogins: deps.anonymousLogins,
    hashing: deps.hashing,
  };
  // /login/ and /list/ take a few short parameters: a small body is all they read.
  const small = { ...context, limits: { ...deps.limits, bodyLimitBytes: Math.min(deps.limits.bodyLimitBytes, SMALL_BODY_LIMIT_BYTES) } };
  registerLoginRoute(app, { ...small, logins: deps.logins, countLogin: (outcome) => deps.metrics?.countLogin(outcome) });
  registerCreateRoute(app, { ...context, members: deps.members, mirror: deps.mirror });
  registerUpdateRoute(app, { ...context, members: deps.members, mirror: deps.mirror });
  registerListRoute(app, { ...small, members: deps.members, lists: new ConcurrencySlots(deps.lists), stallTimeoutMs: deps.stallTimeoutMs });
  registerEventsRoute(app, { ...small, events: deps.events });
  registerSessionRoutes(app, { ...small, sessions: deps.sessions });
  await registerResetRoutes(app, { ...small, resets: deps.resets, publicUrl: deps.publicUrl, flashKey: deps.pageForms.flashKey });
  await registerVerifyRoute(app, { accounts: deps.accounts, members: deps.members });
  await registerMemberPages(app, {
    ...context,
    limits: { ...deps.limits, bodyLimitBytes: FORM_BODY_LIMIT_BYTES },
    members: deps.members,
    logins: deps.logins,
    sessions: deps.sessions,
    resets: deps.resets,
    events: deps.events,
    operators: deps.operators,
    billing: deps.billing,
    ...deps.pageForms,
    publicUrl: deps.publicUrl,
    countLogin: (outcome) => deps.metrics?.countLogin(outcome),
  });
  await registerBillingRoutes(app, { accounts: deps.accounts, billing: deps.billing });
  registerHealthRoutes(app, { ping: () => deps.store.ping() });
  await registerHomePage(app, { console: deps.console !== undefined });
  if (deps.console) await registerConsole(app, deps.console);
  return app;
}

/**
 * While the server closes, requests already received finish normally, and every answer
 * carries `Connection: close`, so that keep-alive clients let go and close() can complete.
 * A request that arrives during the drain is answered 503 at once.
 */
function drainOnClose(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A callback, not an async function, as the hooks above: it runs on every request.
  app.addHook('onRequest', (_request, reply, done) => {
    if (closing) {
      void reply.code(503).header('retry-after', '1').send(errorBody(MESSAGES.unavailable));
      return;
    }
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}

/** Every answer is counted under its route (or `unmatched`) and outcome, with its latency. */
function observeRequests(app: FastifyInstance, metrics: Metrics): void {
  const outcomes = new WeakMap<object, RequestOutcome>();
  app.addHook('onSend', (request, reply, payload, done) => {
    outcomes.set(request, outcomeOf(reply.statusCode, payload));
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const endpoint = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(endpoint, outcomes.get(request) ?? outcomeOf(reply.statusCode, undefined), reply.elapsedTime / 1000);
    if (hasSecretInQuery(request.url)) metrics.countCredentialsInUrl(endpoint);
    done();
  });
}

/** The path of a URL without its trailing slashes: linear in the URL (anyone can send one of 16 KiB). */
function normalisePath(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  return path.length > 1 ? trimTrailing(path, '/') : path;
}
