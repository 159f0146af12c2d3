import { describe, expect, it } from 'vitest';
import { parseJsonParams } from '../../src/http/body-parsers.js';
import { describeError, HttpError } from '../../src/http/errors.js';
import { redactUrl } from '../../src/http/logging.js';
import { WireParams } from '../../src/http/params.js';
import { StoreUnavailable } from '../../src/common/store-errors.js';

describe('WireParams', () => {
  const params = new WireParams(
    new Map([
      ['a', ['1', '2']],
      ['empty', ['']],
      ['__proto__', ['x']],
    ]),
  );
  it('gives the last value, every value, and names missing ones', () => {
    expect(params.get('a')).toBe('2');
    expect(params.getAll('a')).toEqual(['1', '2']);
    expect(params.get('nothing')).toBeUndefined();
    expect(params.nonEmpty('empty')).toBeUndefined();
    expect(params.get('__proto__')).toBe('x');
    expect(params.get('constructor')).toBeUndefined();
    expect(() => params.required('empty')).toThrow('missing parameter: empty');
  });
});

describe('JSON bodies', () => {
  it('flattens an object of strings, numbers, booleans and arrays of them', () => {
    expect(parseJsonParams('{"a":"x","n":1.5,"b":false,"r":["1","2"],"z":null}')).toEqual({
      kind: 'json',
      entries: [
        ['a', 'x'],
        ['n', '1.5'],
        ['b', 'false'],
        ['r', '1'],
        ['r', '2'],
      ],
      invalid: [],
    });
  });

  it('marks nested objects by name, keeps __proto__ as a plain name, and takes an empty body', () => {
    const body = parseJsonParams('{"__proto__":"p","o":{"x":1},"l":[{"y":2}]}');
    expect(body.entries).toEqual([['__proto__', 'p']]);
    expect(body.invalid).toEqual(['o', 'l']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(parseJsonParams('  ').entries).toEqual([]);
  });

  it('refuses anything but an object with a 400', () => {
    for (const text of ['[]', '1', '"s"', 'null', '{', 'nope']) {
      expect(() => parseJsonParams(text)).toThrow(HttpError);
    }
  });
});

describe('error answers', () => {
  it('maps errors to statuses and stable messages, never to their own text', () => {
    expect(describeError(new HttpError(413, 'too many parameters'))).toEqual({ statusCode: 413, message: 'too many parameters' });
    expect(describeError(new StoreUnavailable('pool timeout at 10.0.0.5'))).toEqual({ statusCode: 503, message: 'service unavailable' });
    expect(describeError(Object.assign(new Error('Unsupported Media Type: x'), { statusCode: 415 }))).toEqual({
      statusCode: 415,
      message: 'unsupported content type',
    });
    expect(describeError(Object.assign(new Error('weird'), { statusCode: 418 }))).toEqual({ statusCode: 400, message: 'malformed request body' });
    expect(describeError(new Error('SELECT * FROM members failed at /srv/app.js:1'))).toEqual({ statusCode: 500, message: 'internal error' });
    expect(describeError('a string')).toEqual({ statusCode: 500, message: 'internal error' });
  });
});

describe('log redaction', () => {
  it('masks secret-looking parameters in a URL and leaves the rest', () => {
    expect(redactUrl('/api2/login/?user=shop&password=hunter2&api_key=k&login=al')).toBe(
      '/api2/login/?user=shop&password=%5Bredacted%5D&api_key=%5Bredacted%5D&login=al',
    );
    expect(redactUrl('/api2/verify/?code=abc&id=1')).toBe('/api2/verify/?code=%5Bredacted%5D&id=1');
    expect(redactUrl('/api2/create/?_password=x&_password=y')).not.toMatch(/=x|=y/);
    expect(redactUrl('/api2/list/')).toBe('/api2/list/');
  });
});
