/** What every API route shares: parameter reading, expected-failure answers, authentication. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import type { AccountsService } from '../accounts/accounts-service.js';
import { ApiError, errorBody, MESSAGES } from './errors.js';
import { readParams, type ParamLimits, type WireParams } from './params.js';

export interface RouteContext {
  readonly limits: ParamLimits;
  readonly accounts: AccountsService;
}

/**
 * Wraps an endpoint: reads its parameters, runs it, and answers an ApiError (an expected
 * failure) as the seed's `{"result":"ERROR"}` with HTTP 200. Anything else goes to the
 * app's error handler.
 */
export function apiHandler(context: RouteContext, handle: (params: WireParams, request: FastifyRequest, reply: FastifyReply) => Promise<object>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<object> => {
    try {
      return await handle(await readParams(request, context.limits), request, reply);
    } catch (error) {
      if (error instanceof ApiError) return errorBody(error.message);
      throw error;
    }
  };
}

/**
 * The account named by `user` whose key is `api_key`. An unknown user, a wrong key and a
 * missing key all answer `wrong api key`, byte for byte.
 */
export async function authenticate(context: RouteContext, params: WireParams): Promise<Account> {
  const user = params.required('user');
  const apiKey = params.nonEmpty('api_key');
  const account = await context.accounts.authenticate(user, apiKey);
  if (!account) throw new ApiError(MESSAGES.wrongApiKey);
  return account;
}
