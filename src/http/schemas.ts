/**
 * The route schemas: what each endpoint takes and answers, as JSON Schema. They are the one
 * statement of the wire: the OpenAPI document (/api2/openapi.json, /docs) is generated from
 * them by @fastify/swagger, and the routes read from them their built-in parameters and the
 * rules a schema can state (a pattern, a maxLength, an enum, the required names), which the
 * decoders apply.
 *
 * Fastify's validator does not run them: it would judge something else than what the API
 * reads. Parameters come from the query string and the body, merged (a body value wins, the
 * last of a repeated name; multipart is read by the handler, after validation would have run);
 * an empty value is no value; codes are taken in either case; /create/'s plain names stand for
 * its underscored ones; a wrong api key is answered before a bad parameter; and each refusal
 * is the seed's `{"result":"ERROR"}` naming the parameter, with HTTP 200.
 */
import type { MemberStatus } from '../members/member.js';
import { MESSAGES } from './errors.js';

export interface JsonSchema {
  readonly [keyword: string]: unknown;
}

export interface Parameter {
  readonly description: string;
  readonly enum?: readonly string[];
  readonly pattern?: string;
  /** In characters (code points), as JSON Schema counts. */
  readonly maxLength?: number;
  readonly format?: string;
  readonly example?: string;
}

/** The body a POST takes, in every encoding the API accepts. */
export const CONSUMES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'];

const ACCOUNT_PARAMETERS = {
  user: { description: 'the account name', example: 'demo' },
  api_key: { description: 'the account’s API key' },
} satisfies Record<string, Parameter>;

/**
 * The body of an endpoint: its named parameters, which ones it needs, and whether any other
 * name is a member profile field.
 */
export function parametersSchema(
  parameters: Record<string, Parameter>,
  options: { required: readonly string[]; profileFields: boolean; description: string },
): JsonSchema {
  return {
    type: 'object',
    description: options.description,
    properties: Object.fromEntries(Object.entries(parameters).map(([name, parameter]) => [name, { type: 'string', ...parameter }])),
    required: options.required,
    additionalProperties: options.profileFields
      ? {
          type: 'string',
          description:
            'a profile field: any other name of 1 to 64 of A-Z a-z 0-9 _ . - that is not a built-in and does not begin with _, set_ or find_member_; a value of at most 64 KiB',
        }
      : false,
  };
}

/**
 * An endpoint's schemas for POST (the parameters in the body) and for GET (the same
 * parameters in the query string): code written for the hosted original sends both.
 */
export function getAndPost<S extends { description: string; body: JsonSchema; consumes?: readonly string[] }>(schema: S) {
  const { body, consumes: _consumes, ...rest } = schema;
  const get = {
    ...rest,
    description: `${schema.description} GET takes the same parameters in the query string (a key or a password in a URL can reach logs on the way: prefer POST).`,
    querystring: body,
  };
  return { GET: get, POST: schema } as const;
}

/** `user` and `api_key`, then `parameters`, each as declared: the decoders read their rules from it. */
export function withAccount<P extends Record<string, Parameter>>(parameters: P): typeof ACCOUNT_PARAMETERS & P {
  return { ...ACCOUNT_PARAMETERS, ...parameters };
}

/** The names a body schema lists: the endpoint's built-in parameters. */
export function parameterNames(schema: JsonSchema): ReadonlySet<string> {
  return new Set(Object.keys(schema.properties as object));
}

export const ERROR_ANSWER = {
  type: 'object',
  description: 'an application error (HTTP 200), or a transport problem with its own status',
  properties: {
    result: { type: 'string', const: 'ERROR' },
    message: {
      type: 'string',
      description: `short, lowercase, stable; names the parameter at fault, e.g. "missing parameter: _email", "invalid parameter: set_exp_time_type", "${MESSAGES.wrongApiKey}"`,
    },
  },
  required: ['result', 'message'],
  additionalProperties: false,
};

/** An OK answer with these fields beside `result` and `message`. */
export function okAnswer(fields: Record<string, JsonSchema>, description: string, optional: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    description,
    properties: { result: { type: 'string', const: 'OK' }, message: { type: 'string', const: '' }, ...fields, ...optional },
    required: ['result', 'message', ...Object.keys(fields)],
    additionalProperties: false,
  };
}

/** The note of an answer whose mail was asked for and could not be: the account has no mail settings. */
export const MAIL_NOT_SENT = {
  mail: {
    type: 'string',
    enum: ['not sent: no mail settings', 'not sent: no address'],
    description:
      'present when a mail was asked for (send_welcome=1, send_mail=1) and none is sent: the account has no mail settings (account set --smtp-url), or the member has no e-mail address',
  },
};

/** The transport errors every API endpoint may answer, with the seed's body shape. */
const TRANSPORT_ERRORS: Record<string, string> = {
  404: 'unknown path',
  405: 'method not allowed on this path (with Allow)',
  408: 'the request took too long to arrive',
  413: 'body, a parameter or the parameter count too large',
  415: 'unsupported content type',
  429: 'rate limited (wrong API keys from this address, or the account’s request rate); with Retry-After',
  500: 'internal error (never with internals)',
  503: 'store unavailable, or password hashing at capacity; with Retry-After',
};

/** Responses of an API endpoint: HTTP 200 with any of `answers`, or a transport error. */
export function apiResponses(answers: JsonSchema[], description: string): JsonSchema {
  return {
    200: { description, oneOf: [...answers, ERROR_ANSWER] },
    ...Object.fromEntries(Object.entries(TRANSPORT_ERRORS).map(([status, text]) => [status, { ...ERROR_ANSWER, description: text }])),
  };
}

export const STRING = { type: 'string' } as const;

/**
 * An `IP` parameter (decoders.ts: decodeIp): one IPv4 or IPv6 address, or a forwarded list as
 * an X-Forwarded-For header holds it, of which the first valid address is taken.
 */
export function ipParameter(description: string) {
  return { description: `${description}; a forwarded list (\`203.0.113.5, 10.0.0.1\`) gives its first valid address`, example: '203.0.113.5' };
}
/** A count on the wire: a whole number from 1 to 999999999 (`007` is 7). */
export const POSITIVE_WHOLE = '^(?!0+$)[0-9]{1,9}$';
/**
 * A member id on the wire: a positive integer of at most 15 digits, as the store hands them
 * out and the import takes them (and a JavaScript number holds exactly: a longer one would be
 * rounded to another member's).
 */
export const MEMBER_ID = '[1-9][0-9]{0,14}';
export const MEMBER_STATUSES = ['A', 'S', 'D'] as const satisfies readonly MemberStatus[];
