/**
 * The fields an account's registration page asks for, beyond the login, the e-mail address
 * and the password: each a profile field, with its label, whether it is required, and its
 * kind (text, e-mail, number, date, a choice list, or a checkbox such as "I accept the terms").
 * The same fields, but the checkboxes and those marked `!` (asked once), are the ones a member
 * may change on the profile page. A field a member sets is never a level of access: levels
 * (`/check?require=plan:gold`) are set by the site, through the API or the console.
 *
 * Written on the command line as one setting, entries separated by `;`:
 * `first_name*:text:First name;country!:choice(fr|de|uk):Country;terms*:checkbox:I accept the terms`
 * (`*` after the name: required; `!`: asked at registration only; the label defaults to the name).
 */
import { isEmail } from '../members/fields.js';
import { isProfileFieldName, looksLikePassword } from '../members/profile-fields.js';

export const FIELD_KINDS = ['text', 'email', 'number', 'date', 'choice', 'checkbox'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

export interface RegistrationField {
  readonly name: string;
  readonly label: string;
  readonly required: boolean;
  /** Whether the member may change it on the profile page (never a checkbox). */
  readonly editable: boolean;
  readonly kind: FieldKind;
  /** A choice list's values. */
  readonly choices: readonly string[];
}

/** A form asks a few things: more is a survey. */
export const MAX_REGISTRATION_FIELDS = 20;
const MAX_LABEL = 200;
/** Most characters a member may type into one field of the page. */
export const MAX_FIELD_VALUE = 1000;

const ENTRY = /^([^*!:]+)(\*?)(!?):([a-z]+)(?:\(([^)]*)\))?(?::(.*))?$/s;

/** The setting's text as fields, or why it cannot be read. */
export function parseRegistrationFields(text: string): { ok: true; fields: RegistrationField[] } | { ok: false; reason: string } {
  const fields: RegistrationField[] = [];
  for (const raw of text.split(';')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = ENTRY.exec(entry);
    if (!match) return { ok: false, reason: `"${entry}" is not name[*][!]:kind[:label] (kinds: ${FIELD_KINDS.join(', ')}; choice(a|b))` };
    const [, name, star, once, kind, list, label] = match as unknown as [string, string, string, string, string, string | undefined, string | undefined];
    if (!isProfileFieldName(name)) return { ok: false, reason: `"${name}" is not a profile field name` };
    if (looksLikePassword(name)) return { ok: false, reason: `"${name}" looks like a password field: passwords are never kept in profile fields` };
    if (!(FIELD_KINDS as readonly string[]).includes(kind)) return { ok: false, reason: `"${kind}" is not a kind (${FIELD_KINDS.join(', ')})` };
    const choices = (list ?? '')
      .split('|')
      .map((choice) => choice.trim())
      .filter((choice) => choice !== '');
    if (kind === 'choice' && choices.length === 0) return { ok: false, reason: `"${name}": a choice lists its values, choice(gold|silver)` };
    if (kind !== 'choice' && list !== undefined) return { ok: false, reason: `"${name}": only a choice lists values` };
    if ((label ?? '').length > MAX_LABEL) return { ok: false, reason: `"${name}": a label has at most ${MAX_LABEL} characters` };
    if (fields.some((field) => field.name === name)) return { ok: false, reason: `"${name}" is named twice` };
    fields.push({
      name,
      label: label?.trim() || name,
      required: star === '*',
      editable: once !== '!' && kind !== 'checkbox',
      kind: kind as FieldKind,
      choices,
    });
  }
  if (fields.length > MAX_REGISTRATION_FIELDS) return { ok: false, reason: `at most ${MAX_REGISTRATION_FIELDS} fields` };
  return { ok: true, fields };
}

/** The fields as the setting writes them (what `account show` prints, what the store keeps). */
export function formatRegistrationFields(fields: readonly RegistrationField[]): string {
  return fields
    .map((field) => {
      const kind = field.kind === 'choice' ? `choice(${field.choices.join('|')})` : field.kind;
      const once = !field.editable && field.kind !== 'checkbox' ? '!' : '';
      return `${field.name}${field.required ? '*' : ''}${once}:${kind}${field.label === field.name ? '' : `:${field.label}`}`;
    })
    .join(';');
}

/** Why a value typed into the field cannot be kept (a message key and its values), or the value to keep. */
export type FieldCheck = { ok: true; value: string | undefined } | { ok: false; problem: 'required' | 'email' | 'number' | 'date' | 'choice' | 'too-long' };

/**
 * A value from the form, checked against its field: `undefined` is "not sent" (an unticked
 * checkbox). An empty optional field keeps no value.
 */
export function checkFieldValue(field: RegistrationField, sent: string | undefined): FieldCheck {
  const value = (sent ?? '').trim();
  if (field.kind === 'checkbox') {
    if (value === '') return field.required ? { ok: false, problem: 'required' } : { ok: true, value: undefined };
    return { ok: true, value: 'yes' };
  }
  if (value === '') return field.required ? { ok: false, problem: 'required' } : { ok: true, value: undefined };
  if (value.length > MAX_FIELD_VALUE) return { ok: false, problem: 'too-long' };
  switch (field.kind) {
    case 'email':
      return isEmail(value) ? { ok: true, value } : { ok: false, problem: 'email' };
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(value) ? { ok: true, value } : { ok: false, problem: 'number' };
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? { ok: true, value } : { ok: false, problem: 'date' };
    case 'choice':
      return field.choices.includes(value) ? { ok: true, value } : { ok: false, problem: 'choice' };
    default:
      return { ok: true, value };
  }
}
