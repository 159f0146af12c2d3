/**
 * POST /api2/session/: is this /login/ session still valid? And POST /api2/logout/: end it.
 * Neither takes an API key: the session id (192 random bits) is the credential, as a
 * member's browser would hold it.
 */
import type { FastifyInstance } from 'fastify';
import { MAX_RECORD_FIELDS } from '../../members/fields.js';
import { parseRecordTemplate } from '../../members/record-template.js';
import { STATUS } from '../../members/member-fields.js';
import type { SessionRecord, SessionsService } from '../../members/sessions.js';
import { ApiError, MESSAGES, REASONS } from '../errors.js';
import { okReply } from '../replies.js';
import { apiHandler, type RouteContext } from '../route-kit.js';
import { apiResponses, CONSUMES, okAnswer, parametersSchema, STRING } from '../schemas.js';

const SESSION_PARAMETERS = {
  user: { description: 'the account name', example: 'demo' },
  session: { description: 'the session id /login/ answered' },
};

const NOT_FOUND = {
  type: 'object',
  description: 'the session is not valid: it never existed, or it ended (logout, lifetimes, member suspended, deleted, expired, password changed, revoked); the same answer, in the same time',
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
      record: { description: 'more fields of the member, as a /list/ record: a run of {name} tokens', example: '{reg_date}{city}' },
    },
    { required: ['user', 'session'], profileFields: false, description: 'the session to check' },
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
            expires: { ...STRING, description: 'when the session ends unless checked again (idle), or for good (lifetime): YYYY-MM-DD hh:mm:ss in the account’s time zone' },
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
  body: parametersSchema(SESSION_PARAMETERS, { required: ['user', 'session'], profileFields: false, description: 'the session to end' }),
  response: apiResponses([okAnswer({}, 'the session is ended (or was not valid)')], 'OK, or ERROR (bad parameters)'),
};

/** Longer than any id /login/ hands out: refused before it is hashed. */
const MAX_SESSION_LENGTH = 256;

export function registerSessionRoutes(app: FastifyInstance, context: RouteContext & { sessions: SessionsService }): void {
  const { sessions } = context;
  app.post(
    '/api2/session/',
    { schema: SESSION_SCHEMA, bodyLimit: context.limits.bodyLimitBytes },
    apiHandler(context, async (params) => {
      const user = params.required('user');
      const session = params.required('session');
      if (session.length > MAX_SESSION_LENGTH) throw ApiError.invalid('session', `at most ${MAX_SESSION_LENGTH} characters`);
      const template = params.nonEmpty('record');
      let record: SessionRecord | undefined;
      if (template !== undefined) {
        const fields = parseRecordTemplate(template);
        if (!fields) throw ApiError.invalid('record', REASONS.record);
        if (fields.length > MAX_RECORD_FIELDS) throw ApiError.invalid('record', `at most ${MAX_RECORD_FIELDS} fields`);
        record = { template, fields };
      }
      const recent = context.accounts.findRecent(user);
      const account = recent instanceof Promise ? await recent : recent;
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
      if (checked.record) for (const [name, value] of Object.entries(JSON.parse(checked.record) as Record<string, string>)) if (!(name in answer)) answer[name] = value;
      return answer;
    }),
  );
  app.post(
    '/api2/logout/',
    { schema: LOGOUT_SCHEMA, bodyLimit: context.limits.bodyLimitBytes },
    apiHandler(context, async (params) => {
      const user = params.required('user');
      const session = params.required('session');
      if (session.length <= MAX_SESSION_LENGTH) {
        const account = await context.accounts.findRecent(user);
        if (account) await sessions.end(account, session);
      }
      return okReply({});
    }),
  );
}
