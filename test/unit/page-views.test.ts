/**
 * Each member page's view rendered with fixture data, without a server: what it shows, in the
 * account's language and its own field texts, every value escaped, no script.
 */
import { describe, expect, it } from 'vitest';
import { parseFieldTexts } from '../../src/accounts/field-texts.js';
import { parseRegistrationFields } from '../../src/accounts/registration-fields.js';
import type { AccountSettings } from '../../src/accounts/account.js';
import { messagePage } from '../../src/pages/views/layout.js';
import { profilePage } from '../../src/pages/views/profile.js';
import { registerPage } from '../../src/pages/views/registration.js';
import { lostPage, resetPage } from '../../src/pages/views/reminder.js';
import { continuePage, signInPage, signOutPage } from '../../src/pages/views/sign-in.js';
import { pageChrome } from '../support/views.js';

const HOSTILE = '"><script>alert(1)</script>';
const fields = (text: string) => {
  const parsed = parseRegistrationFields(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.fields;
};
const texts = (text: string) => {
  const parsed = parseFieldTexts(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.texts;
};
const club: Partial<AccountSettings> = {
  registration: 'open',
  pageName: 'The Club',
  registrationFields: fields('first_name*:text:First name;plan:choice(gold|silver):Plan;city!:text:City;terms*:checkbox:I accept the terms'),
  fieldTexts: texts('fr:first_name=Prénom;fr:plan=Formule;fr:plan(gold)=Or;en:plan(gold)=Gold plan'),
};
/** The text of an element's first match, tags dropped. */
const textOf = (page: string, pattern: RegExp) => (pattern.exec(page)?.[1] ?? '').replace(/<[^>]+>/g, '').trim();

describe('every page view', () => {
  const chrome = pageChrome(club);
  const pages = {
    signIn: signInPage(chrome, { login: HOSTILE, error: HOSTILE, returnTo: 'https://www.example.com/"x' }),
    signOut: signOutPage(chrome),
    continue: continuePage(chrome, 'https://www.example.com/a?b="c"'),
    register: registerPage(chrome, { values: { login: HOSTILE, first_name: HOSTILE }, errors: {} }),
    lost: lostPage(chrome, HOSTILE),
    reset: resetPage(chrome, { token: HOSTILE, login: HOSTILE, action: '/api2/reset/' }),
    profile: profilePage(chrome, { login: HOSTILE, email: 'ann@example.com', profile: new Map([['first_name', HOSTILE]]) }),
    message: messagePage(chrome, 'signedOut', 'signedOutText', { href: chrome.base, label: 'signInAgain' }),
  };

  it.each(Object.entries(pages))('%s: no script, every value escaped, in the account’s frame', (_name, page) => {
    expect(page).not.toMatch(/<script/i);
    expect(page).not.toContain(HOSTILE);
    expect(page).toMatch(/^<!doctype html>\s*<html lang="en">/);
    expect(textOf(page, /<header[^>]*>([\s\S]*?)<\/header>/)).toContain('The Club');
  });

  it('the sign-in page carries where to go back to, and offers registration only when it is open', () => {
    expect(pages.signIn).toContain('<input type="hidden" name="return" value="https://www.example.com/&quot;x">');
    expect(pages.signIn).toContain('?action=reg');
    expect(signInPage(pageChrome({ registration: 'off' }), {})).not.toContain('?action=reg');
  });
});

describe('the registration page', () => {
  it('asks the account’s fields in the page’s language, with their own texts, and stores a choice’s value', () => {
    const french = registerPage(pageChrome(club, 'fr'), { values: { plan: 'gold' }, errors: {} });
    expect(french).toMatch(/<html lang="fr">/);
    expect(textOf(french, /<label for="f_first_name">([\s\S]*?)<\/label>/)).toBe('Prénom');
    expect(textOf(french, /<label for="f_plan">([\s\S]*?)<\/label>/)).toBe('Formule (facultatif)');
    expect(french).toContain('<option value="gold" selected>Or</option><option value="silver">silver</option>');
    // Without a text in a language: the fields' label, and the value itself.
    const english = registerPage(pageChrome(club, 'en'), { values: {}, errors: {} });
    expect(textOf(english, /<label for="f_first_name">([\s\S]*?)<\/label>/)).toBe('First name');
    expect(english).toContain('<option value="gold">Gold plan</option><option value="silver">silver</option>');
    expect(textOf(english, /<label class="check" for="f_terms">([\s\S]*?)<\/label>/)).toBe('I accept the terms');
  });

  it('says each error beside its field, tied to it for screen readers', () => {
    const page = registerPage(pageChrome(club), { values: {}, errors: { login: 'This login is taken: choose another one.', f_first_name: 'x' } });
    expect(page).toContain('<p class="alert" role="alert">Please correct the fields marked below.</p>');
    expect(page).toMatch(/<input id="login" name="login"[^>]* aria-invalid="true" aria-describedby="login-error">/);
    expect(page).toContain('<p class="error" id="login-error">This login is taken: choose another one.</p>');
  });
});

describe('the profile page', () => {
  it('lets the member change its editable fields only (not the checkboxes, not those asked once)', () => {
    const page = profilePage(pageChrome(club), { login: 'ann', email: 'ann@example.com', profile: new Map([['plan', 'silver']]) });
    expect(page).toContain('id="f_first_name"');
    expect(page).toContain('<option value="silver" selected>silver</option>');
    expect(page).not.toContain('f_city');
    expect(page).not.toContain('f_terms');
  });

  it('puts a password error beside the field it is about', () => {
    const page = profilePage(pageChrome(club), {
      login: 'ann',
      email: 'ann@example.com',
      profile: new Map(),
      passwordError: { field: 'confirm', message: 'The two passwords are not the same.' },
    });
    expect(page).toContain('<p class="error" id="confirm-error">The two passwords are not the same.</p>');
    expect(page).not.toContain('id="current-error"');
  });
});

describe('the account’s field texts', () => {
  it('are read as language:field=text and language:field(value)=text', () => {
    expect([...texts(' fr:plan(gold) = Or ; en:plan=Plan ')]).toEqual([
      ['fr:plan(gold)', 'Or'],
      ['en:plan', 'Plan'],
    ]);
  });

  it.each([
    ['de:plan=Plan', '"de" is not a language of the pages (en, fr)'],
    ['fr:plan', '"fr:plan" is not language:field=text or language:field(value)=text'],
    ['fr:pl an=Plan', '"fr:pl an=Plan" is not language:field=text or language:field(value)=text'],
    ['fr:plan=', '"fr:plan=": a text has 1 to 200 characters, on one line'],
    ['fr:plan=A;fr:plan=B', '"fr:plan" is given twice'],
  ])('refuse %s, saying why', (text, reason) => {
    expect(parseFieldTexts(text)).toEqual({ ok: false, reason });
  });
});
