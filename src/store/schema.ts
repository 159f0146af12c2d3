/**
 * The database shape, as Kysely sees it. Rows stay inside `store/`; the repositories turn
 * them into domain types. Instants are integer milliseconds since the epoch (UTC) on both
 * engines, so nothing above the store depends on an engine's date handling.
 */
import type { Generated } from 'kysely';

export interface Database {
  accounts: AccountTable;
  members: MemberTable;
  member_fields: MemberFieldTable;
  sessions: SessionTable;
  login_events: LoginEventTable;
  login_throttle: LoginThrottleTable;
  settings: SettingTable;
  rate_limits: RateLimitTable;
  member_counts: MemberCountTable;
  member_count_deltas: MemberCountDeltaTable;
}

export interface AccountTable {
  id: Generated<number>;
  name: string;
  api_key_digest: string;
  ok_url: string;
  fail_url: string;
  min_password_length: number;
  time_zone: string;
  lockout_threshold: number;
  lockout_step_seconds: number;
  lockout_max_seconds: number;
  lockout_reset_seconds: number;
  rate_limit_per_minute: number;
  created_at: number;
}

/** status: A active, S suspended, D deleted. reg_type: F free, P paid, A api, M manual. */
export interface MemberTable {
  id: Generated<number>;
  account_id: number;
  login: string;
  /** The login folded for case-insensitive comparison; unique per account. */
  login_key: string;
  email: string;
  email_key: string;
  password_hash: string;
  status: string;
  reg_type: string;
  reg_at: number;
  reg_ip: string | null;
  url_ok: string | null;
  url_fail: string | null;
  /** S or D, with the instant it falls due; both null when there is no time expiration. */
  exp_time_mode: string | null;
  exp_time_at: number | null;
  /** S or D, with the logins still allowed; both null when there is no login expiration. */
  exp_logins_mode: string | null;
  exp_logins_left: number | null;
  login_count: Generated<number>;
  last_login_at: number | null;
  last_login_ip: string | null;
  deleted_at: number | null;
  email_verified_at: number | null;
  bill_pc: string | null;
  bill_id: string | null;
  bill_item: string | null;
  bill_cust: string | null;
  bill_subscr: string | null;
  bill_qty: string | null;
  updated_at: number;
}

/** Profile fields, one row per field, so that each can be indexed and searched. */
export interface MemberFieldTable {
  member_id: number;
  account_id: number;
  name: string;
  value: string;
  /** The value folded for case-insensitive search; null when folding leaves it unchanged. */
  value_key: string | null;
}

export interface SessionTable {
  /** SHA-256 of the session id handed to the client; the id itself is never stored. */
  digest: string;
  account_id: number;
  member_id: number;
  created_at: number;
  ip: string | null;
}

export interface LoginEventTable {
  id: Generated<number>;
  account_id: number;
  member_id: number | null;
  login: string;
  ip: string;
  at: number;
  outcome: string;
}

/** Failed-login counters, per member and per client address ('' when none was sent). */
export interface LoginThrottleTable {
  account_id: number;
  member_id: number;
  ip: string;
  failures: number;
  last_failure_at: number;
  locked_until: number;
}

export interface SettingTable {
  name: string;
  value: string;
}

/** rate-limiter-flexible's counters (its shape): a key, points used, when they expire (ms). */
export interface RateLimitTable {
  key: string;
  points: number;
  expire: number | null;
}

/** Members per account and status (with the deltas not yet folded in: see migration 005). */
export interface MemberCountTable {
  account_id: number;
  status: string;
  n: number;
}

export interface MemberCountDeltaTable {
  id: Generated<number>;
  account_id: number;
  status: string;
  n: number;
}
