/**
 * Decoders from wire parameters to typed values, shared by the endpoints. Each names the
 * offending parameter in its error: `missing parameter: NAME`, `invalid parameter: NAME`.
 * A rule that a route schema states (a pattern, an enum) is read from it (schemas.ts), never
 * written again here.
 */
import { isIpAddress, redirectUrl } from '../common/validate.js';
import { isEmail, isLogin, MAX_PROFILE_FIELDS } from '../members/fields.js';
import { isProfileFieldName, isProfileFieldValue, isReservedName, looksLikePassword } from '../members/profile-fields.js';
import { isPeriodUnit, type PeriodUnit } from '../members/lifecycle.js';
import { checkChosenPassword } from '../auth/password-policy.js';
import { canonicalAddress } from '../auth/client-address.js';
import { ApiError, MESSAGES, REASONS } from './errors.js';
import { MAX_PASSWORD_LENGTH } from '../auth/passwords.js';
import type { WireParams } from './params.js';
import type { AccountSettings } from '../accounts/account.js';
import { POSITIVE_WHOLE } from './schemas.js';

const PATTERNS = new Map<string, RegExp>();

/**
 * A schema's `pattern` applied to a value as JSON Schema applies it (a Unicode regular
 * expression, anchored only where written so), compiled once: the match, or null.
 */
export function matchPattern(pattern: string, value: string): RegExpExecArray | null {
  let regex = PATTERNS.get(pattern);
  if (regex === undefined) PATTERNS.set(pattern, (regex = new RegExp(pattern, 'u')));
  return regex.exec(value);
}

export function decodeLogin(name: string, value: string): string {
  if (!isLogin(value)) throw ApiError.invalid(name, REASONS.login);
  return value;
}

export function decodeEmail(name: string, value: string): string {
  if (!isEmail(value)) throw ApiError.invalid(name, REASONS.email);
  return value;
}

/** A chosen password: account minimum to 1024 characters, not a common one (auth/password-policy). */
/** A chosen password, by the account's rules (its minimum length; common passwords refused unless `--password-check off`). */
export function decodePassword(name: string, value: string, settings: Pick<AccountSettings, 'minPasswordLength' | 'passwordCheck'>): string {
  switch (checkChosenPassword(value, { minLength: settings.minPasswordLength, refuseCommon: settings.passwordCheck === 'common' })) {
    case 'ok':
      return value;
    case 'too-short':
      throw ApiError.invalid(name, REASONS.tooShort(settings.minPasswordLength));
    case 'too-long':
      throw ApiError.invalid(name, REASONS.tooLong(MAX_PASSWORD_LENGTH));
    case 'too-common':
      throw ApiError.invalid(name, REASONS.tooCommon);
  }
}

/**
 * One of the seed's one-letter codes (`A S D`, `N S D`, `F P A M`: the parameter's enum in its
 * schema), in either case: code written against the hosted original sends `status=a`, which it
 * took. (Not the period unit, where `m` and `M` are two units: decodePeriodUnit.)
 */
export function decodeCode<C extends string>(params: WireParams, name: string, codes: readonly C[]): C | undefined {
  const value = params.nonEmpty(name);
  return value === undefined ? undefined : codeOf(name, value, codes);
}

/** One code of a list, in either case (decodeCode's rule for one value, as a form sends it). */
export function codeOf<C extends string>(name: string, value: string, codes: readonly C[]): C {
  const code = value.toUpperCase();
  if (!(codes as readonly string[]).includes(code)) throw ApiError.invalid(name, REASONS.code(codes));
  return code as C;
}

/** A 0/1 flag: true for 1, undefined for 0 or absent. */
export function decodeFlag(params: WireParams, name: string): true | undefined {
  const value = params.nonEmpty(name);
  if (value === undefined || value === '0') return undefined;
  if (value === '1') return true;
  throw ApiError.invalid(name, REASONS.flag);
}

/** An absolute http(s) URL or a path; empty means none. */
export function decodeUrl(params: WireParams, name: string): string | null {
  return urlOf(name, params.nonEmpty(name) ?? '');
}

/** decodeUrl's rule for one value: empty is none (null). */
export function urlOf(name: string, value: string): string | null {
  if (value === '') return null;
  const url = redirectUrl(value);
  if (url === undefined) throw ApiError.invalid(name, REASONS.url);
  return url;
}

/** A literal IPv4 or IPv6 address, in its canonical text (`2001:DB8:0::1` is `2001:db8::1`). */
export function decodeIp(params: WireParams, name: string): string | null {
  const value = params.nonEmpty(name);
  if (value === undefined) return null;
  // A list, as an X-Forwarded-For header holds one (`203.0.113.5, 10.0.0.1`) and code that
  // passes the header on sends it: its first address is the visitor's.
  const address = value.includes(',')
    ? value
        .split(',')
        .map((part) => part.trim())
        .find(isIpAddress)
    : value;
  if (address === undefined || !isIpAddress(address)) throw ApiError.invalid(name, REASONS.ip);
  return canonicalAddress(address);
}

/** A count, as the schemas declare every one (POSITIVE_WHOLE): a whole number from 1 to 999,999,999. */
export function decodePositiveInteger(name: string, value: string | undefined): number {
  if (value === undefined || value === '') throw ApiError.missing(name);
  if (!matchPattern(POSITIVE_WHOLE, value)) throw ApiError.invalid(name, REASONS.count);
  return Number(value);
}

export function decodePeriodUnit(name: string, value: string | undefined): PeriodUnit {
  if (value === undefined || value === '') throw ApiError.missing(name);
  if (!isPeriodUnit(value)) throw ApiError.invalid(name, REASONS.periodUnit);
  return value;
}

/**
 * The first of several spellings of one parameter that was sent (non-empty), with the
 * spelling used, so that errors name what the client actually wrote.
 */
export function pickSpelling(params: WireParams, spellings: readonly string[]): { name: string; value: string; index: number } | undefined {
  for (const [index, name] of spellings.entries()) {
    const value = params.nonEmpty(name);
    if (value !== undefined) return { name, value, index };
  }
  return undefined;
}

/**
 * Every parameter that is not one of the endpoint's built-ins is a profile field. A name the
 * API reserves is `unknown parameter` (it is most likely a slip, like `login` for `_login`);
 * a malformed name or an oversized value is `invalid parameter`.
 */
export function decodeProfileFields(params: WireParams, builtIns: ReadonlySet<string>): Map<string, string> {
  const profile = new Map<string, string>();
  for (const name of params.names()) {
    if (builtIns.has(name)) continue;
    if (isReservedName(name)) throw ApiError.unknown(name, nearMiss(name, builtIns));
    if (!isProfileFieldName(name)) throw ApiError.invalid(name, REASONS.profileName);
    if (looksLikePassword(name)) throw ApiError.invalid(name, REASONS.passwordLike(builtIns.has('_password') ? '_password' : 'password'));
    profile.set(name, profileValueOf(name, params.get(name) ?? ''));
  }
  if (profile.size > MAX_PROFILE_FIELDS) throw new ApiError(MESSAGES.tooManyProfileFields);
  return profile;
}

/** A profile field's value, as every door takes one. */
export function profileValueOf(name: string, value: string): string {
  if (!isProfileFieldValue(value)) throw ApiError.invalid(name, REASONS.profileValue);
  return value;
}

/**
 * The built-in a name is a slip of the keyboard for (`stauts` for `status`): at most two
 * letters changed, added, dropped or swapped, one for a name of four letters or fewer.
 */
export function typoOf(name: string, builtIns: ReadonlySet<string>): string | undefined {
  const lower = name.toLowerCase();
  for (const builtIn of builtIns) {
    const allowed = builtIn.length <= 4 ? 1 : 2;
    if (Math.abs(builtIn.length - lower.length) <= allowed && editDistance(lower, builtIn.toLowerCase()) <= allowed) return builtIn;
  }
  return undefined;
}

/** Changes, additions, removals and swaps of neighbours from `a` to `b` (both short: names). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i]![j] = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i]![j] = Math.min(rows[i]![j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The built-in a name was most likely meant to be: the same letters in another case (`ip` for
 * `IP`), or with or without the underscore of /create/'s names (`login` for `_login`).
 */
export function nearMiss(name: string, builtIns: ReadonlySet<string>): string | undefined {
  const lower = name.toLowerCase();
  for (const builtIn of builtIns) {
    if (builtIn === name) continue;
    const candidate = builtIn.toLowerCase();
    if (candidate === lower || candidate === `_${lower}` || `_${candidate}` === lower) return builtIn;
  }
  return undefined;
}
