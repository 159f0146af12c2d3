/** POST /api2/login/: verify a member's login and password (seed 4.1). */
import type { Account, MessageStyle } from '../../accounts/account.js';
import type { FastifyInstance } from 'fastify';
import { loginShare, type LoginService } from '../../members/login-service.js';
import { clientScope } from '../../auth/client-address.js';
import type { LoginOutcome } from '../../observability/metrics.js';
import { decodeIp, nearMiss } from '../decoders.js';
import { ApiError, MESSAGES, REASONS } from '../errors.js';
import { isOverlongPassword, MAX_PASSWORD_LENGTH } from '../../auth/passwords.js';
import { failReply, okReply } from '../replies.js';
import { admitAnonymousLogin, apiHandler, apiOrigin, apiRoute, authenticate, refuseGetWrite, type RouteContext } from '../route-kit.js';
import { apiResponses, CONSUMES, getAndPost, ipParameter, okAnswer, parameterNames, parametersSchema, STRING, withAccount } from '../schemas.js';
import type { WireParams } from '../params.js';

/** What /login/ cannot do without, in the order a missing one is named. */
const LOGIN_REQUIRED = ['user', 'login', 'password'] as const;

export const LOGIN_SCHEMA = {
  summary: 'Check a member’s login and password',
  description:
    'OK hands out a new session id; FAIL says why not. Unknown login, wrong password, a Deleted member and a locked member all answer "wrong login or password", in about the same time.',
  tags: ['members'],
  consumes: CONSUMES,
  body: parametersSchema(
    withAccount({
      login: { description: 'the member’s login, compared case-insensitively' },
      password: { description: 'the member’s password' },
      IP: ipParameter('the member’s IPv4 or IPv6 address, recorded with the attempt; needs api_key'),
    }),
    { required: LOGIN_REQUIRED, profileFields: false, description: 'api_key is needed only with IP' },
  ),
  response: apiResponses(
    [
      okAnswer(
        {
          session: { type: 'string', description: 'an opaque random session id (at least 128 bits)' },
          ok_url: { ...STRING, description: 'the member’s URL, else the account’s default, else ""' },
        },
        'the login and password are right',
      ),
      {
        type: 'object',
        description: 'the login fails',
        properties: {
          result: { type: 'string', const: 'FAIL' },
          message: { type: 'string', enum: [MESSAGES.wrongLoginOrPassword, MESSAGES.memberSuspended] },
          fail_url: { ...STRING, description: 'the member’s failure URL, else the account’s default, else ""' },
        },
        required: ['result', 'message', 'fail_url'],
        additionalProperties: false,
      },
    ],
    'OK, FAIL, or ERROR (bad parameters, or a wrong api_key with IP)',
  ),
};

/**
 * The FAIL text of a wrong login or password: ours, or, for an account that shows `message`
 * to its members as the hosted original worded it (`account set --messages original`), its.
 */
const WRONG_LOGIN_OR_PASSWORD: Record<MessageStyle, string> = {
  short: MESSAGES.wrongLoginOrPassword,
  original: 'You have entered incorrect login or password. Please try again',
};

/**
 * A locked member is told exactly what a wrong password is told: a distinct answer would
 * show an attacker which logins exist (and that guessing has locked them).
 */
function failMessage(reason: 'wrong-credentials' | 'suspended' | 'locked', account: Account | undefined): string {
  if (reason === 'suspended') return MESSAGES.memberSuspended;
  return WRONG_LOGIN_OR_PASSWORD[account?.settings.messages ?? 'short'];
}

const COUNTED_AS = { 'wrong-credentials': 'fail', suspended: 'suspended', locked: 'locked' } as const satisfies Record<string, LoginOutcome>;

export interface LoginRouteContext extends RouteContext {
  readonly logins: LoginService;
  /** Told every login's outcome (for the metrics). */
  readonly countLogin: (outcome: LoginOutcome) => void;
}

const KNOWN = parameterNames(LOGIN_SCHEMA.body);

/**
 * Integrators may forward a whole login form, so other names are ignored (a `submit` field);
 * but a name that is a slip for one of ours (`ip` for `IP`, `Password`) is never dropped
 * silently: the login it was meant for would go on without it.
 */
function refuseNearMisses(params: WireParams): void {
  for (const name of params.names()) {
    if (KNOWN.has(name)) continue;
    const meant = nearMiss(name, KNOWN);
    if (meant) throw ApiError.unknown(name, meant);
  }
}

export function registerLoginRoute(app: FastifyInstance, context: LoginRouteContext): void {
  apiRoute(
    app,
    '/api2/login/',
    getAndPost(LOGIN_SCHEMA),
    { bodyLimit: context.limits.bodyLimitBytes },
    apiHandler(context, async (params, request) => {
      const { user, login, password } = params.requiredAll(LOGIN_REQUIRED);
      refuseNearMisses(params);
      // No password can be longer, and normalising a long one costs (it may grow 18 times):
      // refused before anything else, the same for every member and for none.
      if (isOverlongPassword(password)) throw ApiError.invalid('password', REASONS.tooLong(MAX_PASSWORD_LENGTH));
      // Recording the member's address is the account's business: it takes the API key.
      const sendsIp = params.nonEmpty('IP') !== undefined;
      // Without one, the account is read once a second at most, as for the session checks: its
      // settings changed by another server are seen within that second.
      const account = sendsIp ? await authenticate(context, params, request, 'login') : await context.accounts.findRecent(user);
      const client = clientScope(request.ip);
      // Every login costs a hash: when this client's turn cannot be had, say so before anything else is done.
      await context.hashing.admit(loginShare(account, client));
      refuseGetWrite(request, account);
      // Without a key, a login spends budgets of its own (per member, per address), never
      // the account's: anyone can send one, and the account name is public.
      if (account && !sendsIp) await admitAnonymousLogin(context, account, login, client);
      const ip = sendsIp ? decodeIp(params, 'IP') : null;
      const outcome = await context.logins.login(account, { login, password, ip, client, origin: apiOrigin(request) });
      context.countLogin(outcome.kind === 'ok' ? 'ok' : COUNTED_AS[outcome.reason]);
      if (outcome.kind === 'ok') return okReply({ session: outcome.session, ok_url: outcome.okUrl });
      return failReply(failMessage(outcome.reason, account), outcome.failUrl);
    }),
  );
}
