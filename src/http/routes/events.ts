/**
 * GET|POST /api2/events/: the change feed. Events in id order after `after`; a consumer that
 * keeps `next` and calls again sees every event once, in order (see store/event-repository.ts).
 */
import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES } from '../../events/event.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, type EventsService, type FeedQuery } from '../../events/events-service.js';
import { ApiError } from '../errors.js';
import type { WireParams } from '../params.js';
import { apiHandler, authenticate, type RouteContext } from '../route-kit.js';
import { matchPattern, nearMiss } from '../decoders.js';
import { apiResponses, CONSUMES, parameterNames, parametersSchema, withAccount } from '../schemas.js';

const EVENT_PARAMETERS = withAccount({
  after: { description: 'events after this id (the `next` of the previous answer); omitted: from the oldest event kept', pattern: '^[0-9]{1,15}$' },
  limit: { description: `at most this many events, 1 to ${FEED_MAX_LIMIT} (default ${FEED_DEFAULT_LIMIT})`, pattern: '^[0-9]{1,4}$' },
  types: { description: `only these types, comma-separated: ${EVENT_TYPES.join(', ')}` },
});

const EVENT_OBJECT = {
  type: 'object',
  description: 'an event: see docs/events-and-webhooks.md',
  properties: {
    id: { type: 'string', pattern: '^[0-9]+$' },
    type: { type: 'string', enum: [...EVENT_TYPES] },
    time: { type: 'string', format: 'date-time' },
    account: { type: 'string' },
    member: { type: 'object', properties: { id: { type: 'string' }, login: { type: 'string' } }, required: ['id', 'login'] },
    actor: {
      type: 'object',
      properties: { kind: { type: 'string', enum: ['api', 'import', 'operator', 'system', 'member'] }, email: { type: 'string' }, name: { type: 'string' } },
      required: ['kind'],
    },
    request_id: { type: 'string' },
    data: {
      type: 'object',
      additionalProperties: true,
      description: [
        'by type:',
        'member.created: the built-in fields set, by their import/export column names (instants ISO 8601 UTC; never the password), and profile {name: value};',
        'member.updated: changed [names; `password` when it changed], old {name: value}, new {name: value}, profile {name: {old, new}} (null for none);',
        'member.status_changed: from, to (A, S, D), cause (update, restore, login_expiry);',
        'member.deleted: cause (update, login_expiry);',
        'member.bulk_updated: either selector "*", count, set {column: value}, profile {set, deleted} (an update of every member), or cause "time_expiry", status, count (expirations written down);',
        'member.purged: cause "retention";',
        'member.verified: email;',
        'member.locked: until, scope (address, all), failures;',
        'member.unlocked: {};',
        'member.login: outcome (ok, fail, locked, suspended), ip when sent, login when it named no member;',
        'member.expiring: expires_at, action (S, D), seconds_left.',
      ].join(' '),
    },
  },
  required: ['id', 'type', 'time', 'account', 'actor', 'data'],
};

const EVENT_RESPONSES = apiResponses(
  [
    {
      type: 'object',
      description: 'the events in id order, and the id to send as `after` next time',
      properties: {
        result: { type: 'string', enum: ['OK'] },
        message: { type: 'string', enum: [''] },
        events: { type: 'array', items: EVENT_OBJECT },
        next: { type: 'string', pattern: '^[0-9]+$' },
      },
      required: ['result', 'message', 'events', 'next'],
      additionalProperties: false,
    },
  ],
  'the events, or ERROR (bad parameter, wrong api key)',
);

const feedParameters = parametersSchema(EVENT_PARAMETERS, {
  required: ['user', 'api_key'],
  profileFields: false,
  description: 'where to start, how many, which types',
});
const DESCRIPTION =
  'The change feed: every change to the account’s members, in id order. Keep `next` and send it as `after`: every event comes once, in order, even with several servers writing.';

export const EVENT_SCHEMAS = {
  GET: { summary: 'Read the change feed', description: DESCRIPTION, tags: ['events'], querystring: feedParameters, response: EVENT_RESPONSES },
  POST: { summary: 'Read the change feed', description: DESCRIPTION, tags: ['events'], consumes: CONSUMES, body: feedParameters, response: EVENT_RESPONSES },
};

const KNOWN = parameterNames(feedParameters);

export function decodeFeed(params: WireParams): FeedQuery {
  for (const name of params.names()) if (!KNOWN.has(name)) throw ApiError.unknown(name, nearMiss(name, KNOWN));
  const after = params.nonEmpty('after');
  if (after !== undefined && !matchPattern(EVENT_PARAMETERS.after.pattern, after)) throw ApiError.invalid('after', 'an event id (digits), as `next` gave it');
  const limitText = params.nonEmpty('limit');
  const limit = limitText === undefined ? FEED_DEFAULT_LIMIT : Number(limitText);
  if (!matchPattern(EVENT_PARAMETERS.limit.pattern, limitText ?? '1') || limit < 1 || limit > FEED_MAX_LIMIT)
    throw ApiError.invalid('limit', `a whole number from 1 to ${FEED_MAX_LIMIT}`);
  const typesText = params.nonEmpty('types');
  let types: string[] | undefined;
  if (typesText !== undefined) {
    types = [
      ...new Set(
        typesText
          .split(',')
          .map((type) => type.trim())
          .filter((type) => type !== ''),
      ),
    ];
    const unknown = types.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
    if (unknown !== undefined) throw ApiError.invalid('types', `${unknown} is not an event type (${EVENT_TYPES.join(', ')})`);
  }
  return { after: after === undefined ? undefined : Number(after), limit, types };
}

export function registerEventsRoute(app: FastifyInstance, context: RouteContext & { events: EventsService }): void {
  const handler = apiHandler(context, async (params, request) => {
    const account = await authenticate(context, params, request, 'read');
    const page = await context.events.feed(account, decodeFeed(params));
    return { result: 'OK', message: '', events: page.events, next: page.next };
  });
  app.get('/api2/events/', { schema: EVENT_SCHEMAS.GET }, handler);
  app.post('/api2/events/', { schema: EVENT_SCHEMAS.POST }, handler);
}
