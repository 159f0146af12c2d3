/**
 * The database shape, as Kysely sees it. Rows stay inside `store/`; the repositories turn
 * them into domain types. Instants are integer milliseconds since the epoch (UTC) on both
 * engines, so nothing above the store depends on an engine's date handling.
 */
import type { Generated } from 'kysely';
import type { MemberFieldColumns } from '../members/member-fields.js';

export interface Database {
  accounts: AccountTable;
  api_keys: ApiKeyTable;
  members: MemberTable;
  /** PostgreSQL only (migrations 023, 024): read through SearchSql, where the engine says so. */
  member_search: MemberSearchTable;
  member_fields: MemberFieldTable;
  sessions: SessionTable;
  login_events: LoginEventTable;
  login_failures: LoginFailureTable;
  settings: SettingTable;
  rate_limits: RateLimitTable;
  member_counts: MemberCountTable;
  member_count_deltas: MemberCountDeltaTable;
  account_usage: AccountUsageTable;
  account_usage_deltas: AccountUsageDeltaTable;
  upstream_links: UpstreamLinkTable;
  upstream_mirror: UpstreamMirrorTable;
  events: EventTable;
  event_outbox: EventOutboxTable;
  event_counters: EventCounterTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  operators: OperatorTable;
  operator_accounts: OperatorAccountTable;
  operator_links: OperatorLinkTable;
  operator_sessions: OperatorSessionTable;
  operator_recovery_codes: OperatorRecoveryCodeTable;
  bulk_updated_members: BulkUpdatedMemberTable;
  activity_counts: ActivityCountTable;
  reset_links: ResetLinkTable;
  mail_templates: MailTemplateTable;
  mail_outbox: MailOutboxTable;
  page_templates: PageTemplateTable;
  pending_registrations: PendingRegistrationTable;
  form_origins: FormOriginTable;
  billing_settings: BillingSettingsTable;
  billing_plans: BillingPlanTable;
  billing_events: BillingEventTable;
  billing_checkouts: BillingCheckoutTable;
  member_billing: MemberBillingTable;
}

/** An account's connection to its payment providers (migration 031). */
export interface BillingSettingsTable {
  account_id: number;
  stripe_secret_key: string;
  stripe_webhook_secret: string;
  paypal_receiver: string;
  on_refund: string;
  updated_at: number;
}

/** What a payment for a price or item grants (migration 031). */
export interface BillingPlanTable {
  account_id: number;
  name: string;
  title: string;
  stripe_price: string | null;
  paypal_item: string | null;
  amount: string | null;
  currency: string | null;
  grace_seconds: number;
  /** A JSON object of profile fields. */
  fields: string;
  created_at: number;
}

/** A provider's notification, once (migration 031). */
export interface BillingEventTable {
  id: Generated<number>;
  account_id: number;
  provider: string;
  event_id: string;
  type: string;
  /** applied, pending (no member matched yet), recorded (nothing to change), refused. */
  state: string;
  member_id: number | null;
  customer: string | null;
  subscription: string | null;
  payment: string | null;
  charge: string | null;
  amount: number | null;
  currency: string | null;
  outcome: string;
  /** The notice as read (JSON), to apply a pending one later. */
  notice: string;
  received_at: number;
}

/** A visitor's checkout, until its payment is confirmed (migration 031). */
export interface BillingCheckoutTable {
  id: string;
  account_id: number;
  plan: string;
  member_id: number | null;
  login: string;
  email: string;
  password_hash: string;
  language: string;
  session_id: string | null;
  created_at: number;
  completed_at: number | null;
  signed_in_at: number | null;
}

/** A paid member's state beyond the seed's bill_* columns (migration 031). */
export interface MemberBillingTable {
  member_id: number;
  account_id: number;
  plan: string;
  paid_until: number | null;
  status: string;
  status_at: number;
  cancel_at_period_end: number;
  disputed: number;
  period: string;
  period_from: number | null;
  updated_at: number;
}

/** Another site's origin whose pasted form reached an account's pages (migration 026). */
export interface FormOriginTable {
  account_id: number;
  origin: string;
  posts: Generated<number>;
  last_at: number;
}

/** A registration awaiting an operator's approval (its member Suspended meanwhile). */
export interface PendingRegistrationTable {
  member_id: number;
  account_id: number;
  created_at: number;
  /** The language of the page it was made on ('' when not known; migration 029). */
  language: Generated<string>;
}

/** An account's own layout of its member pages (the built-in one otherwise). */
export interface PageTemplateTable {
  account_id: number;
  /** `layout`: the one a page is drawn in. */
  name: string;
  text: string;
}

export interface AccountTable {
  id: Generated<number>;
  /** As its owner spelled it (the original's names keep their capitals). */
  name: string;
  /** The name folded (lower case): unique, and what every look-up compares (migration 026). */
  name_key: string;
  ok_url: string;
  fail_url: string;
  min_password_length: number;
  time_zone: string;
  lockout_threshold: number;
  lockout_step_seconds: number;
  lockout_max_seconds: number;
  lockout_reset_seconds: number;
  rate_limit_per_minute: number;
  login_rate_limit_per_minute: number;
  storage_quota_mb: number;
  created_at: number;
  emit_login_events: Generated<number>;
  expiry_warning_seconds: Generated<number>;
  session_idle_seconds: Generated<number>;
  session_lifetime_seconds: Generated<number>;
  reset_lifetime_seconds: Generated<number>;
  smtp_url: Generated<string>;
  mail_from: Generated<string>;
  /** The `record` fields a keyless /session/ check may read, comma-separated. */
  session_fields: Generated<string>;
  /** 1: /login/, /create/ and /update/ answer GET; 0: POST only. */
  get_writes: Generated<number>;
  /** 1: /create/ needs `_email`; 0: a member may have no address (migration 026). */
  require_email: Generated<number>;
  /** `short` or `original`: the FAIL text of a wrong login or password. */
  messages: Generated<string>;
  /** `common` or `off`: whether common passwords are refused. */
  password_check: Generated<string>;
  /** `off`, `open` or `approval`: the member pages' registration. */
  registration: Generated<string>;
  /** The registration page's fields, as `account set --registration-fields` writes them. */
  registration_fields: Generated<string>;
  /** The fields' labels and choices' texts per language, as `account set --field-texts` writes them (migration 027). */
  field_texts: Generated<string>;
  /** Origins a browser may return to after sign-in, comma-separated. */
  return_origins: Generated<string>;
  page_name: Generated<string>;
  page_logo_url: Generated<string>;
  page_accent: Generated<string>;
  /** `auto`, `en` or `fr`. */
  page_language: Generated<string>;
  /** Profile fields the protection check answers as headers, comma-separated. */
  check_fields: Generated<string>;
  /** The member-session cookie's Domain; "" for the pages' host only. */
  cookie_domain: Generated<string>;
  /** `optional` or `required` (migration 019). */
  operators_two_step: Generated<string>;
}

/** An account's API keys: SHA-256 digests only (a key is 256 random bits). */
export interface ApiKeyTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  digest: string;
  /** all, read or login. */
  scope: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

/**
 * A member's row: the columns of the table of member fields (members/member-fields.ts, which
 * types them), the account, the folded copies of login and e-mail, and when it last changed.
 */
export interface MemberTable extends Omit<MemberFieldColumns, 'id' | 'login_count'> {
  id: Generated<number>;
  /** 0 unless given (a default in the schema). */
  login_count: Generated<number>;
  account_id: number;
  /** The login folded for case-insensitive comparison; unique per account. */
  login_key: string;
  email_key: string;
  updated_at: number;
  /** The expiration instant a `member.expiring` was written for (migration 010). */
  exp_warned_at: Generated<number | null>;
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
  /** When a check last moved the idle deadline; null: not since the login. */
  seen_at: number | null;
  /** 1: "keep me signed in" (member pages): the idle lifetime does not end it. */
  remember: Generated<number>;
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

/**
 * Failed-login counters per member and scope: a client address (IPv4, or an IPv6 /64), ''
 * when the integrator sent none, or '*' for every address together. Member 0 counts the
 * attempts at logins that name no member, so that those cost the same store work.
 */
export interface LoginFailureTable {
  account_id: number;
  member_id: number;
  scope: string;
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

/**
 * PostgreSQL's copy of each member's folded login and address, kept by triggers on `members`,
 * with their indexes: unique login per account, address, and the trigrams of both.
 */
export interface MemberSearchTable {
  member_id: number;
  account_id: number;
  login_key: string;
  email_key: string;
}

export interface MemberCountDeltaTable {
  id: Generated<number>;
  account_id: number;
  status: string;
  n: number;
}

/** Bytes of profile values per account (with the deltas not yet folded in: see migration 006). */
export interface AccountUsageTable {
  account_id: number;
  profile_bytes: number;
}

export interface AccountUsageDeltaTable {
  id: Generated<number>;
  account_id: number;
  profile_bytes: number;
}

/** An account's link to the service its members come from (migration 007). */
export interface UpstreamLinkTable {
  account_id: number;
  url: string;
  upstream_user: string;
  /** The upstream's API key, kept as it is: it has to be sent. */
  upstream_key: string;
  time_zone: string;
  capture_unknown: number;
  mirror_writes: number;
  linked_at: number;
  sync_started_at: number | null;
  sync_cursor: number | null;
  last_sync_at: number | null;
  migrated: Generated<number>;
  captured: Generated<number>;
  upstream_errors: Generated<number>;
  last_error: string | null;
  last_error_at: number | null;
}

/** A write made here, waiting to be made at the upstream too. */
export interface UpstreamMirrorTable {
  id: Generated<number>;
  account_id: number;
  endpoint: string;
  /** The parameters, as JSON: [[name, value], …]. */
  params: string;
  created_at: number;
  attempts: Generated<number>;
  next_at: number;
  lease_until: Generated<number>;
  last_error: string | null;
}

/** Events written by changes and not yet numbered (migration 013): the sequencer moves them into `events`. */
export interface EventOutboxTable {
  entry: Generated<number>;
  account_id: number;
  type: string;
  at: number;
  actor: string;
  actor_email: string | null;
  actor_name: string | null;
  request_id: string | null;
  member_id: number | null;
  member_login: string | null;
  data: string;
}

/** An event of the trail (migration 008): what changed, when, by whom; `data` is JSON text. */
export interface EventTable extends EventOutboxTable {
  /** The id in the account's feed (null only in stores before migration 013). */
  id: number | null;
}

/** Each account's last event id. */
export interface EventCounterTable {
  account_id: number;
  last_id: number;
}

/** A webhook receiver of an account (migration 009). */
export interface WebhookEndpointTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  /** `whsec_…`: the Standard Webhooks signing secret. */
  secret: string;
  /** Comma-separated event types; null for all. */
  types: string | null;
  created_at: number;
  /** The last event id turned into deliveries for this endpoint. */
  cursor: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  /** Until when one server has this endpoint's deliveries in hand. */
  lease_until: Generated<number>;
  /** The operator's name for it, unique within the account; null for none. */
  name: string | null;
}

/** One event to one endpoint: pending (retried), delivered, or failed (given up). */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  endpoint_id: number;
  account_id: number;
  event_id: number;
  state: string;
  attempts: Generated<number>;
  next_at: number;
  created_at: number;
  delivered_at: number | null;
  last_error: string | null;
}

export interface WebhookAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  at: number;
  /** The receiver's HTTP status; null when there was no answer (timeout, refused, blocked address). */
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface OperatorTable {
  id: Generated<number>;
  email: string;
  email_key: string;
  password_hash: string | null;
  created_at: number;
  failures: Generated<number>;
  last_failure_at: Generated<number>;
  locked_until: Generated<number>;
  /** Base32 TOTP secret, once enrolled (migration 019); the one being enrolled, until confirmed. */
  totp_secret: string | null;
  totp_pending: string | null;
  /** The last time step a code was taken at: a code works once. */
  totp_step: Generated<number>;
  /** 1 for the server's administrators (migration 030). */
  administrator: Generated<number>;
}

/** A member a bulk update changed, by the instant of its `member.bulk_updated` event (migration 020). */
/** Registrations and logins per account, hour (its start, UTC) and kind: the overview's charts. */
export interface ActivityCountTable {
  account_id: number;
  hour: number;
  kind: string;
  n: number;
}

export interface BulkUpdatedMemberTable {
  member_id: number;
  at: number;
  account_id: number;
}

/** An operator's recovery codes, as SHA-256 digests; each works once. */
export interface OperatorRecoveryCodeTable {
  operator_id: number;
  digest: string;
  used_at: number | null;
}

export interface OperatorAccountTable {
  operator_id: number;
  account_id: number;
  role: string;
}

export interface OperatorLinkTable {
  digest: string;
  operator_id: number;
  expires_at: number;
}

export interface OperatorSessionTable {
  digest: string;
  operator_id: number;
  created_at: number;
  seen_at: number;
  /** 1 while the sign-in waits for its second step. */
  pending: Generated<number>;
}

/** Password reset links: SHA-256 digests only; single use (`used_at`), expiring. */
export interface ResetLinkTable {
  digest: string;
  account_id: number;
  member_id: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface MailTemplateTable {
  account_id: number;
  /** welcome, reset or expiring. */
  kind: string;
  text: string;
}

/** Mails queued with the change that asked for them, sent after its commit: to a member, or to an operator. */
export interface MailOutboxTable {
  id: Generated<number>;
  /** The account whose mail settings send it. */
  account_id: number;
  member_id: number | null;
  operator_id: Generated<number | null>;
  kind: string;
  /** JSON of what only the change knew (a reset link); "{}" once sent. */
  vars: string;
  created_at: number;
  due_at: number;
  attempts: Generated<number>;
  lease_until: Generated<number>;
  sent_at: number | null;
  failed_at: number | null;
  last_error: string | null;
}
