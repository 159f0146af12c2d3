/**
 * The mails the server sends for an account that has a mail server (`--smtp-url`): welcome
 * (with the member's `verify_url`), reset (with its `reset_url`) and expiring (a reminder
 * before a time expiration, from `member.expiring`).
 *
 * A mail is a row queued in the transaction of the change that asks for it (an outbox), sent
 * after the commit by whichever server leases it, retried with backoff, never lost on a
 * restart. It is rendered when it is sent, from the account's template (or the built-in one)
 * and the member as it is then; the row keeps only what the change alone knew (a reset link,
 * the language of the page that asked for it), and forgets it once the mail is sent.
 */

import { MAILS_EN } from '../messages/mails.js';

export type MailKind = 'welcome' | 'reset' | 'expiring' | 'registered' | 'refused' | 'payment-failed';
export const MAIL_KINDS: readonly MailKind[] = ['welcome', 'reset', 'expiring', 'registered', 'refused', 'payment-failed'];

/** What a template may use, by kind. */
export const TEMPLATE_VARIABLES: Record<MailKind, readonly string[]> = {
  welcome: ['account', 'login', 'email', 'verify_url'],
  reset: ['account', 'login', 'email', 'reset_url', 'reset_expires'],
  expiring: ['account', 'login', 'email', 'expires', 'action'],
  registered: ['account', 'login', 'email', 'approve_url'],
  refused: ['account', 'login', 'email'],
  'payment-failed': ['account', 'login', 'email', 'paid_until', 'fix_url'],
};

/**
 * The built-in texts in English (the catalog's mails part holds every language's,
 * messages/mails.ts). A template is a `Subject:` line, an empty line, and the body (plain
 * text); `{{name}}` is replaced by a variable.
 */
export const DEFAULT_TEMPLATES: Record<MailKind, string> = Object.fromEntries(MAIL_KINDS.map((kind) => [kind, MAILS_EN[kind]])) as Record<MailKind, string>;

/**
 * The reminder to an address several members share (the API allows it): one mail, each login
 * with its own link, in the built-in words (an account's reset template names one login).
 */
export const SHARED_RESET_VARIABLES = ['account', 'email', 'reset_links', 'reset_expires'] as const;

/**
 * Mails to operators, about the console (not about a member): sent through the mail settings of
 * the account they concern, in the built-in words only (an account's own templates are for its
 * members). An invitation carries a new operator's set-up link; an access mail tells an operator
 * who has a password already that an account was added to theirs.
 */
export type OperatorMailKind = 'operator-invite' | 'operator-access' | 'operator-link';

export const OPERATOR_MAIL_VARIABLES: Record<OperatorMailKind, readonly string[]> = {
  'operator-invite': ['account', 'email', 'role', 'invited_by', 'setup_url', 'setup_expires'],
  'operator-access': ['account', 'email', 'role', 'invited_by', 'sign_in_url'],
  'operator-link': ['account', 'email', 'setup_url', 'setup_expires'],
};

export const OPERATOR_MAIL_TEXTS: Record<OperatorMailKind, string> = {
  'operator-link': `Subject: A new password for the console of {{account}}

Hello,

a new password for {{email}} in the member console was asked for (on its sign-in page, or by
an owner of {{account}}). Choose it with this link; it works once, until {{setup_expires}}:

{{setup_url}}

If you did not ask for it, ignore this mail: your password stays as it is.
`,
  'operator-invite': `Subject: You are invited to the console of {{account}}

Hello,

{{invited_by}} invited you to manage the members of {{account}} in its console, as {{role}}.
Choose your password with this link; it works once, until {{setup_expires}}:

{{setup_url}}

If you did not expect this mail, ignore it: nothing happens without the link.
`,
  'operator-access': `Subject: {{account}} is now in your console

Hello,

{{invited_by}} gave you the role {{role}} on {{account}} in the member console. Sign in as
usual, with your e-mail address and your own password:

{{sign_in_url}}
`,
};

/** A piece of a template: text as it is, or a variable to put in its place. */
export type TemplatePart = string | { readonly variable: string };

/** A template read once (when it is set, or at its first send): what a send fills in. */
export interface MailTemplate {
  readonly subject: readonly TemplatePart[];
  readonly body: readonly TemplatePart[];
}

/** A mail as it is sent. */
export interface RenderedMail {
  readonly subject: string;
  readonly body: string;
}

/** Most bytes of a template: a mail, not a newsletter. */
export const MAX_TEMPLATE_BYTES = 64 * 1024;

const SUBJECT = 'Subject:';

/**
 * A template's text read, or why it cannot be used. One pass over the text, whatever it
 * holds: a backtracking pattern here took seconds on `{{` and a few thousand spaces, at every
 * send.
 */
export function parseTemplate(kind: MailKind, text: string): { ok: true; template: MailTemplate } | { ok: false; reason: string } {
  return parseTemplateText(text, TEMPLATE_VARIABLES[kind], kind);
}

/** A template's text read against the variables it may use (`kind` names them in a refusal). */
export function parseTemplateText(
  text: string,
  variables: readonly string[],
  kind = 'this',
): { ok: true; template: MailTemplate } | { ok: false; reason: string } {
  if (Buffer.byteLength(text) > MAX_TEMPLATE_BYTES) return { ok: false, reason: `at most ${MAX_TEMPLATE_BYTES / 1024} KiB` };
  const normalised = text.replaceAll('\r\n', '\n');
  const lineEnd = normalised.indexOf('\n');
  const subject = lineEnd < 0 ? '' : normalised.slice(SUBJECT.length, lineEnd).trim();
  if (!normalised.startsWith(SUBJECT) || subject === '' || normalised[lineEnd + 1] !== '\n') {
    return { ok: false, reason: 'must start with a "Subject: …" line, then an empty line, then the body' };
  }
  const template = { subject: templateParts(subject), body: templateParts(normalised.slice(lineEnd + 2)) };
  const known = new Set(variables);
  for (const part of [...template.subject, ...template.body]) {
    if (typeof part === 'string' || known.has(part.variable)) continue;
    return { ok: false, reason: `{{${part.variable}}} is not a variable of the ${kind} mail (it has ${[...known].map((v) => `{{${v}}}`).join(', ')})` };
  }
  return { ok: true, template };
}

/**
 * Text cut at its `{{name}}` variables (white space around the name ignored; a name holds no
 * `}`). A `{{` that no `}}` closes is text. Each character is looked at a bounded number of
 * times: every search starts after the last one's end.
 */
export function templateParts(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let textFrom = 0;
  for (let open = text.indexOf('{{'); open >= 0;) {
    const close = text.indexOf('}', open + 2);
    if (close < 0) break;
    if (text[close + 1] !== '}') {
      // Every `{{` before this `}` meets it first: none of them opens a variable.
      open = text.indexOf('{{', close + 1);
      continue;
    }
    if (open > textFrom) parts.push(text.slice(textFrom, open));
    parts.push({ variable: text.slice(open + 2, close).trim() });
    textFrom = close + 2;
    open = text.indexOf('{{', textFrom);
  }
  if (textFrom < text.length) parts.push(text.slice(textFrom));
  return parts;
}

/** The mail a template makes with these values (a missing value renders as ""). */
export function renderMail(template: MailTemplate, values: Readonly<Record<string, string>>): RenderedMail {
  const fill = (parts: readonly TemplatePart[]) => parts.map((part) => (typeof part === 'string' ? part : (values[part.variable] ?? ''))).join('');
  // A subject is one header line, whatever a value holds.
  return { subject: fill(template.subject).replace(/[\r\n]+/g, ' '), body: fill(template.body) };
}

/** A queued mail, as the sender takes it: the row, its member (or operator) and its account as they are now. */
export interface QueuedMail {
  readonly id: number;
  readonly kind: MailKind | OperatorMailKind;
  readonly attempts: number;
  /** What the change alone knew (`reset_url`, `reset_expires_at`, the asking page's `language`). */
  readonly vars: Readonly<Record<string, string>>;
  /** The member it is to or about; undefined for a mail to an operator. */
  readonly member:
    | {
        readonly id: number;
        readonly login: string;
        readonly email: string;
        readonly expiresAt: number | null;
        readonly expiryAction: string | null;
      }
    | undefined;
  /** The operator it is to, for an operator's mail. */
  readonly operator: { readonly id: number; readonly email: string } | undefined;
  readonly account: {
    readonly id: number;
    readonly name: string;
    readonly smtpUrl: string;
    readonly mailFrom: string;
    readonly timeZone: string;
    /** The member pages' language setting: a member's built-in mail is in it when no page asked. */
    readonly pageLanguage: string;
  };
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
