/**
 * GET|POST /api2/list/: list members (seed 4.4). The answer is streamed: the count, then
 * the members as the store's cursor yields them, so a million members list in flat memory.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { parseDay, type CalendarDay } from '../../members/lifecycle.js';
import type { RegType } from '../../members/member.js';
import { MAX_EMAIL_LENGTH, MAX_FIELD_FILTERS, MAX_LOGIN_LENGTH, MAX_RECORD_FIELDS } from '../../members/fields.js';
import { isProfileFieldName } from '../../members/profile-fields.js';
import type { ListMembersCommand, MembersService } from '../../members/members-service.js';
import { DEFAULT_RECORD, parseRecordTemplate } from '../../members/record-template.js';
import { ApiError, REASONS } from '../errors.js';
import type { WireParams } from '../params.js';
import { apiHandler, apiRoute, authenticate, type RouteContext } from '../route-kit.js';
import { decodeCode, matchPattern, nearMiss, typoOf } from '../decoders.js';
import type { ConcurrencySlots } from '../concurrency.js';
import { cutOffWhenStalled } from '../stall-watchdog.js';
import { apiResponses, CONSUMES, getAndPost, MEMBER_STATUSES, parameterNames, parametersSchema, withAccount } from '../schemas.js';

const REG_TYPES = ['F', 'P', 'A', 'M'] as const satisfies readonly RegType[];
/**
 * Search texts are at most as long as what they can match (a login, an address) or, in
 * profiles, this: a long text costs the trigram index one lookup per three characters.
 */
const PROFILE_SEARCH_LENGTH = 256;

const LIST_PARAMETERS = withAccount({
  record: {
    description: 'the fields of each member as a run of {name} tokens: built-in fields and profile fields; default {id}{login}{email}{status}',
    example: '{id}{login}{email}{reg_date}{city}',
  },
  login: { description: 'login contains this text (case-insensitive)', maxLength: MAX_LOGIN_LENGTH },
  login_full: { description: 'login is this (case-insensitive)', maxLength: MAX_LOGIN_LENGTH },
  email: { description: 'e-mail address contains this text (case-insensitive)', maxLength: MAX_EMAIL_LENGTH },
  email_full: { description: 'e-mail address is this (case-insensitive)', maxLength: MAX_EMAIL_LENGTH },
  status: { description: 'A, S or D; without it (and without limitd) Deleted members are left out', enum: MEMBER_STATUSES },
  reg_type: { description: 'F free, P paid, A API, M manual', enum: REG_TYPES },
  profile: { description: 'some profile field contains this text (case-insensitive)', maxLength: PROFILE_SEARCH_LENGTH },
  register_after: { description: 'registered on a later day than this (YYYY-MM-DD, in the account’s time zone)', format: 'date' },
  register_before: { description: 'registered on an earlier day than this (YYYY-MM-DD)', format: 'date' },
  limit: {
    description: 'NNN: at most NNN members; NNNs: registered in the last NNN seconds; may be sent twice to combine both',
    pattern: '^([0-9]{1,10})(s?)$',
  },
  limitd: { description: 'NNNs: members deleted in the last NNN seconds', pattern: '^([0-9]{1,10})s$' },
});

const LIST_DESCRIPTION =
  'Members in id order, streamed. Filters combine with AND; profile:<field>=text filters on one profile field. Parameters may come in the query string or (POST) the body.';

const LIST_RESPONSES = apiResponses(
  [
    {
      type: 'object',
      description: 'the members (every value a string), and how many match before limit=NNN',
      properties: {
        members: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } },
        members_total: { type: 'integer', minimum: 0 },
      },
      required: ['members', 'members_total'],
      additionalProperties: false,
    },
  ],
  'the list, or ERROR (bad filter, wrong api key)',
);

const listParameters = parametersSchema(LIST_PARAMETERS, { required: ['user', 'api_key'], profileFields: false, description: 'filters and the record' });

export const LIST_SCHEMAS = getAndPost({
  summary: 'List members',
  description: LIST_DESCRIPTION,
  tags: ['members'],
  consumes: CONSUMES,
  body: listParameters,
  response: LIST_RESPONSES,
});

const KNOWN = parameterNames(listParameters);
const PROFILE_FIELD_FILTER = 'profile:';

/** A search text, at most its parameter's maxLength (a `profile:NAME` filter: `profile`'s), counted as the schema counts it. */
function searchText(params: WireParams, name: string, { maxLength }: { maxLength: number }): string | undefined {
  const value = params.nonEmpty(name);
  if (value !== undefined && [...value].length > maxLength) throw ApiError.invalid(name, REASONS.tooLong(maxLength));
  return value;
}

function day(params: WireParams, name: string): CalendarDay | undefined {
  const value = params.nonEmpty(name);
  if (value === undefined) return undefined;
  const parsed = parseDay(value);
  if (!parsed) throw ApiError.invalid(name, REASONS.day);
  return parsed;
}

export function decodeList(params: WireParams): ListMembersCommand {
  for (const name of params.names()) {
    if (KNOWN.has(name)) continue;
    // A slip for a filter says which; any other profile field's name was likely meant as
    // `profile:NAME`, the filter on that field.
    if (!name.startsWith(PROFILE_FIELD_FILTER))
      throw ApiError.unknown(name, nearMiss(name, KNOWN) ?? typoOf(name, KNOWN) ?? (isProfileFieldName(name) ? `${PROFILE_FIELD_FILTER}${name}` : undefined));
    if (!isProfileFieldName(name.slice(PROFILE_FIELD_FILTER.length))) throw ApiError.invalid(name, REASONS.profileName);
  }
  const record = parseRecordTemplate(params.nonEmpty('record') ?? DEFAULT_RECORD);
  if (!record) throw ApiError.invalid('record', REASONS.record);
  if (record.length > MAX_RECORD_FIELDS) throw ApiError.invalid('record', `at most ${MAX_RECORD_FIELDS} fields`);

  // `limit` comes as NNN (how many) or NNNs (registered in the last NNN seconds), or both.
  let limit: number | null = null;
  let registeredWithinSeconds: number | undefined;
  for (const value of params.getAll('limit')) {
    const match = matchPattern(LIST_PARAMETERS.limit.pattern, value);
    if (!match) throw ApiError.invalid('limit', REASONS.limit);
    if (match[2]) registeredWithinSeconds = Number(match[1]);
    else limit = Number(match[1]);
  }
  const limitd = params.nonEmpty('limitd');
  const deleted = limitd === undefined ? undefined : matchPattern(LIST_PARAMETERS.limitd.pattern, limitd);
  if (deleted === null) throw ApiError.invalid('limitd', REASONS.limitd);

  const fieldFilters = [...params.names()].filter((name) => name.startsWith(PROFILE_FIELD_FILTER) && params.nonEmpty(name) !== undefined);
  if (fieldFilters.length > MAX_FIELD_FILTERS) throw ApiError.invalid(fieldFilters[MAX_FIELD_FILTERS]!, `at most ${MAX_FIELD_FILTERS} profile: filters`);
  const profileFieldContains = fieldFilters.map((name) => ({
    name: name.slice(PROFILE_FIELD_FILTER.length),
    text: searchText(params, name, LIST_PARAMETERS.profile)!,
  }));

  return {
    record,
    filters: {
      loginContains: searchText(params, 'login', LIST_PARAMETERS.login),
      login: searchText(params, 'login_full', LIST_PARAMETERS.login_full),
      emailContains: searchText(params, 'email', LIST_PARAMETERS.email),
      email: searchText(params, 'email_full', LIST_PARAMETERS.email_full),
      status: decodeCode(params, 'status', LIST_PARAMETERS.status.enum),
      regType: decodeCode(params, 'reg_type', LIST_PARAMETERS.reg_type.enum),
      profileContains: searchText(params, 'profile', LIST_PARAMETERS.profile),
      profileFieldContains,
    },
    registerAfter: day(params, 'register_after'),
    registerBefore: day(params, 'register_before'),
    registeredWithinSeconds,
    deletedWithinSeconds: deleted ? Number(deleted[1]) : undefined,
    limit,
  };
}

/**
 * `{"members":[…],"members_total":N}`, written as the records arrive. The total comes last so
 * that the answer starts at once and a full list needs no second pass to count; JSON readers
 * do not depend on the order of an object's keys. The store's cursor is ended by the body's
 * close (registerListRoute), whether this ran to the end, stopped half-way or never started.
 */
async function* listBody(first: IteratorResult<string>, rest: AsyncIterator<string>, total: () => number): AsyncIterable<string> {
  yield '{"members":[';
  let next = first;
  for (let separator = ''; !next.done; separator = ',') {
    yield separator + next.value;
    next = await rest.next();
  }
  yield `],"members_total":${total()}}`;
}

/** What a list renders ahead of what its client has taken (beyond the socket's own buffers). */
const LIST_READ_AHEAD_BYTES = 1024 * 1024;

export interface ListRouteContext extends RouteContext {
  readonly members: MembersService;
  /** Lists being read at once, in all and per account. */
  readonly lists: ConcurrencySlots;
  /** A list whose client takes nothing for this long is cut off, and its snapshot released. */
  readonly stallTimeoutMs: number;
}

export function registerListRoute(app: FastifyInstance, context: ListRouteContext): void {
  const handler = apiHandler(context, async (params, request, reply) => {
    const account = await authenticate(context, params, request, 'read');
    const command = decodeList(params);
    // Refused at once when the account (or the server) has as many lists running as it may.
    const release = await context.lists.take(account.id);
    let records: AsyncIterator<string> | undefined;
    try {
      const listing = context.members.list(account, command);
      records = listing[Symbol.asyncIterator]();
      // The first rows are read before the answer starts: a store that fails now gets a
      // proper 503, not a 200 cut short.
      const first = await records.next();
      // Read ahead of the client by bytes, not by chunks: a chunk of large profile values can
      // be megabytes, and a stalled client must not make the server read (and render) more
      // than this for it before the socket's backpressure stops the store's cursor.
      const chunks = listBody(first, records, () => listing.total);
      let taken = 0;
      async function* counted(): AsyncGenerator<string> {
        for await (const chunk of chunks) {
          taken += chunk.length;
          yield chunk;
        }
      }
      const body = Readable.from(counted(), { objectMode: false, highWaterMark: LIST_READ_AHEAD_BYTES });
      cutOffWhenStalled(request, reply, body, () => taken, context.stallTimeoutMs, 'list');
      // The body's close, however it comes (the answer whole, its client gone or stalled, or
      // gone before the answer started, when listBody never runs), frees the list's slot and
      // ends the store's cursor: its snapshot (its reader, or its PostgreSQL connection) is given
      // back. A failure then is no one's to report: unhandled, it would end the process.
      const cursor = records;
      body.once('close', () => {
        release();
        cursor.return?.().catch(() => {});
      });
      void reply.type('application/json; charset=utf-8');
      return body;
    } catch (error) {
      release();
      await records?.return?.();
      throw error;
    }
  });
  apiRoute(app, '/api2/list/', LIST_SCHEMAS, { bodyLimit: context.limits.bodyLimitBytes }, handler);
}
