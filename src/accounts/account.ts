/** An account: one tenant of the installation, with its own members, key and settings. */
export interface Account {
  readonly id: number;
  readonly name: string;
  readonly apiKeyDigest: string;
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
  /** Requests per minute the account may make; 0 for no limit. */
  readonly rateLimitPerMinute: number;
}

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

export const DEFAULT_SETTINGS: AccountSettings = Object.freeze({
  okUrl: '',
  failUrl: '',
  minPasswordLength: 8,
  timeZone: 'UTC',
  lockout: DEFAULT_LOCKOUT,
  rateLimitPerMinute: 0,
});
