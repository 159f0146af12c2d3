/** The account's mails: each kind's text in use, its variables, the test and the built-in text, the queue's counts. */
import type { Account } from '../../accounts/account.js';
import { MAIL_KINDS, TEMPLATE_VARIABLES, type MailKind } from '../../mail/mail.js';
import { html } from '../../http/html.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { mailPath, settingsPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, type Chrome } from './layout.js';

const WHAT: Record<MailKind, ConsoleKey> = {
  welcome: 'mailWhatWelcome',
  reset: 'mailWhatReset',
  expiring: 'mailWhatExpiring',
  registered: 'mailWhatRegistered',
  refused: 'mailWhatRefused',
  'payment-failed': 'mailWhatPaymentFailed',
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
    accountTitle('navMail', account.name),
    chrome,
    html`${backToMembers(account.name)}<h1>${accountTitle('navMail', account.name)}</h1>
<div class="card"><p>${
      server
        ? html`${t('mailGoesOutFrom')} <code>${account.settings.mailFrom || t('mailNoSender')}</code>.`
        : html`${t('mailNoServerSet')} <code>smtp-url</code> ${t('and')} <code>mail-from</code> ${t('mailNoServerIn')} <a href="${settingsPath(account.name)}">${t('mailTheSettings')}</a>.`
    } ${t('mailQueueCounts', { pending: counts.pending.toLocaleString('en'), sent: counts.sent.toLocaleString('en'), failed: counts.failed.toLocaleString('en') })}</p>
<p class="muted">${t('mailFormatA')} <code>Subject:</code> ${t('mailFormatLines')} <code>{{name}}</code> ${t('mailFormatVariable')} <strong>${t('mailSendTest')}</strong> ${t('mailTestSends', { email: chrome.operator?.email ?? '' })}</p></div>
${kinds.map(
  (view) => html`<div class="card" id="${view.kind}"><h2>${view.kind} <span class="muted">${t(view.own ? 'mailOwnText' : 'mailBuiltInText')}</span></h2>
<p class="muted">${t(WHAT[view.kind])} ${t('mailVariables')} ${TEMPLATE_VARIABLES[view.kind].map((name) => html`<code>{{${name}}}</code> `)}</p>
<form method="post" action="${mailPath(account.name)}/${view.kind}" class="template">
<textarea name="text" rows="10" aria-label="${t('mailTextLabel', { kind: view.kind })}"${view.error ? html` aria-invalid="true"` : ''}>${view.text}</textarea>
<div class="actions"><button type="submit" name="do" value="save">${t('save')}</button><button type="submit" name="do" value="test" class="secondary"${server ? '' : html` disabled`}>${t('mailSendTest')}</button>${
    view.own ? html`<button type="submit" name="do" value="default" class="secondary">${t('mailUseBuiltIn')}</button>` : ''
  }</div></form></div>`,
)}`,
  );
}
