/**
 * The account's mails in the console (owners): each kind's text in use, edited and checked as
 * `account mail-template` checks it, sent to oneself as a test (the text in the box, kept or
 * not, filled in with sample values, handed to the account's mail server at once, whose
 * refusal is shown), or taken back to the built-in text; and the mail queue's counts. The
 * same service as the command line (MailTemplates).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { MAIL_KINDS } from '../../mail/mail.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { mailPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { isKind, mailPage, type KindView } from '../views/mail.js';

export async function mailSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function show(reply: FastifyReply, chrome: Chrome, account: Account, status = 200, edited?: KindView) {
    const kinds = await Promise.all(
      MAIL_KINDS.map(async (kind): Promise<KindView> => (edited?.kind === kind ? edited : { kind, ...(await deps.mailTemplates.text(account, kind)) })),
    );
    const counts = await deps.mailTemplates.counts(account);
    return send(reply, status, mailPage(chrome, account, kinds, counts));
  }

  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account);
  });

  scope.post('/:kind', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const chrome: Chrome = { operator, account: account.name };
    const kind = (request.params as { kind: string }).kind;
    if (!isKind(kind))
      return show(reply, { ...chrome, notice: { kind: 'error', text: t('mailNoKind', { kind, kinds: MAIL_KINDS.join(', ') }) } }, account, 404);
    const form = formOf(request);
    const text = form.text ?? '';
    const own = (await deps.mailTemplates.text(account, kind)).own;
    const refused = (status: number, error: string) =>
      show(reply, { ...chrome, notice: { kind: 'error', text: error } }, account, status, { kind, text, own, error });
    switch (form.do) {
      case 'save': {
        const changed = await deps.mailTemplates.set(account, kind, text);
        if (changed.kind === 'invalid') return refused(400, t('mailNotKept', { kind, reason: changed.reason }));
        return seeOther(reply, `${mailPath(account.name)}?done=template-saved#${kind}`);
      }
      case 'default':
        await deps.mailTemplates.set(account, kind, undefined);
        return seeOther(reply, `${mailPath(account.name)}?done=template-default#${kind}`);
      case 'test': {
        const sent = await deps.mailTemplates.sendTest(account, kind, operator.email, text);
        if (sent.kind === 'no-mail-server') return refused(400, t('mailNoServerFirst'));
        if (sent.kind === 'invalid') return refused(400, t('mailNotTemplate', { kind, reason: sent.reason }));
        if (sent.kind === 'refused') return refused(502, t('mailTestNotSent', { reason: sent.reason }));
        return seeOther(reply, `${mailPath(account.name)}?done=test-mailed#${kind}`);
      }
      default:
        return refused(400, t('mailDoChoice'));
    }
  });
}
