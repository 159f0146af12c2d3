/**
 * The account's mails in the console (owners): each kind's text in use, edited and checked as
 * `account mail-template` checks it, sent to oneself as a test (the text in the box, kept or
 * not, filled in with sample values, handed to the account's mail server at once, whose
 * refusal is shown), or taken back to the built-in text; and the mail queue's counts. The
 * same service as the command line (MailTemplates).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Account } from '../accounts/account.js';
import { MAIL_KINDS, TEMPLATE_VARIABLES, type MailKind } from '../mail/mail.js';
import type { MailTemplates } from '../mail/mail-templates.js';
import { html } from '../http/html.js';
import type { ConsoleKit } from './member-pages.js';
import { layout, membersPath, type Chrome } from './pages.js';
import { settingsPath } from './account-settings.js';

export const mailPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/mail`;

const WHAT: Record<MailKind, string> = {
  welcome: 'To a new member, with the link that verifies its e-mail address (when it is made with the welcome mail, or approved).',
  reset: 'The password reset link (/reset/, the member pages, the console’s “Send a password reset mail”).',
  expiring: 'Before a member’s time expiration falls due (the account’s expiry warning).',
  registered: 'To the account’s operators, when a registration on the member pages waits for approval.',
  refused: 'To a registration that was refused, when the operator asks for it.',
};

const isKind = (kind: string): kind is MailKind => (MAIL_KINDS as readonly string[]).includes(kind);

/** A kind's box as the page shows it: the text, whether it is the account's own, and what a form said of it. */
interface KindView {
  readonly kind: MailKind;
  readonly text: string;
  readonly own: boolean;
  readonly error?: string;
}

export function registerMailTemplates(scope: FastifyInstance, kit: ConsoleKit & { mailTemplates: MailTemplates }): void {
  async function show(reply: FastifyReply, chrome: Chrome, account: Account, status = 200, edited?: KindView) {
    const kinds = await Promise.all(
      MAIL_KINDS.map(async (kind): Promise<KindView> => (edited?.kind === kind ? edited : { kind, ...(await kit.mailTemplates.text(account, kind)) })),
    );
    const counts = await kit.mailTemplates.counts(account);
    return kit.send(reply, status, mailPage(chrome, account, kinds, counts));
  }

  scope.get('/accounts/:account/mail', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: kit.doneNotice(request) }, seen.account);
  });

  scope.post('/accounts/:account/mail/:kind', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const { operator, account } = seen;
    const chrome: Chrome = { operator, account: account.name };
    const kind = (request.params as { kind: string }).kind;
    if (!isKind(kind)) return show(reply, { ...chrome, notice: { kind: 'error', text: `There is no ${kind} mail: ${MAIL_KINDS.join(', ')}.` } }, account, 404);
    const form = kit.formOf(request);
    const text = form.text ?? '';
    const own = (await kit.mailTemplates.text(account, kind)).own;
    const refused = (status: number, error: string) =>
      show(reply, { ...chrome, notice: { kind: 'error', text: error } }, account, status, { kind, text, own, error });
    switch (form.do) {
      case 'save': {
        const changed = await kit.mailTemplates.set(account, kind, text);
        if (changed.kind === 'invalid') return refused(400, `The ${kind} mail is not kept: ${changed.reason}.`);
        return kit.seeOther(reply, `${mailPath(account.name)}?done=template-saved#${kind}`);
      }
      case 'default':
        await kit.mailTemplates.set(account, kind, undefined);
        return kit.seeOther(reply, `${mailPath(account.name)}?done=template-default#${kind}`);
      case 'test': {
        const sent = await kit.mailTemplates.sendTest(account, kind, operator.email, text);
        if (sent.kind === 'no-mail-server') return refused(400, 'The account has no mail server: set smtp-url in the settings first.');
        if (sent.kind === 'invalid') return refused(400, `The ${kind} mail is not a template: ${sent.reason}.`);
        if (sent.kind === 'refused') return refused(502, `The test mail was not sent: ${sent.reason}.`);
        return kit.seeOther(reply, `${mailPath(account.name)}?done=test-mailed#${kind}`);
      }
      default:
        return refused(400, 'do: save, test or default.');
    }
  });
}

function mailPage(chrome: Chrome, account: Account, kinds: readonly KindView[], counts: { pending: number; sent: number; failed: number }): string {
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
