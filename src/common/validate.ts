/** Small value checks shared by the account settings and the member fields. */
import { isIP } from 'node:net';

export const MAX_URL_LENGTH = 2048;

/**
 * An absolute http(s) URL or a path starting with `/`, at most 2048 characters, no white
 * space. No backslash anywhere: browsers read `/\evil.com` as `//evil.com`, another site.
 */
export function isRedirectUrl(value: string): boolean {
  if (value.length === 0 || value.length > MAX_URL_LENGTH || /[\s\u0000-\u001f\u007f\\]/.test(value)) return false;
  if (value.startsWith('/')) return !value.startsWith('//');
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An IANA time zone name that this runtime knows. */
export function isTimeZone(value: string): boolean {
  if (value.length === 0 || value.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** A literal IPv4 or IPv6 address. */
export function isIpAddress(value: string): boolean {
  return isIP(value) !== 0;
}
