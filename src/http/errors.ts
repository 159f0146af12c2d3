/**
 * The catalog of error answers, and the one handler for everything unexpected.
 *
 * Application outcomes (ERROR, FAIL) are HTTP 200 with the seed's body: legacy clients read
 * `result`, and some lose the body on a 4xx. Transport problems get their real status, with
 * the same body shape. No answer ever carries a stack trace, SQL or a file path.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HashingBusy } from '../auth/hashing-gate.js';
import { StoreOutcomeUnknown, StoreUnavailable } from '../common/store-errors.js';
import type { Metrics } from '../observability/metrics.js';

/** Every fixed message the API answers with. Parameter messages are built by ApiError. */
export const MESSAGES = {
  wrongApiKey: 'wrong api key',
  keyScope: 'api key not allowed for this call',
  memberNotFound: 'member not found',
  loginTaken: 'login already taken',
  wrongLoginOrPassword: 'wrong login or password',
  memberSuspended: 'member suspended',
  sessionNotFound: 'session not found',
  severalMembers: 'the selector finds several members',
  tooManyProfileFields: 'too many profile fields',
  overQuota: 'storage quota exceeded',
  exactlyOneSelector: 'exactly one selector is required',
  nothingToChange: 'nothing to change',
  loginNotUnique: 'login cannot be set on several members',
  malformedBody: 'malformed request body',
  notFound: 'not found',
  methodNotAllowed: 'method not allowed',
  bodyTooLarge: 'request body too large',
  unsupportedContentType: 'unsupported content type',
  requestTimeout: 'request timeout',
  tooManyRequests: 'too many requests',
  busy: 'server busy, retry later',
  unavailable: 'service unavailable',
  outcomeUnknown: 'service unavailable (the change may or may not have been applied)',
  internal: 'internal error',
} as const;

/**
 * Why a value is refused, after `invalid parameter: NAME`: what it must be, said so that the
 * member (or the integrator) can fix it. The error table of docs/api.md lists them.
 */
export const REASONS = {
  flag: 'must be 0 or 1',
  login: '1 to 64 characters, no white space or control characters',
  email: 'one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ]',
  tooShort: (min: number) => `too short: at least ${min} characters`,
  tooLong: (max: number) => `too long: at most ${max} characters`,
  tooCommon: 'too common: it is on lists of breached passwords',
  url: 'an absolute http(s) URL or a path starting with /, at most 2048 characters, no backslash',
  ip: 'not an IPv4 or IPv6 address, nor a list of them',
  count: 'a whole number from 1 to 999999999',
  periodUnit: 'one of m h D M Y, in this case: m is minutes, M months',
  periodTooLong: 'the period ends after the year 9999',
  createMode: 'one of 0 1 2',
  /** A code of the seed (`status`, `reg_type`, `is_exp_time`…), from its schema's enum: `one of A S D, in either case`. */
  code: (codes: readonly string[]) => `one of ${codes.join(' ')}, in either case`,
  memberId: 'a member id, or *',
  profileName: '1 to 64 of A-Z a-z 0-9 _ . -',
  profileValue: 'longer than 65536 bytes',
  passwordLike: (builtIn: string) => `looks like a password, and profile fields are kept in clear: send a password as ${builtIn}`,
  record: 'a run of {name} tokens, each a built-in field or a profile field',
  limit: 'NNN (how many) or NNNs (registered in the last NNN seconds)',
  limitd: 'NNNs (deleted in the last NNN seconds)',
  day: 'a day as YYYY-MM-DD',
  notText: 'not a string',
  nul: 'contains U+0000',
} as const;

export interface ErrorBody {
  result: 'ERROR';
  message: string;
}

export function errorBody(message: string): ErrorBody {
  return { result: 'ERROR', message };
}

/** Shown in messages: long or odd names are cut, so an answer never echoes a huge input. */
function shown(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

/**
 * An expected failure caused by the request's parameters. Routes turn it into a 200 ERROR
 * answer; it never reaches the error handler.
 */
export class ApiError extends Error {
  static missing(name: string): ApiError {
    return new ApiError(`missing parameter: ${shown(name)}`);
  }
  /** `invalid parameter: NAME`, with the reason when one helps the caller fix it: `(too short: at least 8)`. */
  static invalid(name: string, reason?: string): ApiError {
    return new ApiError(`invalid parameter: ${shown(name)}${reason ? ` (${reason})` : ''}`);
  }
  /** `unknown parameter: NAME`, with the name meant when it is a near miss of one: `(did you mean IP?)`. */
  static unknown(name: string, meant?: string): ApiError {
    return new ApiError(`unknown parameter: ${shown(name)}${meant ? ` (did you mean ${meant}?)` : ''}`);
  }
}

/** A transport problem with its own HTTP status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** 429, saying when to come back. */
export class TooManyRequests extends HttpError {
  constructor(retryAfterSeconds: number) {
    super(429, MESSAGES.tooManyRequests, { 'retry-after': String(retryAfterSeconds) });
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(message: string = MESSAGES.bodyTooLarge) {
    super(413, message);
  }
}

const STATUS_MESSAGES: Record<number, string> = {
  400: MESSAGES.malformedBody,
  404: MESSAGES.notFound,
  405: MESSAGES.methodNotAllowed,
  408: MESSAGES.requestTimeout,
  413: MESSAGES.bodyTooLarge,
  415: MESSAGES.unsupportedContentType,
  429: MESSAGES.tooManyRequests,
  503: MESSAGES.unavailable,
};

/** The status and message a thrown error is answered with. */
export function describeError(error: unknown): { statusCode: number; message: string } {
  if (error instanceof HttpError) return { statusCode: error.statusCode, message: error.message };
  if (error instanceof StoreOutcomeUnknown) return { statusCode: 503, message: MESSAGES.outcomeUnknown };
  if (error instanceof StoreUnavailable) return { statusCode: 503, message: MESSAGES.unavailable };
  if (error instanceof HashingBusy) return { statusCode: 503, message: MESSAGES.busy };
  const statusCode = (error as Partial<FastifyError> | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // Fastify's and the plugins' 4xx errors: a 406 from the multipart parser is a malformed body.
    const known = STATUS_MESSAGES[statusCode];
    return known ? { statusCode, message: known } : { statusCode: 400, message: MESSAGES.malformedBody };
  }
  if (statusCode === 503) return { statusCode: 503, message: MESSAGES.unavailable };
  return { statusCode: 500, message: MESSAGES.internal };
}

/** The app's error handler; a store that is unavailable is counted in `metrics` when there are some. */
export function errorHandler(metrics?: Pick<Metrics, 'countStoreUnavailable'>) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    if (error instanceof StoreUnavailable) metrics?.countStoreUnavailable(error instanceof StoreOutcomeUnknown ? 'unknown' : 'refused');
    handleError(error, request, reply);
  };
}

export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { statusCode, message } = describeError(error);
  // An outage is expected now and then: one line, not a stack per request. A full hashing
  // queue is the server shedding load as designed.
  if (error instanceof HashingBusy || (error instanceof HttpError && error.message === MESSAGES.busy)) request.log.info({ statusCode }, 'server busy');
  else if (statusCode === 503)
    request.log.warn({ reason: (error as Error)?.cause instanceof Error ? ((error as Error).cause as Error).message : String(error) }, 'store unavailable');
  else if (statusCode >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ statusCode, reason: (error as Error)?.message }, 'request refused');
  if (statusCode === 503) reply.header('retry-after', '1');
  if (error instanceof HttpError) reply.headers(error.headers);
  void reply.code(statusCode).type('application/json; charset=utf-8').send(errorBody(message));
}
