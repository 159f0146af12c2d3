/** Small text transforms shared by the layers, each linear in its input (request paths reach them). */

/**
 * `text` without the run of `char` at its end. A loop, not `/x+$/`: a regular expression
 * anchored at the end retries at every position of a long run that is followed by anything
 * else (`'/' * 16000 + 'a'`), quadratic in the run's length.
 */
export function trimTrailing(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * A URL with the password of its user part shown as `****`: the last `@` ends the user part
 * (a password's own `@` must be encoded, and its other reserved characters are what makes a
 * URL misread), so this masks even a password a URL parser would split elsewhere.
 */
export function maskPassword(url: string): string {
  const at = url.lastIndexOf('@');
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0].length;
  if (scheme === undefined || at < scheme) return url;
  const colon = url.indexOf(':', scheme);
  return colon < 0 || colon > at ? url : `${url.slice(0, colon + 1)}****${url.slice(at)}`;
}
