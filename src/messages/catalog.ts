/**
 * Every word the web front ends show, in one catalog: a part per front end (the member pages'
 * in pages.ts, the console's in console.ts), English built in, French shipped beside it. A
 * view asks for a key of its front end's part; `{name}` in a string is filled from the values
 * given, and the view escapes the result like any other value.
 *
 * The mails to members are its third part (mails.ts).
 *
 * The member pages speak the account's language (`--page-language`), or the browser's
 * (Accept-Language). The console speaks English: its part has no French yet, and a language
 * without a word falls back to English's.
 */
import type { PageLanguage } from '../accounts/account.js';
import { CONSOLE_EN, type ConsoleKey } from './console.js';
import { MAILS_EN, MAILS_FR, type MemberMailText } from './mails.js';
import { PAGES_EN, PAGES_FR, type MessageKey } from './pages.js';

export type { ConsoleKey } from './console.js';
export type { MessageKey } from './pages.js';

interface Catalog {
  readonly pages: Readonly<Record<MessageKey, string>>;
  readonly console: Readonly<Partial<Record<ConsoleKey, string>>>;
  /** The built-in mails to members (English's where a language has none). */
  readonly mails: Readonly<Partial<Record<MemberMailText, string>>>;
}

export const LANGUAGES = {
  en: { pages: PAGES_EN, console: CONSOLE_EN, mails: MAILS_EN },
  fr: { pages: PAGES_FR, console: {}, mails: MAILS_FR },
} as const satisfies Record<string, Catalog>;
export type Language = keyof typeof LANGUAGES;

/** Values a string's `{name}` places are filled from. */
export type Values = Readonly<Record<string, string | number>>;

/** A member page's words: `t(key, values)`. */
export type Translate = (key: MessageKey, values?: Values) => string;
/** The console's words: `t(key, values)`. */
export type ConsoleTranslate = (key: ConsoleKey, values?: Values) => string;

const fill = (text: string, values: Values | undefined) => (values ? text.replace(/\{(\w+)\}/g, (all, name: string) => String(values[name] ?? all)) : text);

/** The member pages' words in a language. */
export function translator(language: Language): Translate {
  const words = LANGUAGES[language].pages;
  return (key, values) => fill(words[key], values);
}

/** The console's words in a language (English's where it has none). */
export function consoleTranslator(language: Language = 'en'): ConsoleTranslate {
  const words: Partial<Record<ConsoleKey, string>> = LANGUAGES[language].console;
  return (key, values) => fill(words[key] ?? CONSOLE_EN[key], values);
}

/**
 * The account's language, or (`auto`) the first of the browser's Accept-Language that is
 * built in, by its weight; English when none is.
 */
export function pickLanguage(setting: PageLanguage, acceptLanguage: string | undefined): Language {
  if (setting !== 'auto') return setting;
  const wanted = (acceptLanguage ?? '')
    .slice(0, 512)
    .split(',')
    .map((part, index) => {
      const [tag, ...options] = part.trim().split(';');
      const q = options.map((option) => /^\s*q=([0-9.]+)\s*$/.exec(option)?.[1]).find((value) => value !== undefined);
      return { language: (tag ?? '').split('-')[0]!.toLowerCase(), weight: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  return (wanted.find((entry) => Object.hasOwn(LANGUAGES, entry.language))?.language as Language | undefined) ?? 'en';
}

/** A language the catalog has, named by a mail's or a setting's text; undefined otherwise. */
export function languageNamed(name: string | undefined): Language | undefined {
  return name !== undefined && Object.hasOwn(LANGUAGES, name) ? (name as Language) : undefined;
}

/** A built-in mail's text in a language (English's where it has none). */
export function mailText(language: Language, text: MemberMailText): string {
  const words: Partial<Record<MemberMailText, string>> = LANGUAGES[language].mails;
  return words[text] ?? MAILS_EN[text];
}
