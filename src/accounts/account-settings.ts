/**
 * An account's settings, declared once: each with its command-line option, the column that
 * holds it, its default, how it is read from the command line, checked, stored and shown, and
 * the text of its help and of its row in docs/configuration.md. The command line's options,
 * `applySettingsPatch`'s checks, the store's row mapping, `account show` and the documentation
 * table are all derived from this list (a test holds the documentation to it).
 *
 * A new setting: a field in AccountSettings and DEFAULT_SETTINGS (account.ts), an entry here,
 * a column (a migration and schema.ts), and the regenerated table in the docs.
 */
import { MAX_PASSWORD_LENGTH } from '../auth/passwords.js';
import { isTimeZone, originOf, redirectUrl } from '../common/validate.js';
import { isEmail, MAX_RECORD_FIELDS } from '../members/fields.js';
import { LIST_TOKENS } from '../members/member-fields.js';
import { isProfileFieldName } from '../members/profile-fields.js';
import {
  DEFAULT_SETTINGS,
  MESSAGE_STYLES,
  OPERATORS_TWO_STEP,
  PAGE_LANGUAGES,
  PASSWORD_CHECKS,
  REGISTRATIONS,
  type AccountSettings,
  type SettingsPatch,
} from './account.js';
import { formatRegistrationFields, parseRegistrationFields, type RegistrationField } from './registration-fields.js';
import { formatFieldTexts, parseFieldTexts, type FieldTexts } from './field-texts.js';

/** A value the command line cannot read as the setting's kind (its message says what it must be). */
export class SettingValueError extends Error {}

/** How one kind of value is read from the command line, checked, stored and shown. */
interface Kind<V> {
  /** The option's argument as its help shows it (`<n>`). */
  readonly argument: string;
  /** The only values the option takes, when it is a choice. */
  readonly choices?: readonly string[];
  /** The command line's text as a value; throws SettingValueError. */
  parse(text: string): V;
  /** Why the value is wrong, or undefined. */
  check(value: V): string | undefined;
  /** What the store holds. */
  toRow(value: V): string | number;
  /** The stored value; undefined when it is not one this server knows (then the default holds). */
  fromRow(raw: unknown): V | undefined;
  /** How `account show` shows it. */
  show(value: V): string | number;
  /** How `--help` and the docs show a default, when not as `account show` does. */
  readonly shownDefault?: (value: V) => string;
}

export interface SettingSpec<V = unknown> {
  /** The command-line option without its dashes, and the name errors give. */
  readonly option: string;
  /** The accounts table's column. */
  readonly column: string;
  /** Its key in `account show` (the column's name unless said). */
  readonly shown: string;
  readonly kind: Kind<V>;
  /** One line for `--help`. */
  readonly help: string;
  /** More for the documentation's table (Markdown), after the help line. */
  readonly more?: string;
  get(settings: AccountSettings): V;
  /** The settings with this one set. */
  set(settings: AccountSettings, value: V): AccountSettings;
  /** The value made canonical before it is checked and kept (a URL encoded, a list without repeats). */
  normalize?(value: V): V;
}

const wholeNumberText = (text: string): number => {
  if (!/^\d+$/.test(text)) throw new SettingValueError('must be a whole number');
  return Number(text);
};

function whole(min: number, max: number, reason: string): Kind<number> {
  return {
    argument: '<n>',
    parse: wholeNumberText,
    check: (value) => (Number.isInteger(value) && value >= min && value <= max ? undefined : reason),
    toRow: (value) => value,
    fromRow: (raw) => Number(raw),
    show: (value) => value,
  };
}

const PERIOD_UNITS = { m: 60, h: 3600, D: 86400, W: 7 * 86400 } as const;

/** A period (`7D`, `12h`, `30m`, `2W`, or `0` when `zeroIsNone`) in seconds. */
function period(min: number, max: number, range: string, zeroIsNone = false): Kind<number> {
  const none = zeroIsNone ? ', or 0 for none' : '';
  return {
    argument: '<period>',
    parse(text) {
      if (zeroIsNone && text === '0') return 0;
      const match = /^(\d{1,6})([mhDW])$/.exec(text);
      if (!match) throw new SettingValueError(`a period: a whole number and m (minutes), h (hours), D (days) or W (weeks), e.g. 7D${none}`);
      return Number(match[1]) * PERIOD_UNITS[match[2] as keyof typeof PERIOD_UNITS];
    },
    check: (value) =>
      Number.isInteger(value) && ((zeroIsNone && value === 0) || (value >= min && value <= max))
        ? undefined
        : `must be a period from ${range} (m minutes, h hours, D days, W weeks)${none}`,
    toRow: (value) => value,
    fromRow: (raw) => Number(raw),
    show: (value) => value,
    shownDefault: periodText,
  };
}

/** Seconds as the shortest period that says them (`2h`, `30D`), for the docs' defaults. */
export function periodText(seconds: number): string {
  if (seconds === 0) return '0';
  for (const unit of ['W', 'D', 'h', 'm'] as const) if (seconds % PERIOD_UNITS[unit] === 0) return `${seconds / PERIOD_UNITS[unit]}${unit}`;
  return `${seconds}s`;
}

const onOff: Kind<boolean> = {
  argument: '<on|off>',
  choices: ['on', 'off'],
  parse: (text) => text === 'on',
  check: () => undefined,
  toRow: (value) => (value ? 1 : 0),
  fromRow: (raw) => Number(raw) === 1,
  show: (value) => (value ? 'on' : 'off'),
};

function choice<C extends string>(choices: readonly C[]): Kind<C> {
  return {
    argument: `<${choices.join('|')}>`,
    choices,
    parse: (text) => text as C,
    check: (value) => (choices.includes(value) ? undefined : `must be one of ${choices.join(', ')}`),
    toRow: (value) => value,
    // An unknown stored value (a newer server's) reads as the default.
    fromRow: (raw) => (choices.includes(raw as C) ? (raw as C) : undefined),
    show: (value) => value,
  };
}

function text(argument: string, check: (value: string) => string | undefined = () => undefined): Kind<string> {
  return { argument, parse: (value) => value, check, toRow: (value) => value, fromRow: (raw) => String(raw), show: (value) => value };
}

/** `reg_date,city` (white space around a name ignored); "" for none. */
const names: Kind<readonly string[]> = {
  argument: '<names>',
  parse: (value) =>
    value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  check(value) {
    const unknown = value.find((name) => !LIST_TOKENS.has(name) && !isProfileFieldName(name));
    if (unknown !== undefined) return `"${unknown}" is neither a /list/ field nor a profile field name`;
    return value.length > MAX_RECORD_FIELDS ? `at most ${MAX_RECORD_FIELDS} fields` : undefined;
  },
  toRow: (value) => value.join(','),
  fromRow: (raw) => (raw === '' ? [] : String(raw).split(',')),
  show: (value) => value.join(','),
};

const URL_REASON = 'must be an absolute http(s) URL or a path starting with /';
const url = text('<url>', (value) => (value === '' || redirectUrl(value) !== undefined ? undefined : URL_REASON));
// Kept header-safe, as the members' own URLs are.
const canonicalUrl = (value: string) => (value === '' ? '' : (redirectUrl(value) ?? value));

/** A comma-separated list (white space around an entry ignored; "" for none), each entry checked. */
function list(argument: string, check: (value: readonly string[]) => string | undefined): Kind<readonly string[]> {
  return {
    argument,
    parse: (value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    check,
    toRow: (value) => value.join(','),
    fromRow: (raw) => (raw === '' ? [] : String(raw).split(',')),
    show: (value) => value.join(','),
  };
}

/** At most this many allowed return origins: a site and its few subdomains. */
const MAX_RETURN_ORIGINS = 20;

/** `https://www.example.com` (or http, and a port): an origin, nothing after it. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

const origins = list('<origins>', (value) => {
  const wrong = value.find((origin) => !isOrigin(origin));
  if (wrong !== undefined) return `"${wrong}" is not an origin: scheme, host and port only, e.g. https://www.example.com`;
  return value.length > MAX_RETURN_ORIGINS ? `at most ${MAX_RETURN_ORIGINS} origins` : undefined;
});

const fieldNames = list('<names>', (value) => {
  const wrong = value.find((name) => !isProfileFieldName(name));
  if (wrong !== undefined) return `"${wrong}" is not a profile field name`;
  return value.length > MAX_RECORD_FIELDS ? `at most ${MAX_RECORD_FIELDS} fields` : undefined;
});

const registrationFields: Kind<readonly RegistrationField[]> = {
  argument: '<fields>',
  parse(text) {
    const parsed = parseRegistrationFields(text);
    if (!parsed.ok) throw new SettingValueError(parsed.reason);
    return parsed.fields;
  },
  check: (value) => {
    const parsed = parseRegistrationFields(formatRegistrationFields(value));
    return parsed.ok ? undefined : parsed.reason;
  },
  toRow: formatRegistrationFields,
  fromRow: (raw) => {
    const parsed = parseRegistrationFields(String(raw));
    return parsed.ok ? parsed.fields : undefined;
  },
  show: formatRegistrationFields,
};

const fieldTexts: Kind<FieldTexts> = {
  argument: '<texts>',
  parse(text) {
    const parsed = parseFieldTexts(text);
    if (!parsed.ok) throw new SettingValueError(parsed.reason);
    return parsed.texts;
  },
  check: (value) => {
    const parsed = parseFieldTexts(formatFieldTexts(value));
    return parsed.ok ? undefined : parsed.reason;
  },
  toRow: formatFieldTexts,
  fromRow: (raw) => {
    const parsed = parseFieldTexts(String(raw));
    return parsed.ok ? parsed.texts : undefined;
  },
  show: formatFieldTexts,
};

/** A mebibyte short of 1 PiB: a quota is a guard rail, not a billing figure. */
export const MAX_STORAGE_QUOTA_MB = 1024 * 1024 * 1024 - 1;
const seconds: Kind<number> = { ...whole(1, 30 * 86400, 'must be a whole number of seconds from 1 to 2592000'), argument: '<seconds>' };

/** Declares one setting (typed by its kind; the list holds them erased). */
function setting<V>(spec: Omit<SettingSpec<V>, 'shown'> & { shown?: string }): SettingSpec {
  return { shown: spec.column, ...spec } as unknown as SettingSpec;
}

export const ACCOUNT_SETTINGS: readonly SettingSpec[] = [
  setting({
    option: 'ok-url',
    column: 'ok_url',
    kind: url,
    help: 'default URL after a successful login (absolute http(s) or a /path; "" for none)',
    more: '`ok_url` of `/login/` when the member has no `urlok`.',
    get: (s) => s.okUrl,
    set: (s, okUrl) => ({ ...s, okUrl }),
    normalize: canonicalUrl,
  }),
  setting({
    option: 'fail-url',
    column: 'fail_url',
    kind: url,
    help: 'default URL after a failed login (absolute http(s) or a /path; "" for none)',
    more: '`fail_url` of `/login/` when the member has no `urlfail`.',
    get: (s) => s.failUrl,
    set: (s, failUrl) => ({ ...s, failUrl }),
    normalize: canonicalUrl,
  }),
  setting({
    option: 'min-password-length',
    column: 'min_password_length',
    kind: whole(1, MAX_PASSWORD_LENGTH, `must be a whole number from 1 to ${MAX_PASSWORD_LENGTH}`),
    help: `shortest password accepted (1 to ${MAX_PASSWORD_LENGTH})`,
    get: (s) => s.minPasswordLength,
    set: (s, minPasswordLength) => ({ ...s, minPasswordLength }),
  }),
  setting({
    option: 'time-zone',
    column: 'time_zone',
    kind: text('<zone>', (value) => (isTimeZone(value) ? undefined : 'must be an IANA time zone name')),
    help: 'IANA time zone in which dates are rendered and calendar periods counted',
    get: (s) => s.timeZone,
    set: (s, timeZone) => ({ ...s, timeZone }),
  }),
  setting({
    option: 'lockout-threshold',
    column: 'lockout_threshold',
    kind: whole(0, 100, 'must be a whole number from 0 (off) to 100'),
    help: 'failed logins in a row that lock a member; 0 turns lockout off',
    get: (s) => s.lockout.threshold,
    set: (s, threshold) => ({ ...s, lockout: { ...s.lockout, threshold } }),
  }),
  setting({
    option: 'lockout-step',
    column: 'lockout_step_seconds',
    kind: seconds,
    help: 'lock length at the threshold, and the step added per further failure, in seconds',
    get: (s) => s.lockout.stepSeconds,
    set: (s, stepSeconds) => ({ ...s, lockout: { ...s.lockout, stepSeconds } }),
  }),
  setting({
    option: 'lockout-max',
    column: 'lockout_max_seconds',
    kind: seconds,
    help: 'longest lock, in seconds (not less than lockout-step)',
    get: (s) => s.lockout.maxSeconds,
    set: (s, maxSeconds) => ({ ...s, lockout: { ...s.lockout, maxSeconds } }),
  }),
  setting({
    option: 'lockout-reset',
    column: 'lockout_reset_seconds',
    kind: seconds,
    help: 'time without failures after which the count starts over, in seconds',
    get: (s) => s.lockout.resetSeconds,
    set: (s, resetSeconds) => ({ ...s, lockout: { ...s.lockout, resetSeconds } }),
  }),
  setting({
    option: 'rate-limit',
    column: 'rate_limit_per_minute',
    kind: { ...whole(0, 1_000_000, 'must be a whole number of requests per minute from 0 (no limit) to 1000000'), argument: '<per-minute>' },
    help: 'requests per minute the account’s keyed calls may make; 0 for no limit',
    more: 'Over it: 429 with `Retry-After`.',
    get: (s) => s.rateLimitPerMinute,
    set: (s, rateLimitPerMinute) => ({ ...s, rateLimitPerMinute }),
  }),
  setting({
    option: 'login-rate-limit',
    column: 'login_rate_limit_per_minute',
    kind: { ...whole(0, 1_000_000, 'must be a whole number of logins per minute from 0 (no limit) to 1000000'), argument: '<per-minute>' },
    help: '/login/ calls without a key per minute, per member and per client address; 0 for no limit',
    more: 'Each its own budget, never the keyed one: the account name is public, in every `verify_url`.',
    get: (s) => s.loginRateLimitPerMinute,
    set: (s, loginRateLimitPerMinute) => ({ ...s, loginRateLimitPerMinute }),
  }),
  setting({
    option: 'storage-quota',
    column: 'storage_quota_mb',
    kind: { ...whole(1, MAX_STORAGE_QUOTA_MB, `must be a whole number of MiB from 1 to ${MAX_STORAGE_QUOTA_MB}`), argument: '<MiB>' },
    help: 'most profile data the account’s members may hold together, in MiB',
    more: 'Bytes of profile values; a create or update beyond it is `storage quota exceeded`.',
    get: (s) => s.storageQuotaMb,
    set: (s, storageQuotaMb) => ({ ...s, storageQuotaMb }),
  }),
  setting({
    option: 'login-events',
    column: 'emit_login_events',
    shown: 'login_events',
    kind: onOff,
    help: 'every login attempt writes a member.login event',
    more: 'With its outcome, and the `IP` when sent. Off by default: a busy site’s logins would outnumber every other event.',
    get: (s) => s.loginEvents,
    set: (s, loginEvents) => ({ ...s, loginEvents }),
  }),
  setting({
    option: 'expiry-warning',
    column: 'expiry_warning_seconds',
    kind: period(60, 366 * 86400, '1m to 366D', true),
    help: 'member.expiring is written this long before a member’s time expiration: NNm, NNh, NND or NNW; 0 for none',
    more: 'Once per expiration, so that a site can e-mail a renewal reminder (or the server does: the expiring mail, with `--smtp-url`).',
    get: (s) => s.expiryWarningSeconds,
    set: (s, expiryWarningSeconds) => ({ ...s, expiryWarningSeconds }),
  }),
  setting({
    option: 'session-idle',
    column: 'session_idle_seconds',
    kind: period(60, 366 * 86400, '1m to 366D'),
    help: 'a /login/ session ends after this long without a /session/ check (1m to 366D)',
    get: (s) => s.sessionIdleSeconds,
    set: (s, sessionIdleSeconds) => ({ ...s, sessionIdleSeconds }),
  }),
  setting({
    option: 'session-lifetime',
    column: 'session_lifetime_seconds',
    kind: period(60, 366 * 86400, '1m to 366D'),
    help: 'a /login/ session ends this long after the login, whatever its checks (1m to 366D)',
    get: (s) => s.sessionLifetimeSeconds,
    set: (s, sessionLifetimeSeconds) => ({ ...s, sessionLifetimeSeconds }),
  }),
  setting({
    option: 'reset-lifetime',
    column: 'reset_lifetime_seconds',
    kind: period(60, 7 * 86400, '1m to 7D'),
    help: 'a /reset/ link works this long (1m to 7D)',
    get: (s) => s.resetLifetimeSeconds,
    set: (s, resetLifetimeSeconds) => ({ ...s, resetLifetimeSeconds }),
  }),
  setting({
    option: 'smtp-url',
    column: 'smtp_url',
    kind: {
      ...text('<url>', (value) =>
        value === '' || isSmtpUrl(value) ? undefined : 'must be smtp://[user:password@]host[:port] or smtps://…, or "" for no mail',
      ),
      show: withoutPassword,
    },
    help: 'the account’s mail server, smtp://user:password@host:587 or smtps://…:465; "" sends no mail',
    more: 'STARTTLS when the server offers it with `smtp://`, TLS from the start with `smtps://`; user and password URL-encoded. Kept in the store (as safe as the store); `account show` prints it with the password masked. Without it no mail is sent: `/create/` and `/reset/` only answer their links.',
    get: (s) => s.smtpUrl,
    set: (s, smtpUrl) => ({ ...s, smtpUrl }),
  }),
  setting({
    option: 'mail-from',
    column: 'mail_from',
    kind: text('<address>', (value) =>
      value === '' || isMailFrom(value) ? undefined : 'must be an e-mail address, or a name and one in angle brackets ("Site <no-reply@example.com>")',
    ),
    help: 'the sender of the account’s mails, e.g. "Site <no-reply@example.com>"; needed with smtp-url',
    get: (s) => s.mailFrom,
    set: (s, mailFrom) => ({ ...s, mailFrom }),
  }),
  setting({
    option: 'session-fields',
    column: 'session_fields',
    kind: names,
    help: '/session/ record fields readable with the session id alone, comma-separated: /list/ fields and profile fields; "" for none',
    more: 'Beyond the id, login, e-mail and status every check answers; the list replaces the current one (`reg_date,city`). No billing reference and no profile field by default. A check that also sends a key that may read reads any field.',
    get: (s) => s.sessionFields,
    set: (s, sessionFields) => ({ ...s, sessionFields }),
    normalize: (value) => [...new Set(value)],
  }),
  setting({
    option: 'get-writes',
    column: 'get_writes',
    kind: onOff,
    help: '/login/, /create/ and /update/ answer GET with the parameters in the query string, as the hosted original does; off: 405, send POST',
    more: '`/list/` keeps GET. Turn it off once `member_api_credentials_in_url_total` stops counting (see [Coming from the hosted service](coming-from-the-hosted-service.md#keys-and-passwords-in-urls)).',
    get: (s) => s.getWrites,
    set: (s, getWrites) => ({ ...s, getWrites }),
  }),
  setting({
    option: 'require-email',
    column: 'require_email',
    kind: onOff,
    help: '/create/ needs an e-mail address (_email); off, as the hosted original, a member may have none (it gets no mail)',
    more: 'Off by default: code written against the original creates members without one. Such a member gets no mail (the answer says `"mail":"not sent: no address"` where one was asked for), and only an operator resets its password. The member pages’ registration always asks for an address.',
    get: (s) => s.requireEmail,
    set: (s, requireEmail) => ({ ...s, requireEmail }),
  }),
  setting({
    option: 'messages',
    column: 'messages',
    kind: choice(MESSAGE_STYLES),
    help: 'the FAIL text of a wrong login or password: short ("wrong login or password") or original (the hosted original’s)',
    more: 'The original’s: `You have entered incorrect login or password. Please try again`.',
    get: (s) => s.messages,
    set: (s, messages) => ({ ...s, messages }),
  }),
  setting({
    option: 'password-check',
    column: 'password_check',
    kind: choice(PASSWORD_CHECKS),
    help: 'common: refuse a chosen password on the ~49,000 most common ones; off: take it',
    more: 'The length rules hold either way.',
    get: (s) => s.passwordCheck,
    set: (s, passwordCheck) => ({ ...s, passwordCheck }),
  }),
  setting({
    option: 'registration',
    column: 'registration',
    kind: choice(REGISTRATIONS),
    help: 'the member pages’ registration: off, open (an Active member, signed in at once) or approval (Suspended until an operator approves it)',
    more: 'See [Member pages](member-pages.md#registration).',
    get: (s) => s.registration,
    set: (s, registration) => ({ ...s, registration }),
  }),
  setting({
    option: 'registration-fields',
    column: 'registration_fields',
    kind: registrationFields,
    help: 'profile fields the registration page asks, `;`-separated name[*]:kind[:label] (* required; kinds text, email, number, date, choice(a|b), checkbox)',
    more: 'E.g. `first_name*:text:First name;plan:choice(gold|silver):Plan;terms*:checkbox:I accept the terms`. Members change the same fields (but the checkboxes) on their profile page.',
    get: (s) => s.registrationFields,
    set: (s, registrationFields) => ({ ...s, registrationFields }),
  }),
  setting({
    option: 'field-texts',
    column: 'field_texts',
    kind: fieldTexts,
    help: 'the registration fields’ labels and choices’ texts in the pages’ languages, `;`-separated language:field=text or language:field(value)=text',
    more: 'E.g. `fr:first_name=Prénom;fr:plan=Formule;fr:plan(gold)=Or`. Without a text in the page’s language, a field shows its label and a choice its value.',
    get: (s) => s.fieldTexts,
    set: (s, fieldTexts) => ({ ...s, fieldTexts }),
  }),
  setting({
    option: 'return-origins',
    column: 'return_origins',
    kind: origins,
    help: 'origins the member pages may send a browser back to after sign-in, and whose pages may post the sign-in form, comma-separated',
    more: 'E.g. `https://www.example.com,https://shop.example.com`. Any other `return` or `url` is refused (never an open redirect).',
    get: (s) => s.returnOrigins,
    set: (s, returnOrigins) => ({ ...s, returnOrigins }),
    normalize: (value) => [...new Set(value)],
  }),
  setting({
    option: 'page-name',
    column: 'page_name',
    kind: text('<name>', (value) => (value.length <= 100 && !/[\u0000-\u001f\u007f]/.test(value) ? undefined : 'must be at most 100 characters, on one line')),
    help: 'the heading of the member pages; "" shows the account’s name',
    get: (s) => s.pageName,
    set: (s, pageName) => ({ ...s, pageName }),
  }),
  setting({
    option: 'page-logo',
    column: 'page_logo_url',
    kind: text('<url>', (value) =>
      value === '' || (originOf(value) !== undefined && redirectUrl(value) === value) ? undefined : 'must be an absolute http(s) URL, or "" for none',
    ),
    help: 'an image shown at the top of the member pages (absolute http(s) URL; "" for none)',
    get: (s) => s.pageLogoUrl,
    set: (s, pageLogoUrl) => ({ ...s, pageLogoUrl }),
  }),
  setting({
    option: 'page-accent',
    column: 'page_accent',
    kind: text('<colour>', (value) => (/^#[0-9a-f]{6}$/.test(value) ? undefined : 'must be a colour as #rrggbb (lower case)')),
    help: 'the member pages’ accent colour, #rrggbb',
    more: 'Buttons and links; white text is written on it, so choose a dark one.',
    get: (s) => s.pageAccent,
    set: (s, pageAccent) => ({ ...s, pageAccent }),
  }),
  setting({
    option: 'page-language',
    column: 'page_language',
    kind: choice(PAGE_LANGUAGES),
    help: 'the member pages’ language: auto (the browser’s Accept-Language), en or fr',
    get: (s) => s.pageLanguage,
    set: (s, pageLanguage) => ({ ...s, pageLanguage }),
  }),
  setting({
    option: 'check-fields',
    column: 'check_fields',
    kind: fieldNames,
    help: 'profile fields /auth/ACCOUNT/check answers as X-Member-Field-NAME headers, comma-separated; "" for none',
    more: 'Beside `X-Member-Id`, `X-Member-Login` and `X-Member-Email`, which every valid check answers.',
    get: (s) => s.checkFields,
    set: (s, checkFields) => ({ ...s, checkFields }),
    normalize: (value) => [...new Set(value)],
  }),
  setting({
    option: 'cookie-domain',
    column: 'cookie_domain',
    kind: text('<domain>', (value) =>
      value === '' || isDomain(value) ? undefined : 'must be a domain name such as example.com, or "" for the pages’ host only',
    ),
    help: 'the member-session cookie’s Domain, e.g. example.com to share the sign-in with every subdomain; "" for the pages’ host only',
    more: 'Set it when the pages are on `members.example.com` and a proxy on `www.example.com` checks the cookie. Ignored when the pages are reached under another host.',
    get: (s) => s.cookieDomain,
    set: (s, cookieDomain) => ({ ...s, cookieDomain }),
    normalize: (value) => value.toLowerCase(),
  }),
  setting({
    option: 'operators-two-step',
    column: 'operators_two_step',
    kind: choice(OPERATORS_TWO_STEP),
    help: 'required: the account’s operators sign in to the console with a code from an authenticator app (TOTP) after their password',
    more: 'An operator without one is sent to set it up before it sees the account’s pages.',
    get: (s) => s.operatorsTwoStep,
    set: (s, operatorsTwoStep) => ({ ...s, operatorsTwoStep }),
  }),
];

/** A host name of at least two labels (`example.com`), letters, digits and hyphens. */
function isDomain(value: string): boolean {
  return value.length <= 253 && /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/i.test(value);
}

/** The default as the docs and `--help` show it (periods as periods). */
export function defaultText(spec: SettingSpec): string {
  const value = spec.get(DEFAULT_SETTINGS);
  return spec.kind.shownDefault?.(value) ?? String(spec.kind.show(value));
}

/**
 * The patch that sets these values. Each `set` spreads what it is given, so it builds a
 * partial object (a lockout with only its threshold) as well as a whole one.
 */
export function patchOf(values: ReadonlyArray<readonly [SettingSpec, unknown]>): SettingsPatch {
  return values.reduce((patch, [spec, value]) => spec.set(patch as AccountSettings, value), {} as SettingsPatch as AccountSettings) as SettingsPatch;
}

/** The settings as `account show` prints them, by their shown names. */
export function shownSettings(settings: AccountSettings): Record<string, string | number> {
  return Object.fromEntries(ACCOUNT_SETTINGS.map((spec) => [spec.shown, spec.kind.show(spec.get(settings))]));
}

/** The settings' columns of the accounts table, as the store writes them. */
export function settingsRow(settings: AccountSettings): Record<string, string | number> {
  return Object.fromEntries(ACCOUNT_SETTINGS.map((spec) => [spec.column, spec.kind.toRow(spec.get(settings))]));
}

/** The settings read back from a row of the accounts table. */
export function settingsOfRow(row: Record<string, unknown>): AccountSettings {
  return ACCOUNT_SETTINGS.reduce((settings, spec) => {
    const value = spec.kind.fromRow(row[spec.column]);
    return value === undefined ? settings : spec.set(settings, value);
  }, DEFAULT_SETTINGS);
}

/** The documentation's table of the settings (docs/configuration.md holds it; a test compares). */
export function settingsTable(): string {
  const cell = (value: string) => value.replace(/\|/g, '\\|');
  const rows = ACCOUNT_SETTINGS.map((spec) => {
    const argument = spec.kind.argument.replace(/^<(.*)>$/, '$1');
    const fallback = defaultText(spec);
    const meaning = `${spec.help}.${spec.more ? ` ${spec.more}` : ''}`;
    return `| \`--${spec.option} ${cell(argument)}\` | \`${cell(fallback === '' ? '""' : fallback)}\` | ${cell(meaning)} |`;
  });
  return ['| Option | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

function isSmtpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== '' && url.pathname.replace(/^\/$/, '') === '';
  } catch {
    return false;
  }
}

/** The mail server's password is never printed back. */
function withoutPassword(smtpUrl: string): string {
  if (smtpUrl === '') return '';
  const url = new URL(smtpUrl);
  if (url.password) url.password = '***';
  return url.toString();
}

/** `a@b.c` or `Name <a@b.c>`: no line breaks (a header), one address. */
function isMailFrom(value: string): boolean {
  if (/[\r\n]/.test(value) || value.length > 320) return false;
  const address = /<([^<>]+)>$/.exec(value)?.[1] ?? value;
  return isEmail(address);
}
