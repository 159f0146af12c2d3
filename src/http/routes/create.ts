/** POST /api2/create/: add a new member (seed 4.2). */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { expiryActionFromCreateMode, PERIOD_UNITS } from '../../members/lifecycle.js';
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
  decodeFlag,
} from '../decoders.js';
import { ApiError, errorBody, MESSAGES, REASONS } from '../errors.js';
import type { WireParams } from '../params.js';
import { okReply } from '../replies.js';
import { apiHandler, apiOrigin, apiRoute, authenticate, mailNotSent, mirrorWrite, refuseGetWrite, type RouteContext } from '../route-kit.js';
import type { WriteMirror } from '../../upstream/write-mirror.js';
import {
  apiResponses,
  CONSUMES,
  getAndPost,
  ipParameter,
  MAIL_NOT_SENT,
  okAnswer,
  parameterNames,
  parametersSchema,
  POSITIVE_WHOLE,
  STRING,
  withAccount,
} from '../schemas.js';

/** The seed's names of /create/'s member values, and the plain names code written for the hosted original sends for them. */
const ALIAS_OF = { _login: 'login', _email: 'email', _password: 'password' } as const;
const ALIASES = Object.fromEntries(
  Object.entries(ALIAS_OF).map(([name, plain]) => [
    plain,
    { description: `the same as ${name}, when ${name} is not sent (as code written for the hosted original sends it)` },
  ]),
);

/** Time expiration has two spellings; the documented (underscored) one is listed first. */
const TIME_MODE = ['set_is_exp_time', 'set_isexptime'] as const;
const TIME_COUNT = ['set_exp_time', 'set_exptime'] as const;
const TIME_UNIT = ['set_exp_time_type', 'set_exptimet'] as const;

const MODE = ['0', '1', '2'];
const timeMode = { description: 'time expiration: 0 none, 1 suspend, 2 delete when the period ends', enum: MODE };
const timeCount = { description: 'length of the period, a positive whole number (needed with mode 1 or 2)', pattern: POSITIVE_WHOLE };
const timeUnit = { description: 'unit of the period: m minutes, h hours, D days, M months, Y years (case-sensitive)', enum: PERIOD_UNITS };

export const CREATE_SCHEMA = {
  summary: 'Create a member',
  description:
    'Any parameter that is not listed is a profile field. Periods are calendar periods from the moment of the call. Both spellings of time expiration are accepted (set_is_exp_time… and set_isexptime…).',
  tags: ['members'],
  consumes: CONSUMES,
  body: parametersSchema(
    withAccount({
      _login: { description: 'login: 1 to 64 characters, no white space; unique in the account, compared case-insensitively' },
      _email: {
        description:
          'e-mail address: one plain address (at most 254 characters, one @, no white space, none of , ; : < > ( ) " \\ [ ]), the only one mail goes to. Optional, as the hosted original had it (a member without one gets no mail), unless the account requires it (account set --require-email on)',
        format: 'email',
      },
      _password: { description: 'password (account minimum, default 8, to 1024 characters); generated when empty or left out' },
      set_urlok: { description: 'URL handed out after a successful login: absolute http(s) or a path starting with /' },
      set_urlwrong: { description: 'URL handed out after a failed login: absolute http(s) or a path starting with /' },
      set_is_exp_logins: { description: 'login-count expiration: 0 none, 1 suspend, 2 delete when the allowance is used up', enum: MODE },
      set_exp_logins: { description: 'successful logins allowed (needed with mode 1 or 2)', pattern: POSITIVE_WHOLE },
      set_is_exp_time: timeMode,
      set_exp_time: timeCount,
      set_exp_time_type: timeUnit,
      set_isexptime: { ...timeMode, description: `${timeMode.description} (other spelling)` },
      set_exptime: { ...timeCount, description: `${timeCount.description} (other spelling)` },
      set_exptimet: { ...timeUnit, description: `${timeUnit.description} (other spelling)` },
      IP: ipParameter('the member’s IPv4 or IPv6 address at registration'),
      send_welcome: {
        description: '1 mails the member the account’s welcome mail, with its verify_url (when the account has a mail server: account set --smtp-url)',
        enum: ['0', '1'],
      },
      ...ALIASES,
    }),
    {
      required: ['user', 'api_key', '_login'],
      profileFields: true,
      description: 'the member to create (login, email and password stand for _login, _email and _password when those are not sent)',
    },
  ),
  response: apiResponses(
    [
      okAnswer(
        {
          id: { type: 'string', pattern: '^[0-9]+$', description: 'the member id' },
          login: STRING,
          password: { ...STRING, description: 'the password, as sent or as generated' },
          verify_url: { type: 'string', format: 'uri', description: 'opening it (GET) marks the e-mail address verified' },
        },
        'the member is created',
        MAIL_NOT_SENT,
      ),
    ],
    'OK, or ERROR (bad parameters, wrong api key, login already taken)',
  ),
};

const BUILT_INS = parameterNames(CREATE_SCHEMA.body);

/**
 * `_login`, `_email`, `_password`, or, when it is absent, the plain name (`login`) that code
 * written against the hosted original sends, and it took. Both, with different values: an
 * ERROR naming both. Answers the name the client used (errors name it) and the value.
 */
function aliased(params: WireParams, name: keyof typeof ALIAS_OF): { name: string; value: string | undefined } {
  const plain = ALIAS_OF[name];
  const documented = params.nonEmpty(name);
  const alias = params.nonEmpty(plain);
  if (documented !== undefined && alias !== undefined && documented !== alias)
    throw new ApiError(`conflicting parameters: ${name} and ${plain} differ (send one of them)`);
  return documented !== undefined || alias === undefined ? { name, value: documented } : { name: plain, value: alias };
}

function requiredAliased(params: WireParams, name: keyof typeof ALIAS_OF): { name: string; value: string } {
  const { name: sent, value } = aliased(params, name);
  if (value === undefined) throw ApiError.missing(name);
  return { name: sent, value };
}

export function decodeCreate(params: WireParams, account: Account): CreateMemberCommand {
  // Unknown names first: `login` sent for `_login` says so, rather than `missing parameter: _login`.
  const profile = decodeProfileFields(params, BUILT_INS);
  const login = requiredAliased(params, '_login');
  // The hosted original took a member without an address (public code sends none); an account
  // may require one, as the seed does (`--require-email on`).
  const email = account.settings.requireEmail ? requiredAliased(params, '_email') : aliased(params, '_email');
  const password = aliased(params, '_password');
  return {
    login: decodeLogin(login.name, login.value),
    email: email.value === undefined ? '' : decodeEmail(email.name, email.value),
    password: password.value === undefined ? null : decodePassword(password.name, password.value, account.settings),
    urlOk: decodeUrl(params, 'set_urlok'),
    urlFail: decodeUrl(params, 'set_urlwrong'),
    loginExpiry: decodeLoginExpiry(params),
    timeExpiry: decodeTimeExpiry(params),
    ip: decodeIp(params, 'IP'),
    profile,
    sendWelcome: decodeFlag(params, 'send_welcome'),
  };
}

function decodeMode(name: string, value: string) {
  const action = expiryActionFromCreateMode(value);
  if (action === undefined) throw ApiError.invalid(name, REASONS.createMode);
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

export function registerCreateRoute(app: FastifyInstance, context: RouteContext & { members: MembersService; mirror?: WriteMirror }): void {
  apiRoute(
    app,
    '/api2/create/',
    getAndPost(CREATE_SCHEMA),
    {},
    apiHandler(context, async (params, request) => {
      const account = await authenticate(context, params, request, 'write');
      refuseGetWrite(request, account);
      await context.hashing.admit({ account: String(account.id), client: '' });
      const outcome = await context.members.create(account, decodeCreate(params, account), apiOrigin(request));
      switch (outcome.kind) {
        case 'created':
          // The upstream gets the password this member has here, generated or given.
          await mirrorWrite(request, () =>
            context.mirror?.record(account, 'create', [
              ...params.pairs().filter(([name]) => name !== '_password' && name !== 'password'),
              ['_password', outcome.password],
            ]),
          );
          return okReply({
            id: String(outcome.id),
            login: outcome.login,
            password: outcome.password,
            verify_url: outcome.verifyUrl,
            ...mailNotSent(request, account, params, 'send_welcome', outcome.email),
          });
        case 'login-taken':
          return errorBody(MESSAGES.loginTaken);
        case 'over-quota':
          return errorBody(MESSAGES.overQuota);
        case 'expiry-out-of-range':
          throw ApiError.invalid(pickSpelling(params, TIME_COUNT)?.name ?? TIME_COUNT[0], REASONS.periodTooLong);
      }
    }),
  );
}
