/**
 * The console's forms read as the members' service's commands (console/commands.ts): only what
 * a form changes, checked by the API's rules, errors naming the form's own fields.
 */
import { describe, expect, it } from 'vitest';
import { bulkCommand, createCommand, editCommand, statusCommand } from '../../src/console/commands.js';
import { fixtureAccount } from '../support/views.js';

const account = fixtureAccount({ minPasswordLength: 8 });
const shown = {
  profile: new Map([
    ['city', 'Lyon'],
    ['plan', 'gold'],
  ]),
  urlOk: 'https://example.com/in',
  urlFail: null,
};
const message = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

describe('the edit form', () => {
  it('asks only for what differs from the member shown: a field emptied is removed, one retyped is set', () => {
    const change = editCommand(
      { login: '', email: 'new@example.com', urlok: 'https://example.com/in', urlfail: '', 'profile:city': 'Paris', 'profile:plan': '' },
      shown,
      account,
    );
    expect(change).toMatchObject({ login: undefined, email: 'new@example.com', urlOk: undefined, urlFail: undefined, deleteFields: ['plan'] });
    expect([...change.setFields]).toEqual([['city', 'Paris']]);
  });

  it('reads an expiration with its period, and N as none', () => {
    expect(editCommand({ is_exp_time: 's', exp_time: '3', exp_time_type: 'M' }, shown, account).timeExpiry).toEqual({ action: 'S', count: 3, unit: 'M' });
    expect(editCommand({ is_exp_logins: 'N' }, shown, account).loginExpiry).toBeNull();
  });

  it('names the form field a wrong value is in, by the API’s rule', () => {
    expect(message(() => editCommand({ email: 'not an address' }, shown, account))).toMatch(/^invalid parameter: email/);
    expect(message(() => editCommand({ password: 'short' }, shown, account))).toMatch(/^invalid parameter: password \(too short.*8/);
    expect(message(() => editCommand({ is_exp_time: 'D', exp_time: '3' }, shown, account))).toBe('missing parameter: exp_time_type');
    expect(message(() => editCommand({ urlok: 'javascript:alert(1)' }, shown, account))).toMatch(/^invalid parameter: urlok/);
    expect(message(() => editCommand({ new_field: 'city', new_value: 'Nice' }, shown, account))).toMatch(
      /^invalid parameter: new_field \(city is a field this member has already/,
    );
  });

  it('says a form that changes nothing changes nothing', () => {
    expect(message(() => editCommand({ 'profile:city': 'Lyon', urlok: 'https://example.com/in' }, shown, account))).toBe('nothing to change');
  });
});

it('a status is one of A, S, D, named status', () => {
  expect(statusCommand({ status: 'd' }).status).toBe('D');
  expect(message(() => statusCommand({ status: 'X' }))).toMatch(/^invalid parameter: status/);
  expect(message(() => statusCommand({}))).toBe('missing parameter: status');
});

it('a new member needs a login, and an address when the account requires one', () => {
  expect(createCommand({ login: 'ann', email: '', password: '' }, account)).toMatchObject({ login: 'ann', email: '', password: null });
  expect(message(() => createCommand({ email: 'a@example.com' }, account))).toBe('missing parameter: login');
  expect(message(() => createCommand({ login: 'ann' }, fixtureAccount({ requireEmail: true })))).toBe('missing parameter: email');
  expect([...createCommand({ login: 'ann', new_field: 'city', new_value: 'Lyon' }, account).profile]).toEqual([['city', 'Lyon']]);
});

describe('a bulk action', () => {
  it('is the change it names, and nothing else', () => {
    expect(bulkCommand({ action: 'suspend', new_field: 'status', new_value: 'A' })).toMatchObject({ status: 'S', deleteFields: [] });
    expect(bulkCommand({ action: 'suspend', new_field: 'status' }).setFields.size).toBe(0);
    expect(bulkCommand({ action: 'remove-field', field: 'plan' }).deleteFields).toEqual(['plan']);
    expect(bulkCommand({ action: 'clear-expiry' }).timeExpiry).toBeNull();
  });

  it('names the bulk form’s own fields in its errors', () => {
    expect(message(() => bulkCommand({ action: 'set-expiry', exp_mode: 'X', exp_time: '1', exp_time_type: 'D' }))).toMatch(/^invalid parameter: exp_mode/);
    expect(message(() => bulkCommand({ action: 'set-field', new_field: 'password', new_value: 'x' }))).toMatch(/^invalid parameter: new_field/);
    expect(message(() => bulkCommand({ action: 'merge' }))).toMatch(/^invalid parameter: action/);
  });
});
