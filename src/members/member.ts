/** The member as the rest of the service sees it; the store turns rows into this. */

export type MemberStatus = 'A' | 'S' | 'D';
/** F free, P paid, A created through the API, M manual. */
export type RegType = 'F' | 'P' | 'A' | 'M';
/** What an expiration does when it falls due: suspend or delete. */
export type ExpiryAction = 'S' | 'D';

export interface TimeExpiry {
  readonly action: ExpiryAction;
  /** The instant (ms) at which the member expires. */
  readonly at: number;
}

export interface LoginExpiry {
  readonly action: ExpiryAction;
  /** Successful logins still allowed; the login that brings this to 0 succeeds. */
  readonly left: number;
}

export interface Billing {
  readonly pc: string | null;
  readonly id: string | null;
  readonly item: string | null;
  readonly cust: string | null;
  readonly subscr: string | null;
  readonly qty: string | null;
}

/** What a member is made of when it is created, whichever way (API, import). */
interface MemberBasics {
  readonly login: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly status: MemberStatus;
  readonly regType: RegType;
  readonly regAt: number;
  readonly regIp: string | null;
  readonly urlOk: string | null;
  readonly urlFail: string | null;
  readonly timeExpiry: TimeExpiry | null;
  readonly loginExpiry: LoginExpiry | null;
}

export interface Member extends MemberBasics {
  readonly id: number;
  readonly accountId: number;
  readonly loginCount: number;
  readonly lastLoginAt: number | null;
  readonly lastLoginIp: string | null;
  readonly deletedAt: number | null;
  readonly emailVerifiedAt: number | null;
  readonly billing: Billing;
}

/** What /create/ (and later the import) hands to the store. */
export interface NewMember extends MemberBasics {
  readonly billing?: Partial<Billing>;
  readonly profile: ReadonlyMap<string, string>;
}

/**
 * Logins and e-mail addresses compare case-insensitively. The folded key is computed here,
 * once, so that both engines compare the same way whatever their collations do.
 */
export function foldKey(value: string): string {
  return value.normalize('NFC').toLowerCase();
}
