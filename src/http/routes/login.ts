/** POST /api2/login/: verify a member's login and password (seed 4.1). */
import type { FastifyInstance } from 'fastify';
import type { LoginService } from '../../members/login-service.js';
import { decodeIp } from '../decoders.js';
import { MESSAGES } from '../errors.js';
import { failReply, okReply } from '../replies.js';
import { admitAccount, apiHandler, authenticate, type RouteContext } from '../route-kit.js';

/**
 * A locked member is told exactly what a wrong password is told: a distinct answer would
 * show an attacker which logins exist (and that guessing has locked them).
 */
const FAIL_MESSAGES = {
  'wrong-credentials': MESSAGES.wrongLoginOrPassword,
  suspended: MESSAGES.memberSuspended,
  locked: MESSAGES.wrongLoginOrPassword,
} as const;

const COUNTED_AS = { 'wrong-credentials': 'fail', suspended: 'suspended', locked: 'locked' } as const;

export interface LoginRouteContext extends RouteContext {
  readonly logins: LoginService;
  /** Told every login's outcome (for the metrics). */
  readonly countLogin: (outcome: 'ok' | (typeof COUNTED_AS)[keyof typeof COUNTED_AS]) => void;
}

export function registerLoginRoute(app: FastifyInstance, context: LoginRouteContext): void {
  app.post(
    '/api2/login/',
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
