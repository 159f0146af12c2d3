/**
 * Profile fields: any parameter that is not a built-in of the endpoint. Their names may not
 * be, or look like, a built-in: the tokens of the seed's list table and the settings /update/
 * writes (both from the table of member fields), `user`, `api_key`, `ip`, and any name that
 * begins like a create setting or a selector. A slip (`login` sent for `_login`) is refused
 * rather than silently stored.
 */
import { LIST_TOKENS, UPDATE_PARAMETERS } from './member-fields.js';
import { MAX_PROFILE_VALUE_BYTES } from './fields.js';

/** Compared case-insensitively, so that `{Email}` can never mean two things. */
const RESERVED_NAMES = new Set<string>([...LIST_TOKENS.keys(), ...UPDATE_PARAMETERS, 'pfdelete', 'user', 'api_key', 'ip']);
const RESERVED_PREFIXES = ['_', 'set_', 'find_member_'];
const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** Whether a parameter name is one the API reserves: it is refused as a profile field. */
export function isReservedName(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_NAMES.has(lower) || RESERVED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

export function isProfileFieldName(name: string): boolean {
  return PROFILE_NAME.test(name) && !isReservedName(name);
}

/**
 * A name that says its field holds a password (`passwd`, `pwd`, `user_password`, `Passwort`,
 * `pin`…). Profile values are kept, listed and exported in clear: such a field is never
 * written (a password is the member's own, hashed). Reading one kept before stays possible.
 */
export function looksLikePassword(name: string): boolean {
  const folded = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  return /^(pass|pwd|pw|pin)\d*$/.test(folded) || /pass(word|wort|wd|phrase)/.test(folded);
}

export function isProfileFieldValue(value: string): boolean {
  return Buffer.byteLength(value, 'utf8') <= MAX_PROFILE_VALUE_BYTES;
}
