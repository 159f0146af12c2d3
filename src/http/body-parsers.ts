/**
 * The request bodies the API takes: form-encoded (what `curl -d` sends), JSON objects, and
 * multipart (`curl -F`, registered by @fastify/multipart). Anything else is 415.
 *
 * Form bodies are read with the platform's URLSearchParams (WHATWG rules: `+` is a space,
 * UTF-8, repeated names kept in order). JSON is parsed with JSON.parse into name/value pairs,
 * never merged into an object, so `__proto__` is just a name.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError, MESSAGES } from './errors.js';
import type { JsonBody } from './params.js';

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    done(null, new URLSearchParams(body.toString()));
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    try {
      done(null, parseJsonParams(body.toString()));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** A JSON object of strings (numbers and booleans are taken as their text; arrays repeat a name). */
export function parseJsonParams(text: string): JsonBody {
  const body: JsonBody = { kind: 'json', entries: [], invalid: [] };
  if (text.trim() === '') return body;
  // An object of strings is one level deep (two with an array of values); a deeply nested
  // body is refused before the parser walks it.
  if (nestingDepth(text) > MAX_JSON_DEPTH) throw new HttpError(400, MESSAGES.malformedBody);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, MESSAGES.malformedBody);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HttpError(400, MESSAGES.malformedBody);
  for (const [name, item] of Object.entries(value)) {
    for (const element of Array.isArray(item) ? item : [item]) {
      if (typeof element === 'string') body.entries.push([name, element]);
      else if (typeof element === 'number' || typeof element === 'boolean') body.entries.push([name, String(element)]);
      else if (element !== null) body.invalid.push(name);
    }
  }
  return body;
}

/** Deeper bodies are refused unparsed; nested values within it are refused by name. */
const MAX_JSON_DEPTH = 8;

/** How deep brackets nest in a JSON text, outside its strings; one pass, no parsing. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}
