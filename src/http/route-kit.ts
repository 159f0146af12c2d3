/** What every API route shares: parameter reading, expected-failure answers, authentication. */
import type { EventOrigin } from '../events/event.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account, KeyUse } from '../accounts/account.js';
import type { AccountsService } from '../accounts/accounts-service.js';
import type { AccountRateLimiter, Admission, AnonymousLoginLimiter, KeyGuessGuard } from '../auth/request-limits.js';
import { foldKey } from '../members/member.js';
import type { HashingGate } from '../auth/hashing-gate.js';
import { ApiError, errorBody, HttpError, MESSAGES, TooManyRequests } from './errors.js';
import { logAccount } from './logging.js';
import { readParams, type ParamLimits, type WireParams } from './params.js';

export interface RouteContext {
  readonly limits: ParamLimits;
  readonly accounts: AccountsService;
  readonly keyGuard: KeyGuessGuard;
  readonly accountRates: AccountRateLimiter;
  readonly anonymousLogins: AnonymousLoginLimiter;
  readonly hashing: Pick<HashingGate, 'admit'>;
}

function enforce(admission: Admission): void {
  if (!admission.ok) throw new TooManyRequests(admission.retryAfterSeconds);
}

/**
 * Wraps an endpoint: reads its parameters, runs it, and answers an ApiError (an expected
 * failure) as the seed's `{"result":"ERROR"}` with HTTP 200. Anything else goes to the
 * app's error handler.
 */
export function apiHandler(context: RouteContext, handle: (params: WireParams, request: FastifyRequest, reply: FastifyReply) => Promise<object>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<object> => {
    try {
      const read = readParams(request, context.limits);
      const params = read instanceof Promise ? await read : read;
      logAccount(request, params.get('user'));
      return await handle(params, request, reply);
    } catch (error) {
      if (error instanceof ApiError) return errorBody(error.message);
      throw error;
    }
  };
}

/**
 * Registers an endpoint for POST and for GET, with and without the trailing slash (the
 * router ignores it): the same handler, the schemas of getAndPost.
 */
export function apiRoute(
  app: FastifyInstance,
  url: string,
  schemas: { readonly GET: object; readonly POST: object },
  options: { bodyLimit?: number },
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  for (const method of ['GET', 'POST'] as const) app.route({ method, url, schema: schemas[method], ...options, handler });
}

/**
 * A call that changes or checks a member (/login/, /create/, /update/) sent by GET, to an
 * account that takes those by POST only (`account set --get-writes off`, once its
 * integrators' code sends POST): 405, saying so.
 */
export function refuseGetWrite(request: FastifyRequest, account: Account | undefined): void {
  if (request.method !== 'GET' || !account || account.settings.getWrites) return;
  const path = request.routeOptions.url ?? '';
  throw new HttpError(405, `method not allowed: this account takes ${path} by POST only (send the parameters in the body)`, { allow: 'POST' });
}

/** The name of the key each request was let in with, for the events it writes. */
const keyNames = new WeakMap<FastifyRequest, string>();

/** Who a request's change is by: the API, with the request's id and the name of the key it came with. */
export function apiOrigin(request: FastifyRequest): EventOrigin {
  const name = keyNames.get(request);
  return { actor: 'api', requestId: request.id, ...(name === undefined ? {} : { name }) };
}

/**
 * The account named by `user` whose key is `api_key`, when that key may make this kind of
 * call. An unknown user, a wrong key and a missing key all answer `wrong api key`, byte for
 * byte; a right key of too narrow a scope says so.
 */
export async function authenticate(context: RouteContext, params: WireParams, request: FastifyRequest, use: KeyUse): Promise<Account> {
  const user = params.required('user');
  const apiKey = params.nonEmpty('api_key');
  // The key is checked first: a right key is never refused because of someone else's wrong
  // ones (keys are 256 random bits; guessing is not what this limit stops). Only wrong keys
  // are counted, and refused once an address has sent too many.
  const authenticated = await context.accounts.authenticate(user, apiKey);
  if (!authenticated) {
    enforce(await context.keyGuard.admit(request.ip));
    await context.keyGuard.recordFailure(request.ip);
    throw new ApiError(MESSAGES.wrongApiKey);
  }
  if (!context.accounts.allows(authenticated, use)) throw new ApiError(MESSAGES.keyScope);
  await admitAccount(context, authenticated.account);
  keyNames.set(request, authenticated.key.name);
  return authenticated.account;
}

/** A login without a key: the account's anonymous-login budgets, per member and per address. */
export async function admitAnonymousLogin(context: RouteContext, account: Account, login: string, address: string): Promise<void> {
  enforce(await context.anonymousLogins.admit(account.id, foldKey(login), address, account.settings.loginRateLimitPerMinute));
}

/** The account's own request rate, when it has one. */
export async function admitAccount(context: RouteContext, account: Account): Promise<void> {
  enforce(await context.accountRates.admit(account.id, account.settings.rateLimitPerMinute));
}

/**
 * A mail asked for (`send_welcome=1`, `send_mail=1`) by an account without mail settings:
 * the answer says it was not sent (`"mail":"not sent: no mail settings"`), and the log warns,
 * rather than an OK that reads as if it went.
 */
export function mailNotSent(request: FastifyRequest, account: Account, params: WireParams, flag: string, address?: string): { mail?: string } {
  if (params.get(flag) !== '1') return {};
  if (account.settings.smtpUrl === '') {
    request.log.warn({ account: account.name }, `${flag}=1, but the account has no mail settings (account set --smtp-url): no mail sent`);
    return { mail: 'not sent: no mail settings' };
  }
  // A member created without an e-mail address (as the hosted original allowed) gets no mail.
  return address === '' ? { mail: 'not sent: no address' } : {};
}

/**
 * A step on the side of a write that succeeded (queueing it for the upstream): its failure is
 * logged, and never reaches the member's answer.
 */
export async function mirrorWrite<T>(request: FastifyRequest, step: () => Promise<T> | undefined): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    request.log.warn({ err: error }, 'queueing the write for the upstream failed');
    return undefined;
  }
}
