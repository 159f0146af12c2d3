/** POST /api2/create/: add a new member (seed 4.2). */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { expiryActionFromCreateMode } from '../../members/lifecycle.js';
import type { CreateMemberCommand, MembersService } from '../../members/members-service.js';
import {
  decodeEmail,
  decodeIp,
  decodeLogin,
  decodePassword,
  decodePeriodUnit,
  decodePositiveInteger,
  decodeProfileFields,
  decodeUrl,
  pickSpelling,
} from '../decoders.js';
import { ApiError, errorBody, MESSAGES } from '../errors.js';
import type { WireParams } from '../params.js';
import { okReply } from '../replies.js';
import { apiHandler, authenticate, type RouteContext } from '../route-kit.js';

/** Time expiration has two spellings; the documented (underscored) one is listed first. */
const TIME_MODE = ['set_is_exp_time', 'set_isexptime'] as const;
const TIME_COUNT = ['set_exp_time', 'set_exptime'] as const;
const TIME_UNIT = ['set_exp_time_type', 'set_exptimet'] as const;

const BUILT_INS: ReadonlySet<string> = new Set([
  'user', 'api_key', '_login', '_email', '_password', 'set_urlok', 'set_urlwrong', 'set_is_exp_logins', 'set_exp_logins',
  ...TIME_MODE, ...TIME_COUNT, ...TIME_UNIT, 'IP',
]);

export function decodeCreate(params: WireParams, account: Account): CreateMemberCommand {
  // Unknown names first: `login` sent for `_login` says so, rather than `missing parameter: _login`.
  const profile = decodeProfileFields(params, BUILT_INS);
  const login = decodeLogin('_login', params.required('_login'));
  const email = decodeEmail('_email', params.required('_email'));
  const password = params.nonEmpty('_password');
  return {
    login,
    email,
    password: password === undefined ? null : decodePassword('_password', password, account.settings.minPasswordLength),
    urlOk: decodeUrl(params, 'set_urlok'),
    urlFail: decodeUrl(params, 'set_urlwrong'),
    loginExpiry: decodeLoginExpiry(params),
    timeExpiry: decodeTimeExpiry(params),
    ip: decodeIp(params, 'IP'),
    profile,
  };
}

function decodeMode(name: string, value: string) {
  const action = expiryActionFromCreateMode(value);
  if (action === undefined) throw ApiError.invalid(name);
  return action;
}

function decodeLoginExpiry(params: WireParams): CreateMemberCommand['loginExpiry'] {
  const mode = params.nonEmpty('set_is_exp_logins');
  const action = mode === undefined ? null : decodeMode('set_is_exp_logins', mode);
  if (action === null) return null;
  return { action, count: decodePositiveInteger('set_exp_logins', params.nonEmpty('set_exp_logins')) };
}

function decodeTimeExpiry(params: WireParams): CreateMemberCommand['timeExpiry'] {
  const mode = pickSpelling(params, TIME_MODE);
  const action = mode === undefined ? null : decodeMode(mode.name, mode.value);
  if (!mode || action === null) return null;
  // Errors name the spelling the client used for the mode.
  const count = pickSpelling(params, TIME_COUNT);
  const unit = pickSpelling(params, TIME_UNIT);
  return {
    action,
    count: decodePositiveInteger(count?.name ?? TIME_COUNT[mode.index]!, count?.value),
    unit: decodePeriodUnit(unit?.name ?? TIME_UNIT[mode.index]!, unit?.value),
  };
}

export function registerCreateRoute(app: FastifyInstance, context: RouteContext & { members: MembersService }): void {
  app.post(
    '/api2/create/',
    apiHandler(context, async (params, request) => {
      const account = await authenticate(context, params, request);
      context.hashing.assertRoom();
      const outcome = await context.members.create(account, decodeCreate(params, account));
      switch (outcome.kind) {
        case 'created':
          return okReply({ id: String(outcome.id), login: outcome.login, password: outcome.password, verify_url: outcome.verifyUrl });
        case 'login-taken':
          return errorBody(MESSAGES.loginTaken);
        case 'expiry-out-of-range':
          throw ApiError.invalid(pickSpelling(params, TIME_COUNT)?.name ?? TIME_COUNT[0]);
      }
    }),
  );
}
