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
