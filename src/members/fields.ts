/**
 * Rules for the values a member is made of (login, e-mail) and the limits on what one member,
 * and one request, may hold or ask. Each check answers true/false; the HTTP layer names the
 * parameter in its error. Profile field names are profile-fields.ts's.
 */
// The parser nodemailer reads a recipient with (its module path: nodemailer declares no
// "exports", and this parser is the one it uses); what it reads is what a mail would go to.
import addressparser from 'nodemailer/lib/addressparser/index.js';

export const MAX_PROFILE_VALUE_BYTES = 64 * 1024;
export const MAX_PROFILE_FIELDS = 100;

/**
 * What one request may ask, so that no statement runs for long whatever is sent (and none
 * reaches a database's own limits): fields in a /list/ record (every built-in and a member's
 * every profile field fit), `profile:NAME` filters in a list, names in one `pfdelete`.
 */
export const MAX_RECORD_FIELDS = 128;
export const MAX_FIELD_FILTERS = 10;
export const MAX_PFDELETE_NAMES = MAX_PROFILE_FIELDS;
/**
 * Bytes of profile values one /update/ may write: the values it sets times the members it
 * matches (a 16 KiB value over 50,000 members would be 800 MB, and twice that in the search
 * index and the journal).
 */
export const MAX_UPDATE_PROFILE_BYTES = 64 * 1024 * 1024;
export const MAX_LOGIN_LENGTH = 64;
export const MAX_EMAIL_LENGTH = 254;

// White space (any Unicode kind) and control, format and surrogate code points.
const NOT_IN_LOGIN = /[\s\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** 1 to 64 characters, no white space or control characters. */
export function isLogin(value: string): boolean {
  const length = [...value].length;
  return length >= 1 && length <= MAX_LOGIN_LENGTH && !NOT_IN_LOGIN.test(value);
}

// What makes a text a list of addresses, a display name, a comment or a quoted part to a
// mail library: `a,b@x`, `a<b@x>`, `"a"@x <b@y>`, `a(c)@x`, `a;b@x`, `g:b@x`.
const NOT_IN_EMAIL = /[,;:<>()"\\[\]]/;

/**
 * At most 254 characters, one `@` with text on both sides, no white space, and one plain
 * address as nodemailer reads it (its `addressparser` finds exactly this address, and
 * nothing more): so that a mail to it goes to it, and only to it.
 */
export function isEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || NOT_IN_LOGIN.test(value) || NOT_IN_EMAIL.test(value)) return false;
  const at = value.indexOf('@');
  if (!(at > 0 && at === value.lastIndexOf('@') && at < value.length - 1)) return false;
  const parsed = addressparser(value, { flatten: false });
  return parsed.length === 1 && !('group' in parsed[0]!) && parsed[0]!.name === '' && parsed[0]!.address === value;
}
