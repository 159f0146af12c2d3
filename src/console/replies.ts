/**
 * How the console reads a form and answers: a page (HTML), a redirect after a change (303,
 * post/redirect/get), and the notice a redirect's `?done=…` carries to the page it opens.
 * Shared by every section of the console.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { queryParams } from '../http/params.js';

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
  saved: 'Saved.',
  status: 'Status changed.',
  deleted: 'Deleted. Restore brings the member back.',
  unlocked: 'Unlocked.',
  created: 'Member created.',
  approved: 'Approved: the member is Active (and welcomed by mail when the account sends mail).',
  refused: 'Refused: the registration is deleted.',
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out on every device.',
  'reset-mailed': 'A password reset mail is on its way to the member.',
  verified: 'The e-mail address is marked verified.',
  'session-ended': 'The session is ended.',
  'sessions-ended': 'Every session of the member is ended.',
  bulk: 'Done.',
  'two-step-off': 'Two-step sign-in is off.',
  'key-revoked': 'The key is revoked: calls made with it are refused.',
  'operator-removed': 'The operator is taken off the account: its pages are closed to them.',
  'webhook-removed': 'The webhook is removed.',
  'webhook-enabled': 'The webhook is on again: its deliveries resume.',
  redelivered: 'The delivery is due again: it goes out within seconds.',
  'not-redelivered': 'There is no such delivery of this webhook.',
  'template-saved': 'Saved: the mail uses this text from now on.',
  'template-default': 'The mail uses the built-in text again.',
  'origin-allowed': 'Allowed: forms pasted on that site’s pages now work as they are.',
  'test-mailed': 'The test mail was handed to the mail server: look in your inbox.',
  uploaded: 'Uploaded: check the columns’ fields, then make a dry run.',
} as const;
export type Done = keyof typeof DONE;

/** The notice a page shows for the change that led to it (`?done=…`), if any. */
export function doneNotice(request: FastifyRequest): { kind: 'ok'; text: string } | undefined {
  const query = queryParams(request);
  const done = query.get('done');
  // A bulk action's count: digits only, put into the console's own sentence.
  const changed = query.get('changed');
  if (done === 'bulk' && changed !== null && /^\d{1,9}$/.test(changed))
    return { kind: 'ok', text: `Done: ${Number(changed).toLocaleString('en')} ${changed === '1' ? 'member' : 'members'} changed.` };
  return done !== null && Object.hasOwn(DONE, done) ? { kind: 'ok', text: DONE[done as Done] } : undefined;
}
