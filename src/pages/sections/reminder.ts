/**
 * The password reminder: an address or a login, one answer for all, given before any look-up
 * (whether anyone matches cannot be told from the answer or its time); a member that matches
 * gets the reset mail (PasswordResets). Budgets per client and per account.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { clientScope } from '../../auth/client-address.js';
import { FORM_BODY_LIMIT_BYTES } from '../../http/page-security.js';
import { pageOf } from '../access.js';
import type { MemberPagesContext } from '../context.js';
import { redirectOrAnswer, type Flash } from '../flash.js';
import { sendPage } from '../page-reply.js';
import { lostPage } from '../views/reminder.js';
import { messagePage, type Chrome } from '../views/layout.js';

/** The flash of a reminder asked, and the page saying the link is on its way. */
const LOST_SENT = 'lost-sent';
const sentPage = (chrome: Chrome) => messagePage(chrome, 'lostSent', 'lostSentText', { href: chrome.base, label: 'backToSignIn' });

/** The reminder's page (`?action=lost`), or after a reminder was asked (its redirect's flash), the page saying the link is on its way. */
export const reminderPage = (reply: FastifyReply, chrome: Chrome, flash?: Flash): FastifyReply =>
  sendPage(reply, 200, chrome, flash?.form === LOST_SENT ? sentPage(chrome) : lostPage(chrome));

export async function reminderSection(pages: FastifyInstance, context: MemberPagesContext): Promise<void> {
  pages.post('/:account/lost', { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: { form: 'own' } } }, async (request, reply) => {
    const { account, chrome, params } = pageOf(request);
    const who = (params.get('who') ?? '').trim();
    if (who === '') return sendPage(reply, 400, chrome, lostPage(chrome, chrome.t('required')));
    const admission = await context.reminders.admit(account.id, clientScope(request.ip));
    if (!admission.ok) return sendPage(reply, 429, chrome, lostPage(chrome, chrome.t('tooMany', { seconds: admission.retryAfterSeconds })));
    // Answered before the look-up: the same words, in the same time, whether anyone matches.
    void context.resets.remind(account, who, chrome.language).catch((error: unknown) => request.log.error({ err: error }, 'the password reminder failed'));
    // Then the page that says so, by a redirect: a reload asks for no second mail.
    return redirectOrAnswer(request, reply, chrome, context.flashKey, `${chrome.base}?action=lost`, { form: LOST_SENT }, () => sentPage(chrome));
  });
}
