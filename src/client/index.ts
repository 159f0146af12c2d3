/**
 * A typed client for the member API v2: `import { MemberApiClient } from 'member-api/client'`.
 *
 * Parameters keep the wire's own names (`_login`, `set_exp_time`, `find_member_id`…), so the
 * API's documentation applies as written; any other name is a profile field. Answers are the
 * seed's OK / FAIL / ERROR shapes, typed: application outcomes are values, never exceptions.
 * Transport problems (404, 429, 503, a body that is not the API's) throw MemberApiHttpError.
 *
 * Runs wherever `fetch` does (Node 18+, browsers, Deno); its one dependency is a streaming
 * JSON parser, so that `members()` reads a list of any size in flat memory.
 */
import { JSONParser } from '@streamparser/json';

import type { paths } from './api-types.js';

export type { paths } from './api-types.js';

/** What an endpoint takes, form-encoded, as the OpenAPI document describes it. */
type Form<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { 'application/x-www-form-urlencoded': infer F } } } } ? F : never;
/** What an endpoint answers with HTTP 200: its OK, FAIL and ERROR shapes. */
type Answer<P extends keyof paths> = paths[P] extends { post: { responses: { 200: { content: { 'application/json': infer A } } } } } ? A : never;
/** The parameters without the account's credentials, which the client adds. */
type WithoutCredentials<T> = { [K in keyof T as K extends 'user' | 'api_key' ? never : K]: T[K] };

export type LoginAnswer = Answer<'/api2/login/'>;
export type CreateAnswer = Answer<'/api2/create/'>;
export type UpdateAnswer = Answer<'/api2/update/'>;
export type ListAnswer = Answer<'/api2/list/'>;
export type EventsAnswer = Answer<'/api2/events/'>;
export type SessionAnswer = Answer<'/api2/session/'>;
export type LogoutAnswer = Answer<'/api2/logout/'>;
export type ResetAnswer = Answer<'/api2/reset/'>;
/** One event of the change feed (the same object webhooks send). */
export type MemberEvent = Extract<EventsAnswer, { events: unknown }>['events'][number];
export type ErrorAnswer = Extract<ListAnswer, { result: 'ERROR' }>;
/** One listed member: the fields its `record` asked for, every value a string. */
export type MemberRecord = Extract<ListAnswer, { members: unknown }>['members'][number];

export type LoginParams = WithoutCredentials<Form<'/api2/login/'>>;
/** Any name that is not one of /create/'s own is a profile field. */
export type CreateParams = WithoutCredentials<Form<'/api2/create/'>>;
/** One `find_member_*` selector; any name that is not one of /update/'s own is a profile field. */
export type UpdateParams = WithoutCredentials<Form<'/api2/update/'>>;
/** `limit` may be sent twice (`['100', '3600s']`) to combine a count and a period; `profile:NAME` filters by one profile field. */
export type ListParams = Omit<WithoutCredentials<Form<'/api2/list/'>>, 'limit'> & {
  readonly limit?: string | readonly [string, string];
  readonly [filter: `profile:${string}`]: string | undefined;
};

export type EventsParams = WithoutCredentials<Form<'/api2/events/'>>;
/** The session /login/ handed out, and optionally a `record` of more fields. */
export type SessionParams = WithoutCredentials<Form<'/api2/session/'>>;
/** One `find_member_*` selector finding one member; `send_mail: '1'` mails the link. */
export type ResetParams = WithoutCredentials<Form<'/api2/reset/'>>;

export interface FollowOptions {
  /** Keep reading as new events come (polling every `pollMs`), until `signal` aborts; else stop at the last one. */
  readonly follow?: boolean;
  readonly pollMs?: number;
  readonly signal?: AbortSignal;
}

export interface MemberApiClientOptions {
  /**
   * Where the server is, e.g. `https://members.example.com` (no `/api2`); a path is kept, so
   * a server behind a proxy prefix is `https://example.com/members`.
   */
  readonly baseUrl: string;
  readonly user: string;
  readonly apiKey: string;
  /** Another fetch (a test double, one with a proxy agent); the global one by default. */
  readonly fetch?: typeof fetch;
  /** Sent with every request, e.g. an `x-request-id`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The server answered with a transport error, or with something that is not the API's answer. */
export class MemberApiHttpError extends Error {
  override readonly name = 'MemberApiHttpError';
  constructor(
    readonly status: number,
    message: string,
    /** Seconds to wait before trying again, when the server said (429, 503). */
    readonly retryAfter: number | undefined,
  ) {
    super(`HTTP ${status}: ${message}`);
  }
}

/** The server could not be reached (refused, reset, DNS, TLS, a timeout): no answer at all. */
export class MemberApiNetworkError extends Error {
  override readonly name = 'MemberApiNetworkError';
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach ${url}: ${describeCause(cause)}`, { cause });
  }
}

function describeCause(cause: unknown): string {
  // fetch says "fetch failed" and keeps the reason (ECONNREFUSED, ENOTFOUND…) in its cause.
  const inner = (cause as { cause?: { code?: string; message?: string } }).cause;
  return inner?.code ?? inner?.message ?? (cause instanceof Error ? cause.message : String(cause));
}

/** An ERROR answer from `members()`, which yields records and so cannot return one. */
export class MemberApiError extends Error {
  override readonly name = 'MemberApiError';
  constructor(readonly answer: ErrorAnswer) {
    super(answer.message);
  }
}

export class MemberApiClient {
  private readonly fetch: typeof fetch;

  private readonly base: string;

  constructor(private readonly options: MemberApiClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
    // new URL('/api2/…', base) would drop the base's path: the prefix is kept instead.
    // Trailing slashes off, in a loop (an end-anchored /\/+$/ is quadratic on a long run of them).
    let end = options.baseUrl.length;
    while (end > 0 && options.baseUrl[end - 1] === '/') end--;
    this.base = options.baseUrl.slice(0, end);
  }

  /** Checks a member's login and password. `api_key` is sent only with `IP`, which needs it. */
  login(params: LoginParams): Promise<LoginAnswer> {
    const { apiKey, user } = this.options;
    return this.call('login', params.IP === undefined ? { user, ...params } : { user, api_key: apiKey, ...params });
  }

  create(params: CreateParams): Promise<CreateAnswer> {
    return this.call('create', this.authenticated(params));
  }

  update(params: UpdateParams): Promise<UpdateAnswer> {
    return this.call('update', this.authenticated(params));
  }

  /** Whether a session /login/ handed out is still valid, with its member (a valid check moves its idle deadline). No API key is sent. */
  session(params: SessionParams): Promise<SessionAnswer> {
    return this.call('session', { user: this.options.user, ...params });
  }

  /** Ends a session; OK whether or not it was valid. */
  logout(params: SessionParams): Promise<LogoutAnswer> {
    return this.call('logout', { user: this.options.user, session: params.session });
  }

  /** A single-use link to the page where the member chooses a new password. */
  reset(params: ResetParams): Promise<ResetAnswer> {
    return this.call('reset', this.authenticated(params));
  }

  /** The whole list in memory; `members()` reads one member at a time instead. */
  list(params: ListParams = {}): Promise<ListAnswer> {
    return this.call('list', this.authenticated(params));
  }

  /**
   * The listed members one by one, read from the streamed answer as it arrives: a million
   * members in flat memory. Its return value (for `next()` callers) is `members_total`.
   * An ERROR answer throws MemberApiError.
   */
  async *members(params: ListParams = {}): AsyncGenerator<MemberRecord, number, undefined> {
    const response = await this.send('list', this.authenticated(params));
    const parser = new JSONParser({ paths: ['$.members.*', '$.members_total', '$.result', '$.message'], keepStack: false });
    const ready: MemberRecord[] = [];
    const top: Record<string, unknown> = {};
    parser.onValue = ({ value, key }) => {
      // Array elements have numeric keys: those are the members.
      if (typeof key === 'number') ready.push(value as MemberRecord);
      else if (typeof key === 'string') top[key] = value;
    };
    const reader = response.body!.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.write(value);
        if (top.result === 'ERROR') break;
        // Handed out as they were parsed, before the next chunk is read.
        while (ready.length > 0) yield ready.shift()!;
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    if (top.result === 'ERROR') throw new MemberApiError({ result: 'ERROR', message: String(top.message ?? '') });
    if (typeof top.members_total !== 'number') throw new MemberApiHttpError(response.status, 'the list ended early', undefined);
    return top.members_total;
  }

  /** One page of the change feed. */
  eventPage(params: EventsParams = {}): Promise<EventsAnswer> {
    return this.call('events', this.authenticated(params));
  }

  /**
   * The change feed's events one by one, in id order, following the cursor (`next`) from
   * `after` (from the oldest kept when omitted). Keep the last event's id to start there next
   * time: every event comes once. With `follow`, waits for new ones instead of ending. An
   * ERROR answer throws MemberApiError.
   */
  async *events(params: EventsParams & FollowOptions = {}): AsyncGenerator<MemberEvent, void, undefined> {
    const { follow, pollMs = 1000, signal, ...query } = params;
    let after = query.after;
    while (!signal?.aborted) {
      const page = await this.eventPage({ ...query, after });
      if (page.result !== 'OK') throw new MemberApiError(page as ErrorAnswer);
      yield* page.events;
      const moved = page.next !== after;
      after = page.next;
      if (page.events.length > 0 || moved) continue;
      if (!follow) return;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve(undefined);
          },
          { once: true },
        );
      });
    }
  }

  private authenticated<T extends object>(params: T): Record<string, unknown> {
    return { user: this.options.user, api_key: this.options.apiKey, ...params };
  }

  private async call<T>(endpoint: string, params: Record<string, unknown>): Promise<T> {
    const response = await this.send(endpoint, params);
    return (await response.json()) as T;
  }

  /** POSTs the parameters form-encoded; answers the response when it is the API's (HTTP 200, JSON). */
  private async send(endpoint: string, params: Record<string, unknown>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) body.append(name, String(item));
    }
    const url = `${this.base}/api2/${endpoint}/`;
    let response: Response;
    try {
      response = await this.fetch(url, { method: 'POST', headers: { accept: 'application/json', ...this.options.headers }, body });
    } catch (error) {
      throw new MemberApiNetworkError(url, error);
    }
    if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('application/json')) {
      const text = await response.text().catch(() => '');
      let message = text.slice(0, 200);
      try {
        message = (JSON.parse(text) as ErrorAnswer).message ?? message;
      } catch {
        // Not the API's answer (a proxy's error page): its start says what it is.
      }
      const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
      throw new MemberApiHttpError(response.status, message, Number.isFinite(retryAfter) ? retryAfter : undefined);
    }
    return response;
  }
}
