/**
 * Rules for the values a member is made of: login, e-mail, profile field names and values.
 * Each check answers true/false; the HTTP layer names the parameter in its error.
 */

/** Fields of the seed's list table (section 2.1). They can never be profile field names. */
export const LIST_FIELDS = [
  'id', 'login', 'email', 'status', 'reg_date', 'reg_time', 'reg_type', 'exp_date', 'exp_time',
  'last_login_date', 'last_login_time', 'bill_pc', 'bill_id', 'bill_item', 'bill_cust', 'bill_subscr', 'bill_qty',
] as const;

/** Settings /update/ writes under their own names (seed 4.3); also never profile fields. */
export const UPDATE_SETTINGS = [
  'login', 'password', 'email', 'urlok', 'urlfail', 'status', 'is_exp_time', 'exp_time', 'exp_time_type',
  'is_exp_logins', 'exp_logins', 'pfdelete',
] as const;

/**
 * Names that look like a built-in with a slip (a forgotten underscore on /create/, a
 * misspelled setting) are refused rather than silently stored as profile fields. Compared
 * case-insensitively, so that `{Email}` can never mean two things.
 */
const RESERVED_NAMES = new Set<string>([...LIST_FIELDS, ...UPDATE_SETTINGS, 'user', 'api_key', 'ip']);
const RESERVED_PREFIXES = ['_', 'set_', 'find_member_'];
const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export const MAX_PROFILE_VALUE_BYTES = 64 * 1024;
export const MAX_PROFILE_FIELDS = 100;
export const MAX_LOGIN_LENGTH = 64;
export const MAX_EMAIL_LENGTH = 254;

/** Whether a parameter name is one the API reserves: it is refused as a profile field. */
export function isReservedName(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_NAMES.has(lower) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

export function isProfileFieldName(name: string): boolean {
  return PROFILE_NAME.test(name) && !isReservedName(name);
}

export function isProfileFieldValue(value: string): boolean {
  return Buffer.byteLength(value, 'utf8') <= MAX_PROFILE_VALUE_BYTES;
}

// White space (any Unicode kind) and control, format and surrogate code points.
const NOT_IN_LOGIN = /[\s\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

/** 1 to 64 characters, no white space or control characters. */
export function isLogin(value: string): boolean {
  const length = [...value].length;
  return length >= 1 && length <= MAX_LOGIN_LENGTH && !NOT_IN_LOGIN.test(value);
}

/** At most 254 characters, one `@` with text on both sides, no white space. */
export function isEmail(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || NOT_IN_LOGIN.test(value)) return false;
  const at = value.indexOf('@');
  return at > 0 && at === value.lastIndexOf('@') && at < value.length - 1;
}
