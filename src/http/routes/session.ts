/**
 * POST /api2/session/: is this /login/ session still valid? And POST /api2/logout/: end it.
 * Neither needs an API key: the session id (192 random bits) is the credential, as a
 * member's browser would hold it. So a check without a key reads only the fields the account
 * lets a session read (`--session-fields`); one that sends a key that may read reads any.
 */
import type { FastifyInstance } from 'fastify';
import { DEFAULT_SETTINGS, SESSION_ANSWER_FIELDS, type Account } from '../../accounts/account.js';
import { MAX_RECORD_FIELDS } from '../../members/fields.js';
import { parseRecordTemplate, type RecordField } from '../../members/record-template.js';
import { STATUS } from '../../members/member-fields.js';
import type { SessionRecord, SessionsService } from '../../members/sessions.js';
import { ApiError, MESSAGES, REASONS } from '../errors.js';
import { okReply } from '../replies.js';
import { apiHandler, authenticate, type RouteContext } from '../route-kit.js';
import { apiResponses, CONSUMES, okAnswer, parametersSchema, STRING } from '../schemas.js';

/** Longer than any id /login/ hands out: refused before it is hashed. */
const MAX_SESSION_LENGTH = 256;

const SESSION_PARAMETERS = {
  user: { description: 'the account name', example: 'demo' },
  session: { description: 'the session id /login/ answered', maxLength: MAX_SESSION_LENGTH },
};
/** What /session/ and /logout/ cannot do without, in the order a missing one is named. */
const SESSION_REQUIRED = ['user', 'session'] as const;

const NOT_FOUND = {
  type: 'object',
  description:
    'the session is not valid: it never existed, or it ended (logout, lifetimes, member suspended, deleted, expired, password changed, revoked); the same answer, in the same time',
  properties: { result: { type: 'string', const: 'FAIL' }, message: { type: 'string', const: MESSAGES.sessionNotFound } },
  required: ['result', 'message'],
  additionalProperties: false,
};

export const SESSION_SCHEMA = {
  summary: 'Check a member’s session',
  description:
    'OK while the session /login/ handed out is valid, with its member (and the fields of `record`, rendered as /list/ renders them); a valid check moves the idle deadline. FAIL "session not found" otherwise.',
  tags: ['sessions'],
  consumes: CONSUMES,
  body: parametersSchema(
    {
      ...SESSION_PARAMETERS,
      record: {
        description:
          'more fields of the member, as a /list/ record: a run of {name} tokens. Without api_key, only the fields the account lets a session read (account set NAME --session-fields; by default the dates and reg_type, no profile field)',
        example: '{reg_date}{reg_type}',
      },
      api_key: { description: 'a key of the account that may read (scope all or read): the record may then name any field' },
    },
    { required: SESSION_REQUIRED, profileFields: false, description: 'the session to check' },
  ),
  response: apiResponses(
    [
      {
        ...okAnswer(
          {
            id: { ...STRING, description: 'the member id' },
            login: STRING,
            email: STRING,
            status: { type: 'string', const: 'Active' },
            expires: {
              ...STRING,
              description: 'when the session ends unless checked again (idle), or for good (lifetime): YYYY-MM-DD hh:mm:ss in the account’s time zone',
            },
          },
          'the session is valid',
        ),
        additionalProperties: { type: 'string', description: 'a field of `record`' },
      },
      NOT_FOUND,
    ],
    'OK, FAIL, or ERROR (bad parameters)',
  ),
};

export const LOGOUT_SCHEMA = {
  summary: 'End a member’s session',
  description: 'Ends the session, if it is valid; the answer is OK either way.',
  tags: ['sessions'],
  consumes: CONSUMES,
  body: parametersSchema(SESSION_PARAMETERS, { required: SESSION_REQUIRED, profileFields: false, description: 'the session to end' }),
  response: apiResponses([okAnswer({}, 'the session is ended (or was not valid)')], 'OK, or ERROR (bad parameters)'),
};

/**
 * The first field of the record that a check without a key may not read. An unknown account
 * is judged by the default settings: its answer is then the same as a real account's.
 */
function unreadableField(fields: readonly RecordField[], account: Account | undefined): string | undefined {
  const allowed = (account?.settings ?? DEFAULT_SETTINGS).sessionFields;
  return fields.find((field) => !SESSION_ANSWER_FIELDS.includes(field.name) && !allowed.includes(field.name))?.name;
}

export function registerSessionRoutes(app: FastifyInstance, context: RouteContext & { sessions: SessionsService }): void {
  const { sessions } = context;
  app.post(
    '/api2/session/',
    { schema: SESSION_SCHEMA, bodyLimit: context.limits.bodyLimitBytes },
    apiHandler(context, async (params, request) => {
      const { user, session } = params.requiredAll(SESSION_REQUIRED);
      // In UTF-16 units, not the schema's code points: stricter only for characters no session id has.
      const { maxLength } = SESSION_PARAMETERS.session;
      if (session.length > maxLength) throw ApiError.invalid('session', `at most ${maxLength} characters`);
      // A key is checked as on /list/: wrong, it is `wrong api key`, whatever the session.
      const keyed = params.nonEmpty('api_key') === undefined ? undefined : await authenticate(context, params, request, 'read');
      const template = params.nonEmpty('record');
      let record: SessionRecord | undefined;
      if (template !== undefined) {
        const fields = parseRecordTemplate(template);
        if (!fields) throw ApiError.invalid('record', REASONS.record);
        if (fields.length > MAX_RECORD_FIELDS) throw ApiError.invalid('record', `at most ${MAX_RECORD_FIELDS} fields`);
        record = { template, fields };
      }
      const recent = keyed ?? context.accounts.findRecent(user);
      const account = recent instanceof Promise ? await recent : recent;
      const unreadable = record && !keyed ? unreadableField(record.fields, account) : undefined;
      if (unreadable !== undefined) {
        throw ApiError.invalid('record', `{${unreadable}} is not readable with the session alone: send api_key, or name it in the account's --session-fields`);
      }
      const checking = account ? sessions.check(account, session, record) : ({ kind: 'not-found' } as const);
      const checked = checking instanceof Promise ? await checking : checking;
      if (checked.kind === 'not-found' || !account) return { result: 'FAIL', message: MESSAGES.sessionNotFound };
      const { member } = checked;
      const answer: Record<string, string> = okReply({
        id: String(member.id),
        login: member.login,
        email: member.email,
        status: STATUS.name('A'),
        expires: sessions.formatTime(account, checked.expiresAt),
      });
      // The record's fields after the answer's own (`result` first, as every answer), never
      // in their place (a profile field named `result` cannot change the outcome).
      // Own properties only: a profile field named `constructor` or `toString` is the member's.
      // Defined, not assigned: a record may name `__proto__` (answered empty, as no profile
      // field can be called that), which an assignment would take for the prototype.
      if (checked.record) {
        for (const [name, value] of Object.entries(JSON.parse(checked.record) as Record<string, string>)) {
          if (!Object.hasOwn(answer, name)) Object.defineProperty(answer, name, { value, enumerable: true, writable: true, configurable: true });
        }
      }
      return answer;
    }),
  );
  app.post(
    '/api2/logout/',
    { schema: LOGOUT_SCHEMA, bodyLimit: context.limits.bodyLimitBytes },
    apiHandler(context, async (params) => {
      const { user, session } = params.requiredAll(SESSION_REQUIRED);
      if (session.length <= SESSION_PARAMETERS.session.maxLength) {
        const account = await context.accounts.findRecent(user);
        if (account) await sessions.end(account, session);
      }
      return okReply({});
    }),
  );
}
