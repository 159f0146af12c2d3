/** POST /api2/update/: change one member, several, or all (seed 4.3). */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { PERIOD_UNITS } from '../../members/lifecycle.js';
import { MAX_PFDELETE_NAMES, MAX_UPDATE_PROFILE_BYTES } from '../../members/fields.js';
import type { MemberSelector } from '../../members/member-store.js';
import { changesSomething, type MembersService, type UpdateMembersCommand } from '../../members/members-service.js';
import {
  decodeCode,
  decodeEmail,
  decodeFlag,
  decodeLogin,
  decodePassword,
  decodePeriodUnit,
  decodePositiveInteger,
  decodeProfileFields,
  decodeUrl,
  matchPattern,
} from '../decoders.js';
import { ApiError, errorBody, MESSAGES, REASONS } from '../errors.js';
import type { WireParams } from '../params.js';
import { okReply } from '../replies.js';
import { apiHandler, apiOrigin, apiRoute, authenticate, mirrorWrite, refuseGetWrite, type RouteContext } from '../route-kit.js';
import type { WriteMirror } from '../../upstream/write-mirror.js';
import {
  apiResponses,
  CONSUMES,
  getAndPost,
  MEMBER_ID,
  MEMBER_STATUSES,
  okAnswer,
  parameterNames,
  parametersSchema,
  POSITIVE_WHOLE,
  withAccount,
} from '../schemas.js';

const ACTION = ['N', 'S', 'D'] as const;

/** The find_member_* parameters (also /reset/'s). */
export const SELECTOR_PARAMETERS = {
  find_member_login: { description: 'selects the member with this login (any state), case-insensitively' },
  find_member_email: { description: 'selects every member with this e-mail address (any state), case-insensitively' },
  find_member_ptrans: { description: 'selects the paid members whose billing id or subscription id is this' },
  find_member_id: { description: 'selects the member with this id (any state), or * for every member that is not Deleted', pattern: `^(${MEMBER_ID}|\\*)$` },
};

const UPDATE_PARAMETERS = withAccount({
  ...SELECTOR_PARAMETERS,
  login: { description: 'new login (only when one member matches)' },
  email: { description: 'new e-mail address: one plain address, as _email on /create/ (a new address is not verified)', format: 'email' },
  password: { description: 'new password' },
  urlok: { description: 'URL after a successful login; empty clears it' },
  urlfail: { description: 'URL after a failed login; empty clears it' },
  status: { description: 'A active, S suspended, D deleted (A restores a Deleted member)', enum: MEMBER_STATUSES },
  is_exp_time: { description: 'time expiration: N none, S suspend, D delete when the period ends; the period starts now', enum: ACTION },
  exp_time: { description: 'length of the period (needed with S or D)', pattern: POSITIVE_WHOLE },
  exp_time_type: { description: 'unit: m minutes, h hours, D days, M months, Y years', enum: PERIOD_UNITS },
  is_exp_logins: { description: 'login-count expiration: N none, S suspend, D delete when used up; counts from now', enum: ACTION },
  exp_logins: { description: 'successful logins allowed (needed with S or D)', pattern: POSITIVE_WHOLE },
  pfdelete: { description: 'comma-separated profile field names to remove' },
  revoke_sessions: { description: '1 ends every session of the matched members (a new password, S and D end them anyway)', enum: ['0', '1'] },
  dry_run: {
    description: '1 changes nothing and answers would_update: how many members the selector matches now (the parameters are checked as for the update)',
    enum: ['0', '1'],
  },
});

export const UPDATE_SCHEMA = {
  summary: 'Change members',
  description:
    'Exactly one find_member_* selector. All matched members change in one transaction, or none does. Any parameter that is not listed sets a profile field.',
  tags: ['members'],
  consumes: CONSUMES,
  body: parametersSchema(UPDATE_PARAMETERS, { required: ['user', 'api_key'], profileFields: true, description: 'a selector and what to change' }),
  response: apiResponses(
    [
      okAnswer({ updated: { type: 'integer', minimum: 1, description: 'how many members changed' } }, 'the members are changed'),
      okAnswer({ would_update: { type: 'integer', minimum: 0, description: 'how many members the update would change' } }, 'dry_run=1: nothing changed'),
    ],
    'OK, or ERROR (bad parameters, wrong api key, member not found, login already taken, nothing to change)',
  ),
};

const SELECTORS = ['find_member_login', 'find_member_email', 'find_member_ptrans', 'find_member_id'] as const;
const BUILT_INS = parameterNames(UPDATE_SCHEMA.body);

/** Whether a name is one of /update/'s own parameters (`revoke_sessions`, `dry_run`…): never a profile field there. */
export function isUpdateParameter(name: string): boolean {
  return BUILT_INS.has(name.toLowerCase());
}

/** N none (null), S suspend, D delete, in either case; undefined when not sent. */
function decodeAction(params: WireParams, name: 'is_exp_time' | 'is_exp_logins'): 'S' | 'D' | null | undefined {
  const code = decodeCode(params, name, UPDATE_PARAMETERS[name].enum);
  return code === 'N' ? null : code;
}

export function decodeSelector(params: WireParams): MemberSelector {
  const sent = SELECTORS.filter((name) => params.nonEmpty(name) !== undefined);
  if (sent.length !== 1) throw new ApiError(MESSAGES.exactlyOneSelector);
  const value = params.nonEmpty(sent[0]!)!;
  switch (sent[0]!) {
    case 'find_member_login':
      return { by: 'login', login: value };
    case 'find_member_email':
      return { by: 'email', email: value };
    case 'find_member_ptrans':
      return { by: 'ptrans', value };
    case 'find_member_id':
      if (!matchPattern(SELECTOR_PARAMETERS.find_member_id.pattern, value)) throw ApiError.invalid('find_member_id', REASONS.memberId);
      return value === '*' ? { by: 'all' } : { by: 'id', id: Number(value) };
  }
}

/** A URL setting: absent stays, empty clears (the account's default applies), else a URL. */
function decodeUrlChange(params: WireParams, name: string): string | null | undefined {
  if (params.get(name) === undefined) return undefined;
  return decodeUrl(params, name);
}

/** The profile field with the largest value set: the one to name when an update writes too much. */
function largestField(params: WireParams): string {
  let largest = '';
  let size = -1;
  for (const name of params.names()) {
    if (BUILT_INS.has(name)) continue;
    const bytes = Buffer.byteLength(params.get(name) ?? '');
    if (bytes > size) [largest, size] = [name, bytes];
  }
  return largest;
}

/** A comma-separated list of profile field names (white space trimmed, empty ones skipped). */
function decodeFieldNames(params: WireParams, name: string): string[] {
  const names = [
    ...new Set(
      (params.get(name) ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== ''),
    ),
  ];
  if (names.length > MAX_PFDELETE_NAMES) throw ApiError.invalid(name, `at most ${MAX_PFDELETE_NAMES} names`);
  return names;
}

export function decodeUpdate(params: WireParams, account: Account): UpdateMembersCommand {
  const setFields = decodeProfileFields(params, BUILT_INS);
  const selector = decodeSelector(params);
  const login = params.nonEmpty('login');
  const email = params.nonEmpty('email');
  const password = params.nonEmpty('password');
  const status = decodeCode(params, 'status', UPDATE_PARAMETERS.status.enum);
  const timeAction = decodeAction(params, 'is_exp_time');
  const loginsAction = decodeAction(params, 'is_exp_logins');

  const command: UpdateMembersCommand = {
    selector,
    login: login === undefined ? undefined : decodeLogin('login', login),
    email: email === undefined ? undefined : decodeEmail('email', email),
    password: password === undefined ? undefined : decodePassword('password', password, account.settings),
    urlOk: decodeUrlChange(params, 'urlok'),
    urlFail: decodeUrlChange(params, 'urlfail'),
    status,
    timeExpiry:
      timeAction === undefined || timeAction === null
        ? timeAction
        : {
            action: timeAction,
            count: decodePositiveInteger('exp_time', params.nonEmpty('exp_time')),
            unit: decodePeriodUnit('exp_time_type', params.nonEmpty('exp_time_type')),
          },
    loginExpiry:
      loginsAction === undefined || loginsAction === null
        ? loginsAction
        : { action: loginsAction, count: decodePositiveInteger('exp_logins', params.nonEmpty('exp_logins')) },
    deleteFields: decodeFieldNames(params, 'pfdelete'),
    setFields,
    revokeSessions: decodeFlag(params, 'revoke_sessions'),
  };
  if (!changesSomething(command)) throw new ApiError(MESSAGES.nothingToChange);
  return command;
}

/** Why an update did not go through, as the API answers it (and the console shows it). */
export const UPDATE_REFUSALS = {
  'not-found': MESSAGES.memberNotFound,
  'login-taken': MESSAGES.loginTaken,
  'login-not-unique': MESSAGES.loginNotUnique,
  'too-many-fields': MESSAGES.tooManyProfileFields,
  'over-quota': MESSAGES.overQuota,
  'too-large': `profile values over ${MAX_UPDATE_PROFILE_BYTES / 1024 / 1024} MiB per update`,
  'expiry-out-of-range': REASONS.periodTooLong,
  // Only a console preview's confirmation asks for a selection; the API never does.
  'selection-changed': 'the members found changed since the preview',
} as const;

export function registerUpdateRoute(app: FastifyInstance, context: RouteContext & { members: MembersService; mirror?: WriteMirror }): void {
  apiRoute(
    app,
    '/api2/update/',
    getAndPost(UPDATE_SCHEMA),
    {},
    apiHandler(context, async (params, request) => {
      const account = await authenticate(context, params, request, 'write');
      refuseGetWrite(request, account);
      const command = decodeUpdate(params, account);
      if (decodeFlag(params, 'dry_run')) return okReply({ would_update: (await context.members.countSelected(account, command.selector)).count });
      const mirrored = await mirrorWrite(request, () => context.mirror?.prepareUpdate(account, params.pairs()));
      const outcome = await context.members.update(account, command, apiOrigin(request));
      switch (outcome.kind) {
        case 'updated':
          if (mirrored) await mirrorWrite(request, () => context.mirror?.record(account, 'update', mirrored));
          return okReply({ updated: outcome.count });
        case 'not-found':
        case 'login-taken':
        case 'login-not-unique':
        case 'too-many-fields':
        case 'over-quota':
        case 'selection-changed':
          return errorBody(UPDATE_REFUSALS[outcome.kind]);
        case 'too-large':
          throw ApiError.invalid(largestField(params), `profile values × members matched over ${MAX_UPDATE_PROFILE_BYTES / 1024 / 1024} MiB per update`);
        case 'expiry-out-of-range':
          throw ApiError.invalid('exp_time', REASONS.periodTooLong);
      }
    }),
  );
}
