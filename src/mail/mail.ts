/**
 * The mails the server sends for an account that has a mail server (`--smtp-url`): welcome
 * (with the member's `verify_url`), reset (with its `reset_url`) and expiring (a reminder
 * before a time expiration, from `member.expiring`).
 *
 * A mail is a row queued in the transaction of the change that asks for it (an outbox), sent
 * after the commit by whichever server leases it, retried with backoff, never lost on a
 * restart. It is rendered when it is sent, from the account's template (or the built-in one)
 * and the member as it is then; the row keeps only what the change alone knew (a reset link),
 * and forgets it once the mail is sent.
 */

export type MailKind = 'welcome' | 'reset' | 'expiring';
export const MAIL_KINDS: readonly MailKind[] = ['welcome', 'reset', 'expiring'];

/** What a template may use, by kind. */
export const TEMPLATE_VARIABLES: Record<MailKind, readonly string[]> = {
  welcome: ['account', 'login', 'email', 'verify_url'],
  reset: ['account', 'login', 'email', 'reset_url', 'reset_expires'],
  expiring: ['account', 'login', 'email', 'expires', 'action'],
};

/**
 * The built-in texts. A template is a `Subject:` line, an empty line, and the body (plain
 * text); `{{name}}` is replaced by a variable.
 */
export const DEFAULT_TEMPLATES: Record<MailKind, string> = {
  welcome: `Subject: Welcome, {{login}}

Hello {{login}},

your membership is ready. Please confirm your e-mail address by opening this link:

{{verify_url}}

If you did not sign up, ignore this mail.
`,
  reset: `Subject: Choose a new password

Hello {{login}},

someone (we hope you) asked to choose a new password for your membership. Open this link to
choose it; it works once, until {{reset_expires}}:

{{reset_url}}

If you did not ask for it, ignore this mail: your password stays as it is.
`,
  expiring: `Subject: Your membership ends soon

Hello {{login}},

your membership ends on {{expires}}. Renew it before then to keep your access.
`,
};

export interface MailTemplate {
  readonly subject: string;
  readonly body: string;
}

/** Most bytes of a template: a mail, not a newsletter. */
export const MAX_TEMPLATE_BYTES = 64 * 1024;

/** A template's text read, or why it cannot be used. */
export function parseTemplate(kind: MailKind, text: string): { ok: true; template: MailTemplate } | { ok: false; reason: string } {
  if (Buffer.byteLength(text) > MAX_TEMPLATE_BYTES) return { ok: false, reason: `at most ${MAX_TEMPLATE_BYTES / 1024} KiB` };
  const normalised = text.replace(/\r\n/g, '\n');
  const match = /^Subject:[ \t]*([^\n]*)\n\n([\s\S]*)$/.exec(normalised);
  if (!match || match[1]!.trim() === '') return { ok: false, reason: 'must start with a "Subject: …" line, then an empty line, then the body' };
  const known = new Set(TEMPLATE_VARIABLES[kind]);
  for (const [, name] of normalised.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
    if (!known.has(name!)) return { ok: false, reason: `{{${name}}} is not a variable of the ${kind} mail (it has ${[...known].map((v) => `{{${v}}}`).join(', ')})` };
  }
  return { ok: true, template: { subject: match[1]!.trim(), body: match[2]! } };
}

/** The mail a template makes with these values (a missing value renders as ""). */
export function renderMail(template: MailTemplate, values: Readonly<Record<string, string>>): MailTemplate {
  const fill = (text: string) => text.replace(/\{\{\s*([^}]*?)\s*\}\}/g, (_, name: string) => values[name] ?? '');
  // A subject is one header line, whatever a value holds.
  return { subject: fill(template.subject).replace(/[\r\n]+/g, ' '), body: fill(template.body) };
}

/** A queued mail, as the sender takes it: the row, its member and its account as they are now. */
export interface QueuedMail {
  readonly id: number;
  readonly kind: MailKind;
  readonly attempts: number;
  /** What the change alone knew (`reset_url`, `reset_expires_at`). */
  readonly vars: Readonly<Record<string, string>>;
  readonly member: { readonly id: number; readonly login: string; readonly email: string; readonly expiresAt: number | null; readonly expiryAction: string | null };
  readonly account: { readonly id: number; readonly name: string; readonly smtpUrl: string; readonly mailFrom: string; readonly timeZone: string };
  /** The account's own text for this kind, when it has one. */
  readonly template: string | undefined;
}

export interface MailStore {
  setTemplate(accountId: number, kind: MailKind, text: string | undefined): Promise<void>;
  template(accountId: number, kind: MailKind): Promise<string | undefined>;
  /** Mails due at `now` (not sent, not given up, no live lease), oldest first. */
  dueMails(now: number, limit: number): Promise<QueuedMail[]>;
  /** Takes the mail until `until` unless another server holds it; true when taken. */
  lease(id: number, now: number, until: number): Promise<boolean>;
  /** Sent: its vars forgotten. */
  markSent(id: number, at: number): Promise<void>;
  /** A failed attempt: tried again at `nextAt`, or given up (`nextAt` null). */
  markFailed(id: number, at: number, error: string, nextAt: number | null): Promise<void>;
  /** Counts by state, for an account (or all): what `mail status` and the tests read. */
  counts(accountId?: number): Promise<{ pending: number; sent: number; failed: number }>;
}

/** A change's request for a mail, carried to the store with the change. */
export interface MailRequest {
  readonly kind: MailKind;
  readonly vars?: Readonly<Record<string, string>>;
}
