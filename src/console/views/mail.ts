/** The account's mails: each kind's text in use, its variables, the test and the built-in text, the queue's counts. */
import type { Account } from '../../accounts/account.js';
import { MAIL_KINDS, TEMPLATE_VARIABLES, type MailKind } from '../../mail/mail.js';
import { html } from '../../http/html.js';
import { mailPath, membersPath, settingsPath } from '../paths.js';
import { layout, type Chrome } from './layout.js';

const WHAT: Record<MailKind, string> = {
  welcome: 'To a new member, with the link that verifies its e-mail address (when it is made with the welcome mail, or approved).',
  reset: 'The password reset link (/reset/, the member pages, the console’s “Send a password reset mail”).',
  expiring: 'Before a member’s time expiration falls due (the account’s expiry warning).',
  registered: 'To the account’s operators, when a registration on the member pages waits for approval.',
  refused: 'To a registration that was refused, when the operator asks for it.',
};

export const isKind = (kind: string): kind is MailKind => (MAIL_KINDS as readonly string[]).includes(kind);

/** A kind's box as the page shows it: the text, whether it is the account's own, and what a form said of it. */
export interface KindView {
  readonly kind: MailKind;
  readonly text: string;
  readonly own: boolean;
  readonly error?: string;
}

export function mailPage(chrome: Chrome, account: Account, kinds: readonly KindView[], counts: { pending: number; sent: number; failed: number }): string {
  const server = account.settings.smtpUrl !== '';
  return layout(
    `Mail of ${account.name}`,
    chrome,
    html`<p><a href="${membersPath(account.name)}">← Members of ${account.name}</a></p><h1>Mail of ${account.name}</h1>
<div class="card"><p>${
      server
        ? html`Mail goes out through the account’s mail server, from <code>${account.settings.mailFrom || '(no sender set)'}</code>.`
        : html`The account has no mail server, so it sends no mail: set <code>smtp-url</code> and <code>mail-from</code> in <a href="${settingsPath(account.name)}">the settings</a>.`
    } Queued ${counts.pending.toLocaleString('en')}, sent ${counts.sent.toLocaleString('en')}, given up ${counts.failed.toLocaleString('en')}.</p>
<p class="muted">A mail is a <code>Subject:</code> line, an empty line, then the body (plain text); <code>{{name}}</code> puts in a variable. <strong>Send me a test</strong> sends the text in the box (kept or not) to you, ${chrome.operator?.email ?? ''}, with sample values.</p></div>
${kinds.map(
  (
    view,
  ) => html`<div class="card" id="${view.kind}"><h2>${view.kind} <span class="muted">${view.own ? 'the account’s own text' : 'the built-in text'}</span></h2>
<p class="muted">${WHAT[view.kind]} Variables: ${TEMPLATE_VARIABLES[view.kind].map((name) => html`<code>{{${name}}}</code> `)}</p>
<form method="post" action="${mailPath(account.name)}/${view.kind}" class="template">
<textarea name="text" rows="10" aria-label="The ${view.kind} mail"${view.error ? html` aria-invalid="true"` : ''}>${view.text}</textarea>
<div class="actions"><button type="submit" name="do" value="save">Save</button><button type="submit" name="do" value="test" class="secondary"${server ? '' : html` disabled`}>Send me a test</button>${
    view.own ? html`<button type="submit" name="do" value="default" class="secondary">Use the built-in text</button>` : ''
  }</div></form></div>`,
)}`,
  );
}
