import type { RegistrationField } from './registration-fields.js';

/** An account: one tenant of the installation, with its own members, keys and settings. */
export interface Account {
  readonly id: number;
  readonly name: string;
  readonly settings: AccountSettings;
  readonly createdAt: number;
}

export interface AccountSettings {
  /** Where /login/ sends a member on success when the member has no URL of its own. */
  readonly okUrl: string;
  /** Where /login/ sends a member on failure when the member has no URL of its own. */
  readonly failUrl: string;
  readonly minPasswordLength: number;
  /** IANA zone in which dates are rendered and date filters are read. */
  readonly timeZone: string;
  readonly lockout: LockoutPolicy;
  /** Requests per minute the account's keyed calls may make; 0 for no limit. */
  readonly rateLimitPerMinute: number;
  /**
   * /login/ calls without a key, per minute, counted per member login and per client address
   * (each on its own budget, never the keyed one); 0 for no limit.
   */
  readonly loginRateLimitPerMinute: number;
  /** Most profile data (bytes of profile values, in MiB) the account's members may hold together. */
  readonly storageQuotaMb: number;
  /** Whether every login attempt writes a `member.login` event. */
  readonly loginEvents: boolean;
  /** How long before a member's time expiration `member.expiring` is written, in seconds; 0: never. */
  readonly expiryWarningSeconds: number;
  /** A /login/ session ends after this long without a check (/session/), in seconds. */
  readonly sessionIdleSeconds: number;
  /** A /login/ session ends this long after the login, whatever its checks, in seconds. */
  readonly sessionLifetimeSeconds: number;
  /** A password reset link works this long, in seconds. */
  readonly resetLifetimeSeconds: number;
  /** The account's mail server (smtp:// or smtps://, credentials in it); "" sends no mail. */
  readonly smtpUrl: string;
  /** The sender of the account's mails ("Site <no-reply@example.com>"). */
  readonly mailFrom: string;
  /**
   * The `record` fields a /session/ check may read with the session id alone (a member's
   * cookie), beyond the id, login, e-mail and status every check answers: built-in /list/
   * tokens and profile field names. A check with a key that may read reads any field.
   */
  readonly sessionFields: readonly string[];
  /**
   * Whether /login/, /create/ and /update/ answer GET (parameters, key and password in the
   * query string), as the hosted original does; off: 405, send POST.
   */
  readonly getWrites: boolean;
  /**
   * Whether /create/ needs `_email` (the seed's rule); off (the hosted original's), a member may
   * have no address: it gets no mail, and only an operator resets its password.
   */
  readonly requireEmail: boolean;
  /** The FAIL text of a wrong login or password: ours (`short`) or the hosted original's (`original`). */
  readonly messages: MessageStyle;
  /** Whether a chosen password on the ~49,000 most common ones is refused (`common`) or taken (`off`). */
  readonly passwordCheck: PasswordCheck;
  /** Whether the member pages let visitors register: not at all, at once, or after an operator's approval. */
  readonly registration: Registration;
  /** What the registration page asks beyond login, e-mail and password; members edit these on their profile page. */
  readonly registrationFields: readonly RegistrationField[];
  /**
   * Those fields' labels and choices' texts in the pages' languages, by `language:field` and
   * `language:field(value)` (accounts/field-texts.ts).
   */
  readonly fieldTexts: ReadonlyMap<string, string>;
  /**
   * Origins (`https://www.example.com`) the member pages may send a browser back to after
   * sign-in (`return`, `url`), and whose pages may post the sign-in form.
   */
  readonly returnOrigins: readonly string[];
  /** The member pages' heading; "" shows the account's name. */
  readonly pageName: string;
  /** An http(s) logo shown on the member pages; "" for none. */
  readonly pageLogoUrl: string;
  /** The member pages' accent colour, `#rrggbb`. */
  readonly pageAccent: string;
  /** The member pages' language: the browser's choice (`auto`) or one of the built-in ones. */
  readonly pageLanguage: PageLanguage;
  /** Profile fields `/auth/ACCOUNT/check` answers as `X-Member-Field-NAME` headers. */
  readonly checkFields: readonly string[];
  /**
   * The member-session cookie's `Domain` (`example.com`: sent to every subdomain, so that the
   * pages on `members.example.com` sign a member in on `www.example.com`); "" for this host only.
   */
  readonly cookieDomain: string;
  /** `required`: the account's operators must sign in to the console with a second step (TOTP). */
  readonly operatorsTwoStep: OperatorsTwoStep;
}

/** Some settings changed, the others kept (ACCOUNT_SETTINGS checks the result). */
export type SettingsPatch = Partial<Omit<AccountSettings, 'lockout'>> & { lockout?: Partial<LockoutPolicy> };

export const REGISTRATIONS = ['off', 'open', 'approval'] as const;
export type Registration = (typeof REGISTRATIONS)[number];
export const PAGE_LANGUAGES = ['auto', 'en', 'fr'] as const;
export const OPERATORS_TWO_STEP = ['optional', 'required'] as const;
export type OperatorsTwoStep = (typeof OPERATORS_TWO_STEP)[number];
export type PageLanguage = (typeof PAGE_LANGUAGES)[number];

export const MESSAGE_STYLES = ['short', 'original'] as const;
export type MessageStyle = (typeof MESSAGE_STYLES)[number];
export const PASSWORD_CHECKS = ['common', 'off'] as const;
export type PasswordCheck = (typeof PASSWORD_CHECKS)[number];

/**
 * Brute-force protection for member logins. After `threshold` failures in a row the member
 * is locked for `stepSeconds`, one step longer for each further failure, at most `maxSeconds`;
 * the count starts over after `resetSeconds` without a failure. A threshold of 0 turns it off.
 */
export interface LockoutPolicy {
  readonly threshold: number;
  readonly stepSeconds: number;
  readonly maxSeconds: number;
  readonly resetSeconds: number;
}

/** Keycloak's defaults: 30 failures, then waits growing by a minute up to 15 minutes; reset after 12 hours. */
export const DEFAULT_LOCKOUT: LockoutPolicy = Object.freeze({
  threshold: 30,
  stepSeconds: 60,
  maxSeconds: 900,
  resetSeconds: 12 * 3600,
});

/** What every valid /session/ check answers, whatever it is allowed to read besides. */
export const SESSION_ANSWER_FIELDS: readonly string[] = ['id', 'login', 'email', 'status'];

/**
 * What a keyless /session/ check may read by default: the member's own dates and kind of
 * registration. Not the billing references (a payment provider's ids) nor any profile field:
 * an account names those it wants (`--session-fields`).
 */
export const DEFAULT_SESSION_FIELDS: readonly string[] = Object.freeze([
  'reg_type',
  'reg_date',
  'reg_time',
  'exp_date',
  'exp_time',
  'last_login_date',
  'last_login_time',
]);

export const DEFAULT_SETTINGS: AccountSettings = Object.freeze({
  okUrl: '',
  failUrl: '',
  minPasswordLength: 8,
  timeZone: 'UTC',
  lockout: DEFAULT_LOCKOUT,
  rateLimitPerMinute: 0,
  loginRateLimitPerMinute: 0,
  storageQuotaMb: 1024,
  loginEvents: false,
  expiryWarningSeconds: 0,
  sessionIdleSeconds: 2 * 3600,
  sessionLifetimeSeconds: 30 * 86400,
  resetLifetimeSeconds: 3600,
  smtpUrl: '',
  mailFrom: '',
  sessionFields: DEFAULT_SESSION_FIELDS,
  getWrites: true,
  requireEmail: false,
  messages: 'short',
  passwordCheck: 'common',
  registration: 'off',
  registrationFields: [],
  fieldTexts: new Map(),
  returnOrigins: [],
  pageName: '',
  pageLogoUrl: '',
  pageAccent: '#1d4ed8',
  pageLanguage: 'auto',
  checkFields: [],
  cookieDomain: '',
  operatorsTwoStep: 'optional',
});

/**
 * What a key may do. `all`: every call. `read`: /list/ only. `login`: only /login/ with `IP`
 * (an integrator's login page, which needs nothing else).
 */
export type KeyScope = 'all' | 'read' | 'login';
export const KEY_SCOPES: readonly KeyScope[] = ['all', 'read', 'login'];

/** What a call needs of a key. */
export type KeyUse = 'write' | 'read' | 'login';

export function scopeAllows(scope: KeyScope, use: KeyUse): boolean {
  return scope === 'all' || (scope === 'read' && use === 'read') || (scope === 'login' && use === 'login');
}

/** One of an account's API keys, as the service sees it: never the key itself, only its digest. */
export interface ApiKey {
  readonly id: number;
  readonly accountId: number;
  readonly name: string;
  readonly digest: string;
  readonly scope: KeyScope;
  readonly createdAt: number;
  /** The key stops working at this instant (a rotation's grace period, or `--expires`); null: never. */
  readonly expiresAt: number | null;
  readonly lastUsedAt: number | null;
}

/** The name of the key an account is created with, and that `rotate-key` replaces by default. */
export const DEFAULT_KEY_NAME = 'default';
