/**
 * The console's forms as the members' service's commands: a member's edit, a new member, a
 * bulk action. Each field is checked by the same rule as the API's parameter of the same
 * meaning (http/decoders.ts), and an error names the form's own field; nothing is rebuilt as
 * API parameters, so a form's field can never stand in for another.
 */
import type { Account } from '../accounts/account.js';
import type { CreateMemberCommand, UpdateMembersCommand } from '../members/members-service.js';
import { changesSomething } from '../members/members-service.js';
import type { ExpiryAction } from '../members/member.js';
import { ApiError, MESSAGES } from '../http/errors.js';
import { codeOf, decodeEmail, decodeLogin, decodePassword, decodePeriodUnit, decodePositiveInteger, profileValueOf, urlOf } from '../http/decoders.js';
import { newField, type Params } from './forms.js';

/** An update without its selector: what a form asks to change. */
export type MemberChange = Omit<UpdateMembersCommand, 'selector'>;

/** What the edit form needs to know of the member: what it shows, so that only what changed is sent. */
export interface EditedMember {
  readonly profile: ReadonlyMap<string, string>;
  readonly urlOk: string | null;
  readonly urlFail: string | null;
}

const filled = (form: Params, name: string) => (form[name] ? form[name] : undefined);

/** N (none: null), S (suspend) or D (delete) from a form's select. */
function expiryAction(name: string, value: string): ExpiryAction | null {
  const code = codeOf(name, value, ['N', 'S', 'D'] as const);
  return code === 'N' ? null : code;
}

/** A time expiration: its mode, and a period from now when the mode is not N. */
function timeExpiry(form: Params, names: { mode: string; count: string; unit: string }): MemberChange['timeExpiry'] {
  const mode = filled(form, names.mode);
  if (mode === undefined) return undefined;
  const action = expiryAction(names.mode, mode);
  return action && { action, count: decodePositiveInteger(names.count, form[names.count]), unit: decodePeriodUnit(names.unit, form[names.unit]) };
}

/** A change that changes something, or the API's "nothing to change". */
function something<C extends MemberChange>(change: C): C {
  if (!changesSomething(change)) throw new ApiError(MESSAGES.nothingToChange);
  return change;
}

/**
 * A member's edit form: the login, address and password when filled in; the URLs when they
 * differ from the member's (emptied: cleared); an expiration when its mode is chosen; the
 * profile fields that differ (emptied: removed), and one new field.
 */
export function editCommand(form: Params, member: EditedMember, account: Account): MemberChange {
  const login = filled(form, 'login');
  const email = filled(form, 'email');
  const password = filled(form, 'password');
  const url = (name: 'urlok' | 'urlfail', current: string | null) =>
    form[name] === undefined || form[name] === (current ?? '') ? undefined : urlOf(name, form[name]);
  const loginMode = filled(form, 'is_exp_logins');
  const loginAction = loginMode === undefined ? undefined : expiryAction('is_exp_logins', loginMode);
  const setFields = new Map<string, string>();
  const deleteFields: string[] = [];
  for (const [name, value] of member.profile) {
    const sent = form[`profile:${name}`];
    if (sent === undefined || sent === value) continue;
    if (sent === '') deleteFields.push(name);
    else setFields.set(name, profileValueOf(name, sent));
  }
  const added = newField(form);
  if (added && member.profile.has(added[0])) throw ApiError.invalid('new_field', `${added[0]} is a field this member has already: change it in its own box`);
  if (added) setFields.set(added[0], profileValueOf('new_value', added[1]));
  return something({
    login: login === undefined ? undefined : decodeLogin('login', login),
    email: email === undefined ? undefined : decodeEmail('email', email),
    password: password === undefined ? undefined : decodePassword('password', password, account.settings),
    urlOk: url('urlok', member.urlOk),
    urlFail: url('urlfail', member.urlFail),
    timeExpiry: timeExpiry(form, { mode: 'is_exp_time', count: 'exp_time', unit: 'exp_time_type' }),
    loginExpiry: loginAction && { action: loginAction, count: decodePositiveInteger('exp_logins', form.exp_logins) },
    deleteFields,
    setFields,
  });
}

/** A member's status (A, S or D) from its page's buttons. */
export function statusCommand(form: Params): MemberChange {
  if (!form.status) throw ApiError.missing('status');
  return something({ status: codeOf('status', form.status, ['A', 'S', 'D'] as const), deleteFields: [], setFields: new Map() });
}

/** The new-member form: a login, an address (required when the account requires one), a password or one generated, one profile field. */
export function createCommand(form: Params, account: Account): CreateMemberCommand {
  const login = filled(form, 'login');
  if (login === undefined) throw ApiError.missing('login');
  const email = filled(form, 'email');
  if (email === undefined && account.settings.requireEmail) throw ApiError.missing('email');
  const password = filled(form, 'password');
  const added = newField(form);
  // The account's own fields, each its box (`profile:NAME`); an empty one is not set.
  const profile = new Map<string, string>();
  for (const field of account.settings.registrationFields) {
    const value = filled(form, `profile:${field.name}`);
    if (value !== undefined) profile.set(field.name, profileValueOf(field.name, value));
  }
  if (added) profile.set(added[0], profileValueOf('new_value', added[1]));
  return {
    login: decodeLogin('login', login),
    email: email === undefined ? '' : decodeEmail('email', email),
    password: password === undefined ? null : decodePassword('password', password, account.settings),
    urlOk: null,
    urlFail: null,
    timeExpiry: null,
    loginExpiry: null,
    ip: null,
    profile,
  };
}

/** The bulk actions, each the change it makes to every member found. */
export const BULK_CHANGES = {
  suspend: () => ({ status: 'S' }),
  activate: () => ({ status: 'A' }),
  delete: () => ({ status: 'D' }),
  'set-field': (form) => {
    const field = newField(form);
    if (!field) throw ApiError.invalid('new_field', 'the name of the profile field to set');
    return { setFields: new Map([[field[0], profileValueOf('new_value', field[1])]]) };
  },
  'remove-field': (form) => {
    const field = form.field?.trim();
    if (!field) throw ApiError.invalid('field', 'the name of the profile field to remove');
    return { deleteFields: [field] };
  },
  'set-expiry': (form) => ({ timeExpiry: timeExpiry(form, { mode: 'exp_mode', count: 'exp_time', unit: 'exp_time_type' }) }),
  'clear-expiry': () => ({ timeExpiry: null }),
} satisfies Record<string, (form: Params) => Partial<MemberChange>>;

export type BulkAction = keyof typeof BULK_CHANGES;

/** The form's action, or an error naming `action`. */
export function actionOf(form: Params): BulkAction {
  if (form.action !== undefined && Object.hasOwn(BULK_CHANGES, form.action)) return form.action as BulkAction;
  throw ApiError.invalid('action', `one of ${Object.keys(BULK_CHANGES).join(', ')}`);
}

/** A bulk form's change to every member found. */
export function bulkCommand(form: Params): MemberChange {
  return something({ deleteFields: [], setFields: new Map(), ...BULK_CHANGES[actionOf(form)](form) });
}
