import type { AccountSettings, SettingsPatch } from './account.js';
import { ACCOUNT_SETTINGS } from './account-settings.js';

/** An account's name: 3 to 64 of these, kept as its owner spelled it, compared case-insensitively (the original's keep capitals). */
export const ACCOUNT_NAME = /^[A-Za-z0-9._-]{3,64}$/;

/** Names of an account's API keys. */
export const KEY_NAME = /^[a-z0-9._-]{1,64}$/;

/** Keys an account may hold at once (retiring ones included); expired ones do not count. */
export const MAX_KEYS_PER_ACCOUNT = 20;

export type { SettingsPatch } from './account.js';

/**
 * Applies a patch to settings, checking every value (ACCOUNT_SETTINGS says how), then the
 * rules that tie two settings together. Returns the new settings or the name of the first
 * setting that is wrong, with the reason.
 */
export function applySettingsPatch(
  current: AccountSettings,
  patch: SettingsPatch,
): { ok: true; settings: AccountSettings } | { ok: false; setting: string; reason: string } {
  let next: AccountSettings = { ...current, ...withoutUndefined(patch), lockout: { ...current.lockout, ...withoutUndefined(patch.lockout ?? {}) } };
  for (const spec of ACCOUNT_SETTINGS) {
    const value = spec.normalize ? spec.normalize(spec.get(next)) : spec.get(next);
    const reason = spec.kind.check(value);
    if (reason !== undefined) return { ok: false, setting: spec.option, reason };
    next = spec.set(next, value);
  }
  if (next.lockout.maxSeconds < next.lockout.stepSeconds) return { ok: false, setting: 'lockout-max', reason: 'must not be less than lockout-step' };
  if (next.smtpUrl !== '' && next.mailFrom === '') return { ok: false, setting: 'mail-from', reason: 'is needed with smtp-url (the sender of the mails)' };
  return { ok: true, settings: next };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
