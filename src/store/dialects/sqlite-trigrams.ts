/** The words of SQLite's search index (its own module: the connection workers load it, and nothing else of the store). */

/** A trigram needs three characters; shorter texts are found by a scan (of the account's rows). */
const TRIGRAM = 3;

/**
 * One character as part of a word: a-z and 0-9 as themselves (the texts are folded to lower
 * case), anything else escaped with `q` (`q` itself is `qq`, an ASCII character `q` and two
 * hex digits, any other `qu` and six): no two texts give the same word.
 */
function letter(c: string): string {
  if ((c >= 'a' && c <= 'z' && c !== 'q') || (c >= '0' && c <= '9')) return c;
  if (c === 'q') return 'qq';
  const point = c.codePointAt(0)!;
  return point < 0x80 ? `q${point.toString(16).padStart(2, '0')}` : `qu${point.toString(16).padStart(6, '0')}`;
}

/**
 * The text the search index holds for a value: its trigrams as words that name the account
 * (`a17xlor` is "lor" in account 17). FTS5 keeps one list of rows per word, so a search reads
 * the lists of its own account's trigrams only: its cost, and its time, say nothing of another
 * account's data (FTS5's own trigram tokenizer keeps one list per trigram for every account
 * together). Consecutive trigrams are consecutive words, so a phrase of them finds exactly the
 * substring. Registered as the SQL function `account_trigrams`, which the triggers of
 * migration 006 call: every connection that writes members must have it.
 */
export function accountTrigrams(accountId: number, text: string): string {
  const letters: string[] = [];
  for (const c of text) letters.push(letter(c));
  if (letters.length < TRIGRAM) return '';
  const prefix = `a${accountId}x`;
  const words = new Array<string>(letters.length - TRIGRAM + 1);
  for (let i = 0; i < words.length; i++) words[i] = prefix + letters[i]! + letters[i + 1]! + letters[i + 2]!;
  return words.join(' ');
}
