/**
 * How the console reads a form and answers: a page (HTML), a redirect after a change (303,
 * post/redirect/get), and the notice a redirect's `?done=…` carries to the page it opens.
 * Shared by every section of the console.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { queryParams } from '../http/params.js';
import type { ConsoleKey } from '../messages/catalog.js';
import { t } from './views/layout.js';

/** A form or query as the console reads it: the last value of each name. */
export type Params = Record<string, string>;

/** The posted form's fields (a url-encoded body). */
export function formOf(request: FastifyRequest): Params {
  const body = request.body;
  const form: Params = {};
  if (body instanceof URLSearchParams) for (const [name, value] of body) form[name] = value;
  return form;
}

export function queryOf(request: FastifyRequest): Params {
  return Object.fromEntries(queryParams(request));
}

/** A page of the console, with its status. */
export function send(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

/** The answer to a change made: the page it leads to, so that a reload does not send the form again. */
export const seeOther = (reply: FastifyReply, location: string): FastifyReply => reply.code(303).header('location', location).send();

/**
 * What a change said, carried to the page its redirect opens (post/redirect/get) as a fixed
 * word of the query, never as text: a link cannot make the console say anything else.
 */
export const DONE = {
  saved: 'doneSaved',
  status: 'doneStatus',
  deleted: 'doneDeleted',
  unlocked: 'doneUnlocked',
  created: 'doneCreated',
  'created-link-mailed': 'doneCreatedLinkMailed',
  approved: 'doneApproved',
  refused: 'doneRefused',
  'signed-out': 'doneSignedOut',
  'signed-out-everywhere': 'doneSignedOutEverywhere',
  'reset-mailed': 'doneResetMailed',
  verified: 'doneVerified',
  'session-ended': 'doneSessionEnded',
  'sessions-ended': 'doneSessionsEnded',
  bulk: 'doneBulk',
  'two-step-off': 'doneTwoStepOff',
  'key-revoked': 'doneKeyRevoked',
  'operator-removed': 'doneOperatorRemoved',
  'webhook-removed': 'doneWebhookRemoved',
  'webhook-enabled': 'doneWebhookEnabled',
  redelivered: 'doneRedelivered',
  'not-redelivered': 'doneNotRedelivered',
  'template-saved': 'doneTemplateSaved',
  'template-default': 'doneTemplateDefault',
  'origin-allowed': 'doneOriginAllowed',
  'layout-saved': 'doneLayoutSaved',
  'forgot-sent': 'forgotSentText',
  'layout-built-in': 'doneLayoutBuiltIn',
  'test-mailed': 'doneTestMailed',
  uploaded: 'doneUploaded',
  'plan-added': 'donePlanAdded',
  'plan-removed': 'donePlanRemoved',
  comped: 'doneComped',
} as const satisfies Record<string, ConsoleKey>;
export type Done = keyof typeof DONE;

/** The notice a page shows for the change that led to it (`?done=…`), if any. */
export function doneNotice(request: FastifyRequest): { kind: 'ok'; text: string } | undefined {
  const query = queryParams(request);
  const done = query.get('done');
  // A bulk action's count: digits only, put into the console's own sentence.
  const changed = query.get('changed');
  if (done === 'bulk' && changed !== null && /^\d{1,9}$/.test(changed))
    return { kind: 'ok', text: t(changed === '1' ? 'doneBulkOne' : 'doneBulkMany', { count: Number(changed).toLocaleString('en') }) };
  return done !== null && Object.hasOwn(DONE, done) ? { kind: 'ok', text: t(DONE[done as Done]) } : undefined;
}
