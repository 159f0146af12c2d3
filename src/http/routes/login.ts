/** POST /api2/login/: verify a member's login and password (seed 4.1). */
import type { FastifyInstance } from 'fastify';
import type { LoginService } from '../../members/login-service.js';
import type { LoginOutcome } from '../../observability/metrics.js';
import { decodeIp } from '../decoders.js';
import { MESSAGES } from '../errors.js';
import { failReply, okReply } from '../replies.js';
import { admitAccount, apiHandler, authenticate, type RouteContext } from '../route-kit.js';
import { apiResponses, CONSUMES, okAnswer, parametersSchema, STRING, withAccount } from '../schemas.js';

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
      IP: { description: 'the member’s IPv4 or IPv6 address, recorded with the attempt; needs api_key', format: 'ip' },
    }),
    { required: ['user', 'login', 'password'], profileFields: false, description: 'api_key is needed only with IP' },
  ),
  response: apiResponses(
    [
      okAnswer(
        { session: { type: 'string', description: 'an opaque random session id (at least 128 bits)' }, ok_url: { ...STRING, description: 'the member’s URL, else the account’s default, else ""' } },
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
 * A locked member is told exactly what a wrong password is told: a distinct answer would
 * show an attacker which logins exist (and that guessing has locked them).
 */
const FAIL_MESSAGES = {
  'wrong-credentials': MESSAGES.wrongLoginOrPassword,
  suspended: MESSAGES.memberSuspended,
  locked: MESSAGES.wrongLoginOrPassword,
} as const;

const COUNTED_AS = { 'wrong-credentials': 'fail', suspended: 'suspended', locked: 'locked' } as const satisfies Record<string, LoginOutcome>;

export interface LoginRouteContext extends RouteContext {
  readonly logins: LoginService;
  /** Told every login's outcome (for the metrics). */
  readonly countLogin: (outcome: LoginOutcome) => void;
}

export function registerLoginRoute(app: FastifyInstance, context: LoginRouteContext): void {
  app.post(
    '/api2/login/',
    { schema: LOGIN_SCHEMA },
    apiHandler(context, async (params, request) => {
      const user = params.required('user');
      const login = params.required('login');
      const password = params.required('password');
      // Every login costs a hash: when none can be had, say so before anything else is done.
      context.hashing.assertRoom();
      // Recording the member's address is the account's business: it takes the API key.
      const sendsIp = params.nonEmpty('IP') !== undefined;
      const account = sendsIp ? await authenticate(context, params, request) : await context.accounts.find(user);
      if (account && !sendsIp) await admitAccount(context, account);
      const ip = sendsIp ? decodeIp(params, 'IP') : null;
      const outcome = await context.logins.login(account, { login, password, ip });
      context.countLogin(outcome.kind === 'ok' ? 'ok' : COUNTED_AS[outcome.reason]);
      if (outcome.kind === 'ok') return okReply({ session: outcome.session, ok_url: outcome.okUrl });
      return failReply(FAIL_MESSAGES[outcome.reason], outcome.failUrl);
    }),
  );
}
