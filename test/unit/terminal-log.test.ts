/**
 * The server's log on a terminal (pino-pretty) shows what clients sent as text, never as
 * something the terminal obeys: an escape sequence in a login or a parameter's name cannot
 * retitle the operator's terminal or fake a line.
 */
import { PassThrough } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createLogger, terminalLogDestination } from '../../src/http/logging.js';

it('writes escape sequences, C1 controls, bidi overrides and newlines from a log line as visible escapes', async () => {
  const out = new PassThrough();
  let written = '';
  out.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const logger = pino({ level: 'info' }, terminalLogDestination(out, false));
  logger.info(
    { account: 'demo\u001b]0;pwned\u0007', message: 'unknown parameter: x\r\n[12:00:00.000] INFO: fake line\u009b2J\u202eevil' },
    'request completed',
  );
  logger.error({ err: new Error('a failure') }, 'request errored');
  await new Promise((resolve) => setImmediate(resolve));
  expect(written).toContain('demo\\x1b]0;pwned\\x07');
  expect(written).toContain('x\\x0d\\x0a[12:00:00.000] INFO: fake line\\x9b2J\\u202eevil');
  expect(written).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  // A stack keeps its own lines.
  expect(written).toMatch(/Error: a failure\n\s+at /);
});

it('writes the JSON log with DEL, C1 and bidi controls as \\u escapes, the same values when parsed', async () => {
  const out = new PassThrough();
  let written = '';
  out.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const hostile = 'demo\u009b2J\u202eevil\u007f\u001b]0;x\u0007';
  createLogger('info', out).info({ account: hostile }, 'request completed');
  await new Promise((resolve) => setImmediate(resolve));
  expect(written).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  expect(written).toContain('demo\\u009b2J\\u202eevil\\u007f\\u001b]0;x\\u0007');
  expect(JSON.parse(written).account).toBe(hostile);
});
