import { MAX_PASSWORD_LENGTH } from '../auth/passwords.js';
import { isTimeZone, redirectUrl } from '../common/validate.js';
import { isEmail, MAX_RECORD_FIELDS } from '../members/fields.js';
import { LIST_TOKENS } from '../members/member-fields.js';
import { isProfileFieldName } from '../members/profile-fields.js';
import type { AccountSettings, LockoutPolicy } from './account.js';

export const ACCOUNT_NAME = /^[a-z0-9._-]{3,64}$/;

/** A mebibyte short of 1 PiB: a quota is a guard rail, not a billing figure. */
export const MAX_STORAGE_QUOTA_MB = 1024 * 1024 * 1024 - 1;

/** Names of an account's API keys. */
export const KEY_NAME = /^[a-z0-9._-]{1,64}$/;

/** Keys an account may hold at once (retiring ones included); expired ones do not count. */
export const MAX_KEYS_PER_ACCOUNT = 20;

export type SettingsPatch = Partial<Omit<AccountSettings, 'lockout'>> & { lockout?: Partial<LockoutPolicy> };

const URL_REASON = 'must be an absolute http(s) URL or a path starting with /';

/**
 * Applies a patch to settings, checking every value. Returns the new settings or the name of
 * the first setting that is wrong, with the reason.
 */
export function applySettingsPatch(
  current: AccountSettings,
  patch: SettingsPatch,
): { ok: true; settings: AccountSettings } | { ok: false; setting: string; reason: string } {
  const merged = { ...current, ...withoutUndefined(patch), lockout: { ...current.lockout, ...withoutUndefined(patch.lockout ?? {}) } };
  // Kept header-safe, as the members' own URLs are.
  const okUrl = merged.okUrl === '' ? '' : redirectUrl(merged.okUrl);
  if (okUrl === undefined) return { ok: false, setting: 'ok-url', reason: URL_REASON };
  const failUrl = merged.failUrl === '' ? '' : redirectUrl(merged.failUrl);
  if (failUrl === undefined) return { ok: false, setting: 'fail-url', reason: URL_REASON };
  const next = { ...merged, okUrl, failUrl };
  if (!isWholeNumberIn(next.minPasswordLength, 1, MAX_PASSWORD_LENGTH)) {
    return { ok: false, setting: 'min-password-length', reason: `must be a whole number from 1 to ${MAX_PASSWORD_LENGTH}` };
  }
  if (!isTimeZone(next.timeZone)) return { ok: false, setting: 'time-zone', reason: 'must be an IANA time zone name' };
  const { lockout } = next;
  if (!isWholeNumberIn(lockout.threshold, 0, 100)) {
    return { ok: false, setting: 'lockout-threshold', reason: 'must be a whole number from 0 (off) to 100' };
  }
  for (const [setting, value] of [
    ['lockout-step', lockout.stepSeconds],
    ['lockout-max', lockout.maxSeconds],
    ['lockout-reset', lockout.resetSeconds],
  ] as const) {
    if (!isWholeNumberIn(value, 1, 30 * 86400)) return { ok: false, setting, reason: 'must be a whole number of seconds from 1 to 2592000' };
  }
  if (lockout.maxSeconds < lockout.stepSeconds) return { ok: false, setting: 'lockout-max', reason: 'must not be less than lockout-step' };
  if (!isWholeNumberIn(next.rateLimitPerMinute, 0, 1_000_000)) {
    return { ok: false, setting: 'rate-limit', reason: 'must be a whole number of requests per minute from 0 (no limit) to 1000000' };
  }
  if (!isWholeNumberIn(next.loginRateLimitPerMinute, 0, 1_000_000)) {
    return { ok: false, setting: 'login-rate-limit', reason: 'must be a whole number of logins per minute from 0 (no limit) to 1000000' };
  }
  if (!isWholeNumberIn(next.storageQuotaMb, 1, MAX_STORAGE_QUOTA_MB)) {
    return { ok: false, setting: 'storage-quota', reason: `must be a whole number of MiB from 1 to ${MAX_STORAGE_QUOTA_MB}` };
  }
  if (!isWholeNumberIn(next.expiryWarningSeconds, 0, 366 * 86400)) {
    return { ok: false, setting: 'expiry-warning', reason: 'must be a period from 1m to 366D (m minutes, h hours, D days, W weeks), or 0 for none' };
  }
  for (const [setting, value, min, max, range] of [
    ['session-idle', next.sessionIdleSeconds, 60, 366 * 86400, '1m to 366D'],
    ['session-lifetime', next.sessionLifetimeSeconds, 60, 366 * 86400, '1m to 366D'],
    ['reset-lifetime', next.resetLifetimeSeconds, 60, 7 * 86400, '1m to 7D'],
  ] as const) {
    if (!isWholeNumberIn(value, min, max)) return { ok: false, setting, reason: `must be a period from ${range} (m minutes, h hours, D days, W weeks)` };
  }
  if (next.smtpUrl !== '' && !isSmtpUrl(next.smtpUrl)) {
    return { ok: false, setting: 'smtp-url', reason: 'must be smtp://[user:password@]host[:port] or smtps://…, or "" for no mail' };
  }
  if (next.mailFrom !== '' && !isMailFrom(next.mailFrom)) {
    return { ok: false, setting: 'mail-from', reason: 'must be an e-mail address, or a name and one in angle brackets ("Site <no-reply@example.com>")' };
  }
  if (next.smtpUrl !== '' && next.mailFrom === '') return { ok: false, setting: 'mail-from', reason: 'is needed with smtp-url (the sender of the mails)' };
  const unknownField = next.sessionFields.find((name) => !LIST_TOKENS.has(name) && !isProfileFieldName(name));
  if (unknownField !== undefined) return { ok: false, setting: 'session-fields', reason: `"${unknownField}" is neither a /list/ field nor a profile field name` };
  if (next.sessionFields.length > MAX_RECORD_FIELDS) return { ok: false, setting: 'session-fields', reason: `at most ${MAX_RECORD_FIELDS} fields` };
  return { ok: true, settings: { ...next, sessionFields: [...new Set(next.sessionFields)] } };
}

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' && url.pathname.replace(/^\/$/, '') === '';
  } catch {
    return false;
  }
}

/** `a@b.c` or `Name <a@b.c>`: no line breaks (a header), one address. */
function isMailFrom(value: string): boolean {
  if (/[\r\n]/.test(value) || value.length > 320) return false;
  const address = /<([^<>]+)>$/.exec(value)?.[1] ?? value;
  return isEmail(address);
}

function isWholeNumberIn(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
