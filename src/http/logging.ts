/**
 * Logging: one JSON line per request (pino), with every secret-looking parameter replaced
 * before it is written. Bodies are never logged; query strings are, so their secrets are
 * masked here. pino writes JSON, so CR/LF in a value cannot start a forged line.
 *
 * The line an operator reads (a request completed) says the route, the account named by
 * `user`, the answer's `result` and `message` (the API answers its failures with HTTP 200, so
 * the status code alone says nothing), the status and the duration in milliseconds.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LogController } from 'fastify';
import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { escapeJsonText, terminalText } from '../common/terminal-text.js';
import { SETUP_PATH } from '../operators/operators-service.js';

/** What the access line says of a request besides its method, URL and status. */
interface LoggedOutcome {
  account?: string;
  result?: string;
  message?: string;
}

const OUTCOMES = new WeakMap<FastifyRequest, LoggedOutcome>();

function outcomeOf(request: FastifyRequest): LoggedOutcome {
  let outcome = OUTCOMES.get(request);
  if (!outcome) OUTCOMES.set(request, (outcome = {}));
  return outcome;
}

/** The account a request names (its `user`), for its access line. */
export function logAccount(request: FastifyRequest, user: string | undefined): void {
  if (user !== undefined) outcomeOf(request).account = user.slice(0, 128);
}

/** Keeps the `result` and `message` of every object answer (the API's, and errors alike) for the access line. */
export function recordAnswers(app: FastifyInstance): void {
  app.addHook('preSerialization', (request: FastifyRequest, _reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const answer = payload as { result?: unknown; message?: unknown } | null;
    if (answer && typeof answer.result === 'string') {
      const outcome = outcomeOf(request);
      outcome.result = answer.result;
      if (typeof answer.message === 'string' && answer.message !== '') outcome.message = answer.message;
    }
    done(null, payload);
  });
}

/** Parameter names whose values must never reach a log: passwords, keys, sessions, codes. */
const SECRET_NAME = /pass|key|secret|token|session|code|auth/i;
export const REDACTED = '[redacted]';

/**
 * Set-up links carried their token as a path segment before it moved to the query: one
 * opened from an old message is masked too. (Those links lived 24 hours: this can go once no
 * installation runs a release older than the move.)
 */
const OLD_SETUP_PATH = `${SETUP_PATH}/`;

/**
 * Whether a parameter's value must never be logged: a key, a password, a session, by its
 * name; and the `id` of the member pages' session check (`?mode=API&action=session&id=SID`,
 * the hosted original's), which is a session id under a plain name.
 */
function isSecret(name: string, params: URLSearchParams): boolean {
  return SECRET_NAME.test(name) || (name === 'id' && params.get('action') === 'session');
}

/** Whether a URL's query string carries a parameter whose value must never be logged (a key, a password, a session). */
export function hasSecretInQuery(url: string): boolean {
  const query = url.indexOf('?');
  if (query < 0) return false;
  const params = new URLSearchParams(url.slice(query + 1));
  for (const name of params.keys()) if (isSecret(name, params)) return true;
  return false;
}

export function redactUrl(url: string): string {
  if (url.startsWith(OLD_SETUP_PATH)) return `${OLD_SETUP_PATH}${REDACTED}`;
  const query = url.indexOf('?');
  if (query < 0) return url;
  const params = new URLSearchParams(url.slice(query + 1));
  let changed = false;
  for (const name of new Set(params.keys())) {
    if (isSecret(name, params)) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? `${url.slice(0, query)}?${params}` : url;
}

/**
 * The server's logger: JSON lines on standard output, or, when that is a terminal, the same
 * lines made readable by pino-pretty (a person is watching; no collector reads a terminal),
 * with what a terminal would obey shown as visible escapes (terminalLogDestination).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): pino.Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*._password', '*.api_key', '*.apiKey', '*.session'],
      censor: REDACTED,
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
      }),
      res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
      err: pino.stdSerializers.err,
    },
  };
  if (process.stdout.isTTY && !destination) return pino(options, terminalLogDestination(process.stdout));
  // JSON lines: a collector's, but also what `docker logs` or `journalctl` show on a terminal.
  return pino(options, escapedJsonLines(destination ?? pino.destination(1)));
}

/**
 * pino's JSON escapes C0 but leaves DEL, C1 and the bidi controls from what clients sent (a
 * login, a parameter's name) raw: each line is written with them as `\uXXXX`, the same JSON.
 */
function escapedJsonLines(out: pino.DestinationStream): pino.DestinationStream {
  return { write: (line: string) => void out.write(escapeJsonText(line)) };
}

/**
 * Log lines for a person at a terminal: pino-pretty's, with every string of the line (keys
 * too) as terminalText shows it, since lines carry what clients sent (a login, a parameter's
 * name) and a terminal obeys the escape sequences it is given. A stack keeps its own newlines.
 */
export function terminalLogDestination(out: NodeJS.WritableStream, colorize = true): pino.DestinationStream {
  const prettify = prettyFactory({ colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  const shown = (value: unknown, key = ''): unknown => {
    if (typeof value === 'string') return key === 'stack' ? value.split('\n').map(terminalText).join('\n') : terminalText(value);
    if (Array.isArray(value)) return value.map((item) => shown(item));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([name, item]) => [terminalText(name), shown(item, name)]));
    return value;
  };
  return { write: (line: string) => void out.write(prettify(shown(JSON.parse(line)) as Record<string, unknown>)) };
}

/** The request is logged once, when it completes; its arrival only at debug level. */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    // Nothing is built for a line that would not be written (LOG_LEVEL=warn on a busy server).
    const log = reply.log as Partial<pino.Logger>;
    if (this.isLogDisabled(request) || (!error && log.isLevelEnabled?.('info') === false)) return;
    const fields = {
      req: request,
      route: request.routeOptions.url,
      ...OUTCOMES.get(request),
      res: reply,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}
