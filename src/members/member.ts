/** The member as the rest of the service sees it; the store turns rows into this. */
import type { LoginExpiry, MemberFieldValues, TimeExpiry } from './member-fields.js';

export type { ExpiryAction, LoginExpiry, MemberStatus, RegType, TimeExpiry } from './member-fields.js';

/**
 * A member's built-in fields: the table of member fields (member-fields.ts) types them, so
 * that a field added there is a property here, with its type and its nullability. The
 * expirations are pairs (an action and an instant, or a count), both set or neither.
 */
export interface Member extends MemberFieldValues {
  readonly accountId: number;
  readonly timeExpiry: TimeExpiry | null;
  readonly loginExpiry: LoginExpiry | null;
}

/** What every new member is given, whichever way it comes (the API, an import). */
type NewMemberBasics = Pick<
  Member,
  'login' | 'email' | 'passwordHash' | 'status' | 'regType' | 'regAt' | 'regIp' | 'urlOk' | 'urlFail' | 'timeExpiry' | 'loginExpiry'
>;

/** What /create/ (and the import) hands to the store: the basics, and any other field it has. */
export type NewMember = NewMemberBasics & Partial<Omit<Member, keyof NewMemberBasics | 'id' | 'accountId'>> & { readonly profile: ReadonlyMap<string, string> };

/**
 * Logins and e-mail addresses compare case-insensitively. The folded key is computed here,
 * once, so that both engines compare the same way whatever their collations do.
 */
export function foldKey(value: string): string {
  return value.normalize('NFC').toLowerCase();
}
