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

export interface OkAnswer {
  readonly result: 'OK';
  readonly message: '';
}
export interface FailAnswer {
  readonly result: 'FAIL';
  readonly message: string;
  readonly fail_url: string;
}
export interface ErrorAnswer {
  readonly result: 'ERROR';
  readonly message: string;
}

export type LoginAnswer = (OkAnswer & { readonly session: string; readonly ok_url: string }) | FailAnswer | ErrorAnswer;
export type CreateAnswer = (OkAnswer & { readonly id: string; readonly login: string; readonly password: string; readonly verify_url: string }) | ErrorAnswer;
export type UpdateAnswer = (OkAnswer & { readonly updated: number }) | ErrorAnswer;
/** One listed member: the fields its `record` asked for, every value a string. */
export type MemberRecord = Readonly<Record<string, string>>;
export type ListAnswer = { readonly members: MemberRecord[]; readonly members_total: number } | ErrorAnswer;

/** Profile fields: any name that is not one of the endpoint's own. */
type ProfileFields = { readonly [field: string]: string | undefined };
type Mode = '0' | '1' | '2';
type Unit = 'm' | 'h' | 'D' | 'M' | 'Y';
type Action = 'N' | 'S' | 'D';

export type LoginParams = { readonly login: string; readonly password: string; readonly IP?: string };

export type CreateParams = ProfileFields & {
  readonly _login: string;
  readonly _email: string;
  readonly _password?: string;
  readonly set_urlok?: string;
  readonly set_urlwrong?: string;
  readonly set_is_exp_logins?: Mode;
  readonly set_exp_logins?: string;
  readonly set_is_exp_time?: Mode;
  readonly set_exp_time?: string;
  readonly set_exp_time_type?: Unit;
  readonly IP?: string;
};

type Selector =
  | { readonly find_member_login: string }
  | { readonly find_member_email: string }
  | { readonly find_member_ptrans: string }
  | { readonly find_member_id: string };

export type UpdateParams = ProfileFields &
  Selector & {
    readonly login?: string;
    readonly email?: string;
    readonly password?: string;
    readonly urlok?: string;
    readonly urlfail?: string;
    readonly status?: 'A' | 'S' | 'D';
    readonly is_exp_time?: Action;
    readonly exp_time?: string;
    readonly exp_time_type?: Unit;
    readonly is_exp_logins?: Action;
    readonly exp_logins?: string;
    readonly pfdelete?: string;
  };

export type ListParams = {
  readonly record?: string;
  readonly login?: string;
  readonly login_full?: string;
  readonly email?: string;
  readonly email_full?: string;
  readonly status?: 'A' | 'S' | 'D';
  readonly reg_type?: 'F' | 'P' | 'A' | 'M';
  readonly profile?: string;
  readonly register_after?: string;
  readonly register_before?: string;
  /** `NNN`, `NNNs`, or both as a pair. */
  readonly limit?: string | readonly [string, string];
  readonly limitd?: string;
  /** `profile:<field>` filters. */
  readonly [filter: `profile:${string}`]: string | undefined;
};

export interface MemberApiClientOptions {
  /** Where the server is, e.g. `https://members.example.com` (no `/api2`). */
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

/** An ERROR answer from `members()`, which yields records and so cannot return one. */
export class MemberApiError extends Error {
  override readonly name = 'MemberApiError';
  constructor(readonly answer: ErrorAnswer) {
    super(answer.message);
  }
}

export class MemberApiClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: MemberApiClientOptions) {
    this.fetch = options.fetch ?? globalThis.fetch;
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
    const response = await this.fetch(new URL(`/api2/${endpoint}/`, this.options.baseUrl), {
      method: 'POST',
      headers: { accept: 'application/json', ...this.options.headers },
      body,
    });
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
