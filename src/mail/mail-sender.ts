/**
 * Sends the queued mails: run by every server (`server.ts`, every second), each mail taken by
 * one server at a time (a lease on its row), rendered from the account's template and the
 * member as they are now, and sent with nodemailer to the account's mail server. A failure is
 * tried again with exponential backoff and jitter (from a minute, doubling, at most six hours
 * apart) for about two days, then given up and kept with its last error.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../common/clock.js';
import { createDateFormatter } from '../members/date-format.js';
import { isEmail } from '../members/fields.js';
import { LANGUAGES, languageNamed, mailText, type Language } from '../messages/catalog.js';
import type { MemberMailText } from '../messages/mails.js';
import {
  MAIL_KINDS,
  OPERATOR_MAIL_TEXTS,
  OPERATOR_MAIL_VARIABLES,
  parseTemplate,
  parseTemplateText,
  renderMail,
  type MailKind,
  type MailStore,
  type MailTemplate,
  type OperatorMailKind,
  type QueuedMail,
  type RenderedMail,
  SHARED_RESET_VARIABLES,
  TEMPLATE_VARIABLES,
} from './mail.js';

/** The built-in texts of the mails to members, by language, each read once. */
const BUILT_IN = Object.fromEntries(
  (Object.keys(LANGUAGES) as Language[]).map((language) => {
    const read = (text: MemberMailText, variables: readonly string[]) => {
      const parsed = parseTemplateText(mailText(language, text), variables, text);
      if (!parsed.ok) throw new Error(`the built-in ${text} mail (${language}): ${parsed.reason}`);
      return parsed.template;
    };
    const kinds = Object.fromEntries(MAIL_KINDS.map((kind) => [kind, read(kind, TEMPLATE_VARIABLES[kind])])) as Record<MailKind, MailTemplate>;
    return [language, { ...kinds, 'shared-reset': read('shared-reset', SHARED_RESET_VARIABLES), 'welcome-link': read('welcome-link', TEMPLATE_VARIABLES.reset) }];
  }),
) as Record<Language, Record<MemberMailText, MailTemplate>>;

/**
 * The language of a member's built-in mail: the page's that asked for it (a reminder, a
 * registration), else the account's pages' when it is set to one, else English.
 */
function languageOf(mail: QueuedMail): Language {
  return languageNamed(mail.vars.language) ?? languageNamed(mail.account.pageLanguage) ?? 'en';
}

/** The operators' mails, read once (they have no account's own text). */
const OPERATOR_TEMPLATES = Object.fromEntries(
  (Object.keys(OPERATOR_MAIL_TEXTS) as OperatorMailKind[]).map((kind) => {
    const parsed = parseTemplateText(OPERATOR_MAIL_TEXTS[kind], OPERATOR_MAIL_VARIABLES[kind]);
    if (!parsed.ok) throw new Error(`the built-in ${kind} mail: ${parsed.reason}`);
    return [kind, parsed.template];
  }),
) as Record<OperatorMailKind, MailTemplate>;

/** How a welcome mail gets the member's verification link. */
export type VerifyUrl = (accountName: string, memberId: number, login: string, email: string) => string;

/** Mails looked at per round, and sent at once. */
const ROUND_SIZE = 20;
const CONCURRENCY = 4;
/** A mail is held this long by the server sending it: longer than an attempt may last. */
export const MAIL_LEASE_MS = 40_000;
/** The longest an attempt may last, whatever the mail server does. */
const ATTEMPT_MS = 30_000;
/** nodemailer's waits: to connect, for the greeting, for any answer. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 6 * 3600_000;
/** 1 + 2 + 4 + … minutes, then 6 h apart: about two days. */
export const MAX_MAIL_ATTEMPTS = 16;

export interface MailRound {
  readonly sent: number;
  readonly failed: number;
}

/** Accounts' own templates kept read, by kind and text: an odd many only costs reading them again. */
const MAX_PARSED_TEMPLATES = 256;

export class MailSender {
  private readonly transports = new Map<string, Transporter>();
  /** An account's own template, read at its first send (undefined: it cannot be used, the built-in one is). */
  private readonly parsed = new Map<string, MailTemplate | undefined>();
  private running: Promise<MailRound> | undefined;

  constructor(
    private readonly store: MailStore,
    private readonly verifyUrl: VerifyUrl,
    private readonly clock: Clock,
    /** The base of links to the member pages (a failed payment's mail links the profile when the provider gave no page). */
    private readonly linkBase: () => string = () => '',
  ) {}

  /** One round; a round asked for while one runs shares it. */
  run(): Promise<MailRound> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Waits for a round in progress (a stopping server). */
  async idle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  close(): void {
    for (const transport of this.transports.values()) transport.close();
    this.transports.clear();
  }

  private async round(): Promise<MailRound> {
    const now = this.clock();
    const due = await this.store.dueMails(now, ROUND_SIZE);
    let sent = 0;
    let failed = 0;
    const queue = [...due];
    const worker = async () => {
      for (let mail = queue.shift(); mail; mail = queue.shift()) {
        if (!(await this.store.lease(mail.id, this.clock(), this.clock() + MAIL_LEASE_MS))) continue;
        const outcome = await this.send(mail);
        if (outcome === 'sent') sent++;
        else if (outcome === 'given-up') failed++;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { sent, failed };
  }

  private async send(mail: QueuedMail): Promise<'sent' | 'retry' | 'given-up'> {
    try {
      if (mail.account.smtpUrl === '') throw new Error('the account has no mail server (smtp-url) any more');
      const own = mail.operator?.email ?? mail.member?.email ?? '';
      // A member without an address gets nothing, however often it is tried (a mail asked for
      // all members, some of them without one): given up at once.
      if (!mail.vars.to && own === '') {
        await this.store.markFailed(mail.id, this.clock(), 'the member has no e-mail address', null);
        return 'given-up';
      }
      // An address stored before the rule of one plain address (`x,attacker@evil.test`) is
      // never sent to: tried again later, it goes once the member's address is changed.
      if (!mail.vars.to && !isEmail(own)) throw new Error('the member’s e-mail address is not one plain address: change it');
      const message = this.render(mail);
      // An address object is taken as it is; a string would be parsed, as a list of addresses.
      // A mail about the member to someone else (the operators) names its recipients itself.
      const to = (mail.vars.to ? mail.vars.to.split(',').filter(isEmail) : [own]).map((address) => ({ name: '', address }));
      if (to.length === 0) throw new Error('the mail has no recipient with a plain e-mail address');
      await this.deliver(mail.account, to, message);
      await this.store.markSent(mail.id, this.clock());
      return 'sent';
    } catch (error) {
      const attempts = mail.attempts + 1;
      const reason = error instanceof Error ? error.message : String(error);
      const nextAt = attempts >= MAX_MAIL_ATTEMPTS ? null : this.clock() + retryDelay(attempts);
      await this.store.markFailed(mail.id, this.clock(), reason.slice(0, 500), nextAt);
      return nextAt === null ? 'given-up' : 'retry';
    }
  }

  /**
   * One mail handed to the account's mail server, which must take it within ATTEMPT_MS:
   * the queue's sends, and the console's test mail (which reports the server's refusal).
   */
  async deliver(account: { smtpUrl: string; mailFrom: string }, to: ReadonlyArray<{ name: string; address: string }>, message: RenderedMail): Promise<void> {
    const sending = this.transport(account.smtpUrl).sendMail({ from: account.mailFrom, to: [...to], subject: message.subject, text: message.body });
    sending.catch(() => {}); // its failure is the race's (or, after the deadline, no one's)
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(Object.assign(new Error(`no answer from the mail server in ${ATTEMPT_MS / 1000} s`), { code: 'ETIMEDOUT' })),
          ATTEMPT_MS,
        )),
    );
    try {
      await Promise.race([sending, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private render(mail: QueuedMail) {
    // A time in the account's zone, named: a member elsewhere can tell when it is.
    const formatter = createDateFormatter(mail.account.timeZone);
    const dates = { dateTime: (instant: number) => `${formatter.dateTime(instant)} (${mail.account.timeZone})` };
    if (mail.operator) {
      const values: Record<string, string> = { ...mail.vars, account: mail.account.name, email: mail.operator.email };
      if (mail.vars.setup_expires_at) values.setup_expires = dates.dateTime(Number(mail.vars.setup_expires_at));
      return renderMail(OPERATOR_TEMPLATES[mail.kind as OperatorMailKind], values);
    }
    const member = mail.member!;
    const kind = mail.kind as MailKind;
    // The built-in words for a shared address's reminder and a new member's first link (an
    // account's reset template speaks of a forgotten password).
    const special = mail.vars.reset_links ? 'shared-reset' : mail.vars.welcome ? 'welcome-link' : undefined;
    const own = mail.template === undefined || special ? undefined : this.ownTemplate(kind, mail.template);
    const template = own ?? BUILT_IN[languageOf(mail)][special ?? kind];
    const values: Record<string, string> = {
      ...mail.vars,
      account: mail.account.name,
      login: member.login,
      email: member.email,
    };
    if (mail.vars.reset_expires_at) values.reset_expires = dates.dateTime(Number(mail.vars.reset_expires_at));
    if (kind === 'welcome') values.verify_url = this.verifyUrl(mail.account.name, member.id, member.login, member.email);
    if (kind === 'payment-failed') {
      values.paid_until = mail.vars.paid_until_at ? dates.dateTime(Number(mail.vars.paid_until_at)) : '';
      values.fix_url = mail.vars.fix_url || `${this.linkBase()}/auth/${encodeURIComponent(mail.account.name)}/profile`;
    }
    if (kind === 'expiring' && member.expiresAt !== null) {
      values.expires = dates.dateTime(member.expiresAt);
      values.action = member.expiryAction === 'D' ? 'deleted' : 'suspended';
    }
    return renderMail(template, values);
  }

  /** Read once (the command line checked it when it was set; one stored before is read at its first send). */
  private ownTemplate(kind: MailKind, text: string): MailTemplate | undefined {
    const key = `${kind}\u0000${text}`;
    if (this.parsed.has(key)) return this.parsed.get(key);
    const read = parseTemplate(kind, text);
    if (this.parsed.size >= MAX_PARSED_TEMPLATES) this.parsed.clear();
    this.parsed.set(key, read.ok ? read.template : undefined);
    return read.ok ? read.template : undefined;
  }

  private transport(url: string): Transporter {
    let transport = this.transports.get(url);
    if (!transport) this.transports.set(url, (transport = nodemailer.createTransport({ ...smtpOptions(url), ...TIMEOUTS })));
    return transport;
  }
}

/** nodemailer's options from an account's `smtp://user:password@host:port` (smtps: TLS from the start; smtp: STARTTLS when offered). */
export function smtpOptions(smtpUrl: string): { host: string; port: number; secure: boolean; auth?: { user: string; pass: string } } {
  const url = new URL(smtpUrl);
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
  };
}

/** From a minute, doubling, at most six hours; with up to a fifth more as jitter. */
export function retryDelay(attempts: number): number {
  const base = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
  return Math.round(base * (1 + Math.random() * 0.2));
}
