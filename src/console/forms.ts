/**
 * What the console's forms and addresses say: the members page's filters, order and columns
 * from its query, a form's new profile field, and the API's messages as a form shows them.
 */
import type { MemberFilters, MemberPageQuery } from '../members/member-store.js';
import { isProfileFieldName, looksLikePassword } from '../members/profile-fields.js';
import { ApiError } from '../http/errors.js';
import { isUpdateParameter } from '../http/routes/update.js';

export type Params = Record<string, string>;

/** The members page's order: a column, either way; newest first unless asked otherwise. */
export function sortOf(query: Params): { order: MemberPageQuery['order']; descending: boolean } {
  const orders: ReadonlyArray<MemberPageQuery['order']> = ['id', 'login', 'email', 'status', 'registered'];
  const order = orders.find((name) => name === query.sort);
  if (!order) return { order: 'id', descending: query.dir !== 'asc' };
  return { order, descending: query.dir === 'desc' };
}

/** The profile fields the members page shows as columns (`columns=city,plan`): eight at most, each once. */
export function columnsOf(query: Params): string[] {
  return [
    ...new Set(
      (query.columns ?? '')
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
    ),
  ].slice(0, 8);
}

/** Filters of the members page, from its query string; a wrong value is reported by name. */
export function filtersOf(query: Params, now: number): MemberFilters {
  const day = (name: string) => {
    const value = query[name];
    if (!value) return undefined;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
      throw new ApiError(`invalid parameter: ${name}: a date, YYYY-MM-DD`);
    return Date.parse(`${value}T00:00:00Z`);
  };
  const status = query.status && ['A', 'S', 'D'].includes(query.status) ? (query.status as 'A' | 'S' | 'D') : undefined;
  const search = query.q?.trim();
  const regType = query.reg_type && ['F', 'P', 'A', 'M'].includes(query.reg_type) ? (query.reg_type as 'F' | 'P' | 'A' | 'M') : undefined;
  const days = (name: string) => (query[name] && /^\d{1,4}$/.test(query[name]!) ? Number(query[name]) : undefined);
  const within = days('deleted_within');
  const created = days('created_within');
  const text = (name: string) => (query[name]?.trim() ? query[name]!.trim() : undefined);
  return {
    anyContains: search ? search : undefined,
    includeDeleted: query.status === 'all' ? true : undefined,
    loginContains: text('login'),
    emailContains: text('email'),
    profileContains: text('profile'),
    profileFieldContains: text('field') && text('field_value') ? [{ name: text('field')!, text: text('field_value')! }] : [],
    status,
    regType,
    registeredFrom: created === undefined ? day('registered_from') : Math.max(day('registered_from') ?? 0, now - created * 86_400_000),
    registeredBefore: day('registered_before'),
    deletedFrom: within === undefined ? undefined : now - within * 86_400_000,
  };
}

/** The profile field a form adds (`new_field`, `new_value`): a profile field's name, never a built-in's or a selector's. */
export function newField(form: Params): [string, string] | undefined {
  const name = form.new_field?.trim();
  if (!name) return undefined;
  if (!isProfileFieldName(name) || isUpdateParameter(name))
    throw ApiError.invalid('new_field', `"${name}" is not a profile field's name: letters, digits, _ . - and not a built-in field's or a parameter's name`);
  if (looksLikePassword(name))
    throw ApiError.invalid('new_field', `"${name}" looks like a password, and profile fields are kept in clear: set the password in its own box`);
  return [name, form.new_value ?? ''];
}

/** The API's messages name parameters (`invalid parameter: email: …`); the console's form says the same. */
export function readable(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1) + (message.endsWith('.') ? '' : '.');
}
