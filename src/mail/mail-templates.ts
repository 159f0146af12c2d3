/**
 * An account's own texts for its mails, as `account mail-template` and the console's mail page
 * handle them: the text in use (the account's own, or the built-in one), a new text checked
 * before it is kept, the way back to the built-in text, and a test mail of a text, filled in
 * with sample values and sent at once to the one asking, so that an owner sees it arrive and
 * learns what the mail server says.
 */
import type { Account } from '../accounts/account.js';
import { createDateFormatter } from '../members/date-format.js';
import { DEFAULT_TEMPLATES, parseTemplate, renderMail, TEMPLATE_VARIABLES, type MailKind, type MailStore, type RenderedMail } from './mail.js';

export type TemplateChange = { kind: 'ok' } | { kind: 'invalid'; reason: string };
export type TestMail =
  { kind: 'sent'; subject: string } | { kind: 'no-mail-server' } | { kind: 'invalid'; reason: string } | { kind: 'refused'; reason: string };

/** Hands one mail to the account's mail server (MailSender.deliver). */
export type Deliver = (account: Account['settings'], to: ReadonlyArray<{ name: string; address: string }>, message: RenderedMail) => Promise<void>;

export class MailTemplates {
  constructor(
    private readonly store: Pick<MailStore, 'template' | 'setTemplate' | 'counts'>,
    private readonly deliver: Deliver,
    private readonly clock: () => number,
    /** The public address, for the sample links. */
    private readonly publicUrl: () => string,
  ) {}

  /** The text in use, and whether it is the account's own. */
  async text(account: Account, kind: MailKind): Promise<{ text: string; own: boolean }> {
    const own = await this.store.template(account.id, kind);
    return own === undefined ? { text: DEFAULT_TEMPLATES[kind], own: false } : { text: own, own: true };
  }

  /** The account's mails: queued, sent, given up. */
  counts(account: Account): Promise<{ pending: number; sent: number; failed: number }> {
    return this.store.counts(account.id);
  }

  /** Keeps a text once it reads as a template; undefined goes back to the built-in text. */
  async set(account: Account, kind: MailKind, text: string | undefined): Promise<TemplateChange> {
    if (text !== undefined) {
      const parsed = parseTemplate(kind, text);
      if (!parsed.ok) return { kind: 'invalid', reason: parsed.reason };
    }
    await this.store.setTemplate(account.id, kind, text);
    return { kind: 'ok' };
  }

  /** The text in use (or `text`, not kept), filled in with sample values, sent now to `to`; its subject starts with "[test]". */
  async sendTest(account: Account, kind: MailKind, to: string, text?: string): Promise<TestMail> {
    if (account.settings.smtpUrl === '') return { kind: 'no-mail-server' };
    const parsed = parseTemplate(kind, text ?? (await this.text(account, kind)).text);
    if (!parsed.ok) return { kind: 'invalid', reason: parsed.reason };
    const message = renderMail(parsed.template, this.sampleValues(account, kind, to));
    const subject = `[test] ${message.subject}`;
    try {
      await this.deliver(account.settings, [{ name: '', address: to }], { subject, body: message.body });
    } catch (error) {
      return { kind: 'refused', reason: refusal(error, account.settings.smtpUrl) };
    }
    return { kind: 'sent', subject };
  }

  /** What a test mail fills in: a made-up member, links that lead nowhere, dates a week ahead. */
  private sampleValues(account: Account, kind: MailKind, to: string): Record<string, string> {
    const base = this.publicUrl() || 'https://members.example.com';
    const later = createDateFormatter(account.settings.timeZone).dateTime(this.clock() + 7 * 86_400_000);
    const samples: Record<string, string> = {
      account: account.name,
      login: 'jane.sample',
      email: to,
      verify_url: `${base}/verify/sample-link-of-a-test-mail`,
      reset_url: `${base}/reset/sample-link-of-a-test-mail`,
      reset_expires: later,
      expires: later,
      action: 'suspended',
      approve_url: `${base}/admin/accounts/${encodeURIComponent(account.name)}/registrations`,
      paid_until: later,
      fix_url: `${base}/auth/${encodeURIComponent(account.name)}/profile`,
    };
    return Object.fromEntries(TEMPLATE_VARIABLES[kind].map((name) => [name, samples[name] ?? '']));
  }
}

/**
 * Why the mail server did not take a test mail, in a few fixed words: its SMTP code, or that
 * its user name or password was refused, when a mail server answered; and one phrasing for
 * every failure to reach one (no such host, a closed port, no answer in time, TLS that failed,
 * something that is not a mail server). Never the error's own text, nor anything that tells a
 * closed port from an open one: that would make the setting a port scanner of whatever the
 * owner points it at.
 */
function refusal(error: unknown, smtpUrl: string): string {
  const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
  let server = 'the mail server';
  try {
    const url = new URL(smtpUrl);
    server = `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`;
  } catch {
    // An address that does not read: named as "the mail server".
  }
  if (typeof responseCode === 'number') return `${server} answered ${responseCode}`;
  if (code === 'EAUTH') return `${server} refused the user name or password`;
  return `no mail server could be reached at ${server}`;
}
