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

/**
 * A redirect URL as it is kept: one isRedirectUrl accepts, its host in ASCII (punycode) and
 * every other character beyond ASCII percent-encoded as UTF-8 (`/accès` is `/acc%C3%A8s`, the
 * same address to a browser), so that it can always go into a `Location` header; undefined
 * when it is not one (or holds a lone surrogate, which no encoding can carry).
 */
export function redirectUrl(value: string): string | undefined {
  if (!isRedirectUrl(value)) return undefined;
  let encoded: string;
  try {
    encoded = withAsciiHost(value).replace(/[^\u0000-\u007f]+/gu, (run) => encodeURIComponent(run));
  } catch {
    return undefined;
  }
  return encoded.length <= MAX_URL_LENGTH ? encoded : undefined;
}

/** An absolute URL with its host in ASCII: an international name as punycode (`bücher.example` is `xn--bcher-kva.example`). */
function withAsciiHost(value: string): string {
  const authority = /^(https?:\/\/)([^/?#]*)/i.exec(value);
  if (!authority || /^[\u0000-\u007f]*$/.test(authority[2]!)) return value;
  const at = authority[2]!.lastIndexOf('@');
  return `${authority[1]}${authority[2]!.slice(0, at + 1)}${new URL(value).host}${value.slice(authority[0].length)}`;
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

/** The origin of an absolute http(s) URL, or undefined. */
export function originOf(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
