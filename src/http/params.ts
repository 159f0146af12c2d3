/**
 * Wire parameters: what a client sent, from the query string and the body, as one bag of
 * name → values. Names are kept in a Map, never as object keys, so `__proto__` and
 * `constructor` are ordinary names here.
 */
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { ApiError, HttpError, MESSAGES, PayloadTooLarge, REASONS } from './errors.js';

export class WireParams {
  constructor(private readonly values: ReadonlyMap<string, readonly string[]>) {}

  /** The last value sent under `name`: a repeated parameter's last value wins. */
  get(name: string): string | undefined {
    const list = this.values.get(name);
    return list?.[list.length - 1];
  }

  /** Every value sent under `name`, in order (query string first, then body). */
  getAll(name: string): readonly string[] {
    return this.values.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  names(): IterableIterator<string> {
    return this.values.keys();
  }

  /** Every name and value, in the order sent (a repeated name once per value). */
  pairs(): Array<[string, string]> {
    return [...this.values].flatMap(([name, values]) => values.map((value): [string, string] => [name, value]));
  }

  /** The value of `name` if it was sent and is not empty. */
  nonEmpty(name: string): string | undefined {
    const value = this.get(name);
    return value === undefined || value === '' ? undefined : value;
  }

  /** The value of `name`; `missing parameter: NAME` when absent or empty. */
  required(name: string): string {
    const value = this.nonEmpty(name);
    if (value === undefined) throw ApiError.missing(name);
    return value;
  }

  /** The values of a schema's `required` names, by name; the first one absent or empty is the one named missing. */
  requiredAll<const N extends string>(names: readonly N[]): Record<N, string> {
    return Object.fromEntries(names.map((name) => [name, this.required(name)])) as Record<N, string>;
  }
}

/** A JSON body, flattened into name/value pairs; `invalid` names held an object or array of objects. */
export interface JsonBody {
  readonly kind: 'json';
  readonly entries: Array<[string, string]>;
  readonly invalid: string[];
}

/** A request's query string: everything after the first `?` (a later `?` is the query's own), or "". */
export function rawQuery(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

/** A request's query parameters (a page's, never an API call's: those are read by readParams). */
export function queryParams(request: FastifyRequest): URLSearchParams {
  return new URLSearchParams(rawQuery(request));
}

export function isJsonBody(body: unknown): body is JsonBody {
  return typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind === 'json';
}

export interface ParamLimits {
  readonly maxParameters: number;
  readonly bodyLimitBytes: number;
}

/**
 * Collects the parameters of a request: the query string first, then the body, so that a
 * body value wins over a query value of the same name. Synchronous unless the body is
 * multipart (which is read as it streams): the cheapest routes pay no promise for it.
 */
export function readParams(request: FastifyRequest, limits: ParamLimits): WireParams | Promise<WireParams> {
  const values = new Map<string, string[]>();
  let count = 0;
  const add = (name: string, value: string) => {
    if (++count > limits.maxParameters) throw new PayloadTooLarge('too many parameters');
    // No parameter has a use for U+0000, and PostgreSQL cannot store it: refuse it at the edge.
    if (name.includes('\0') || value.includes('\0')) throw ApiError.invalid(name, REASONS.nul);
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  };

  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  if (query >= 0) for (const [name, value] of new URLSearchParams(url.slice(query + 1))) add(name, value);

  const body: unknown = request.body;
  if (body instanceof URLSearchParams) {
    for (const [name, value] of body) add(name, value);
  } else if (isJsonBody(body)) {
    const [invalid] = body.invalid;
    if (invalid !== undefined) throw ApiError.invalid(invalid, REASONS.notText);
    for (const [name, value] of body.entries) add(name, value);
  } else if (request.isMultipart()) {
    return readMultipart(request, limits, add).then(() => new WireParams(values));
  }
  return new WireParams(values);
}

async function readMultipart(request: FastifyRequest, limits: ParamLimits, add: (name: string, value: string) => void): Promise<void> {
  // The multipart parser reads the request itself: Fastify's body limit does not apply to it.
  if (Number(request.headers['content-length']) > limits.bodyLimitBytes) throw new PayloadTooLarge('request body too large');
  let total = 0;
  try {
    for await (const part of request.parts()) {
      const value = part.type === 'file' ? (await part.toBuffer()).toString('utf8') : String(part.value ?? '');
      if (part.type === 'field' && part.valueTruncated) throw new PayloadTooLarge(`parameter too large: ${part.fieldname}`);
      total += Buffer.byteLength(value);
      if (total > limits.bodyLimitBytes) throw new PayloadTooLarge('request body too large');
      add(part.fieldname, value);
    }
  } catch (error) {
    // The parser's own complaints (no boundary, a body cut short) are the client's malformed
    // body: a 400, not an internal error. Limits it enforces keep their status (413).
    if (error instanceof HttpError || error instanceof ApiError) throw error;
    const status = (error as { statusCode?: unknown } | null)?.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) throw error;
    throw new HttpError(400, MESSAGES.malformedBody, {}, { cause: error });
  }
}

/**
 * The multipart parser's options. Limits match the other encodings: any one value may be as
 * large as the whole body limit (the sum is checked while reading), files are read as text
 * values.
 *
 * `fileHwm`, the parser's buffer per part, is the body limit too. @fastify/busboy (3.2.6)
 * skips a malformed part (a name with a bare CR or LF, no `Content-Disposition`, not
 * `form-data`) by reading it to nothing, yet when such a part is larger than that buffer (16
 * KiB by default) it never finishes the body, and the request never answers (found by the
 * hostile-input fuzzer). A buffer as large as any body a request may send never fills, and a
 * body declared larger is refused before it is parsed (readMultipart).
 */
export function multipartOptions(limits: ParamLimits) {
  return {
    fileHwm: limits.bodyLimitBytes,
    limits: {
      fieldNameSize: 1024,
      fieldSize: limits.bodyLimitBytes,
      fields: limits.maxParameters,
      files: limits.maxParameters,
      fileSize: limits.bodyLimitBytes,
      parts: limits.maxParameters,
    },
  };
}
