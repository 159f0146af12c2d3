import { describe, expect, it } from 'vitest';
import { foldKey } from '../../src/members/member.js';
import { isEmail, isLogin } from '../../src/members/fields.js';
import { isProfileFieldName, isProfileFieldValue, isReservedName } from '../../src/members/profile-fields.js';

describe('member fields', () => {
  it('takes logins of 1 to 64 characters without white space or control characters', () => {
    for (const ok of ['a', 'john.doe', 'ü'.repeat(64), '名前', 'a+b@c', '😀'.repeat(64)]) expect(isLogin(ok), ok).toBe(true);
    for (const bad of ['', 'a b', 'a\tb', 'a\nb', 'a\u0000b', 'a\u200bb', 'a\u00a0b', 'a\u2028b', 'x'.repeat(65), '😀'.repeat(65)]) {
      expect(isLogin(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('takes e-mail addresses with one @ and text on both sides, at most 254 characters', () => {
    for (const ok of ['a@b', 'first.last+tag@example.co.uk', `${'x'.repeat(250)}@e.c`]) expect(isEmail(ok), ok).toBe(true);
    for (const bad of ['', 'a', '@b', 'a@', 'a@@b', 'a@b@c', 'a b@c', `${'x'.repeat(251)}@e.c`]) expect(isEmail(bad), bad).toBe(false);
  });

  it('takes only an address that a mail library reads as itself, and as nothing more', () => {
    for (const ok of ["o'brien@example.ie", 'ä@example.de', 'a+b=c@example.com', 'a/b!c#d@example.com']) expect(isEmail(ok), ok).toBe(true);
    // A list, a display name, a quoted part, a comment, a group, an escape, a domain literal.
    for (const bad of ['x,attacker@evil.test', 'victim<attacker@evil.test>', '"a"@x', 'a(b)@c', 'a;b@c', 'g:b@c', 'a\\b@c', 'a@[127.0.0.1]', 'a@b>', 'a<@b']) {
      expect(isEmail(bad), bad).toBe(false);
    }
  });

  it('reserves built-in names, case-insensitively, and the _, set_ and find_member_ prefixes', () => {
    for (const name of [
      'login',
      'LOGIN',
      'email',
      'password',
      'status',
      'reg_time',
      'bill_subscr',
      'exp_logins',
      'user',
      'api_key',
      'IP',
      '_x',
      'set_x',
      'SET_X',
      'find_member_login',
    ]) {
      expect(isReservedName(name), name).toBe(true);
      expect(isProfileFieldName(name), name).toBe(false);
    }
  });

  it('takes profile names of 1 to 64 of A-Z a-z 0-9 _ . -', () => {
    for (const ok of ['name', 'first_name', 'a.b-c', 'x'.repeat(64), 'Z9', 'constructor', 'toString']) expect(isProfileFieldName(ok), ok).toBe(true);
    for (const bad of ['', 'x'.repeat(65), 'a b', 'é', 'a:b', 'a/b', '__proto__']) expect(isProfileFieldName(bad), bad).toBe(false);
  });

  it('limits a profile value to 64 KiB of UTF-8', () => {
    expect(isProfileFieldValue('x'.repeat(65536))).toBe(true);
    expect(isProfileFieldValue('x'.repeat(65537))).toBe(false);
    expect(isProfileFieldValue('€'.repeat(21845))).toBe(true); // 65535 bytes
    expect(isProfileFieldValue('€'.repeat(21846))).toBe(false);
  });

  it('folds logins so that case never matters, beyond ASCII too', () => {
    expect(foldKey('Émile')).toBe(foldKey('éMILE'));
    expect(foldKey('ǅ')).toBe(foldKey('ǆ'));
    // Composed and decomposed forms are the same login.
    expect(foldKey('e\u0301')).toBe(foldKey('é'));
    expect(foldKey('a')).not.toBe(foldKey('b'));
  });
});
