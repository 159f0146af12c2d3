/**
 * The account's own words on the member pages, in each language the pages speak: a
 * registration field's label, and the text a choice's value is shown with. The fields'
 * setting keeps one label per field and stores a choice's value as written
 * (`plan:choice(gold|silver):Plan`); this setting says how each reads in a language.
 *
 * Written as one setting, entries separated by `;` (or lines), each `language:field=text` for a label or
 * `language:field(value)=text` for a choice's value:
 * `fr:first_name=Prénom;fr:plan=Formule;fr:plan(gold)=Or;en:plan(gold)=Gold plan`.
 * A field or value without a text in the page's language shows its label, or its value, as the
 * fields' setting writes it.
 */
import { PAGE_LANGUAGES } from './account.js';
import { isProfileFieldName } from '../members/profile-fields.js';
import type { RegistrationField } from './registration-fields.js';

/** Texts by `language:field` or `language:field(value)`. */
export type FieldTexts = ReadonlyMap<string, string>;

/** An account's texts: a label and a text per choice for each of 20 fields, in a few languages. */
export const MAX_FIELD_TEXTS = 400;
const MAX_TEXT = 200;
const ENTRY = /^([a-z]{2}):([A-Za-z0-9_.-]{1,64})(?:\(([^()=;]{1,200})\))?\s*=(.*)$/s;
const LANGUAGES: readonly string[] = PAGE_LANGUAGES.filter((language) => language !== 'auto');

/** The setting's text as texts, or why it cannot be read. */
export function parseFieldTexts(text: string): { ok: true; texts: FieldTexts } | { ok: false; reason: string } {
  const texts = new Map<string, string>();
  for (const raw of text.split(/[;\n]/)) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = ENTRY.exec(entry);
    if (!match) return { ok: false, reason: `"${entry}" is not language:field=text or language:field(value)=text` };
    const [, language, field, value, words] = match as unknown as [string, string, string, string | undefined, string];
    if (!LANGUAGES.includes(language)) return { ok: false, reason: `"${language}" is not a language of the pages (${LANGUAGES.join(', ')})` };
    if (!isProfileFieldName(field)) return { ok: false, reason: `"${field}" is not a profile field name` };
    const shown = words.trim();
    if (shown === '' || shown.length > MAX_TEXT || /[\u0000-\u001f\u007f]/.test(shown))
      return { ok: false, reason: `"${entry}": a text has 1 to ${MAX_TEXT} characters, on one line` };
    const key = textKey(language, field, value?.trim());
    if (texts.has(key)) return { ok: false, reason: `"${key}" is given twice` };
    texts.set(key, shown);
  }
  if (texts.size > MAX_FIELD_TEXTS) return { ok: false, reason: `at most ${MAX_FIELD_TEXTS} texts` };
  return { ok: true, texts };
}

/** The texts as the setting writes them. */
export function formatFieldTexts(texts: FieldTexts): string {
  return [...texts].map(([key, text]) => `${key}=${text}`).join(';');
}

const textKey = (language: string, field: string, value?: string) => (value === undefined ? `${language}:${field}` : `${language}:${field}(${value})`);

/** A field's label in a language: its text there, else its label. */
export function fieldLabel(field: RegistrationField, texts: FieldTexts, language: string): string {
  return texts.get(textKey(language, field.name)) ?? field.label;
}

/** A choice's value as shown in a language: its text there, else the value itself. */
export function choiceText(field: RegistrationField, value: string, texts: FieldTexts, language: string): string {
  return texts.get(textKey(language, field.name, value)) ?? value;
}
