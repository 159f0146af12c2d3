/**
 * What a chosen password must be: the account's minimum to 1024 characters (counted after
 * NFKC normalisation, never truncated), and not one of the most common passwords (the
 * zxcvbn-ts common list: ~49,000 passwords seen in breaches, compared case-insensitively).
 * Generated passwords are random and are not checked.
 */
import { dictionary } from '@zxcvbn-ts/language-common';
import { isOverlongPassword, MAX_PASSWORD_LENGTH, normalizePassword, passwordLength } from './passwords.js';

export type PasswordVerdict = 'ok' | 'too-short' | 'too-long' | 'too-common';

let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
  return common.has(normalizePassword(password).toLowerCase());
}

/** The rules of one account (or the operators'): its minimum length, and whether common passwords are refused. */
export interface PasswordRules {
  readonly minLength: number;
  readonly refuseCommon: boolean;
}

export function checkChosenPassword(password: string, rules: PasswordRules): PasswordVerdict {
  if (isOverlongPassword(password)) return 'too-long';
  const length = passwordLength(password);
  if (length < rules.minLength) return 'too-short';
  if (length > MAX_PASSWORD_LENGTH) return 'too-long';
  if (rules.refuseCommon && isCommonPassword(password)) return 'too-common';
  return 'ok';
}
