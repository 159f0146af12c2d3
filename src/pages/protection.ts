/**
 * What protects a site's pages: `/auth/ACCOUNT/check`, which a reverse proxy asks on every
 * request to a protected page, and the hosted original's protection script (`?action=pp`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import { isProfileFieldName } from '../members/profile-fields.js';
import { parseRecordTemplate } from '../members/record-template.js';
import type { SessionCheck, SessionsService } from '../members/sessions.js';
import { cookieName, readCookies } from './member-cookie.js';
import { queryParams } from '../http/params.js';

/**
 * The original's protection script (`?action=pp`): sets `auth_res` and `usid` for a member
 * signed in; otherwise sends the page to sign-in, with the page itself as `return`.
 */
export function protectionScript(signInUrl: string, session: string | undefined): string {
  if (session) return `var auth_res='ok';var usid=${JSON.stringify(session)};\n`;
  return `var auth_res='fail';var usid='';window.location.replace(${JSON.stringify(`${signInUrl}?action=ppfail&return=`)}+encodeURIComponent(window.location.href));\n`;
}

/**
 * A header's value: printable ASCII as it is; a value holding anything else, or a `%` (which
 * would make `a%C3%A9` and `aé` one value), percent-encoded (UTF-8) whole.
 */
function headerValue(value: string): string {
  return /^[\x20-\x24\x26-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}

/**
 * `/auth/ACCOUNT/check`: 200 with the member's id, login and e-mail (and the account's
 * `--check-fields`) as headers for a valid session cookie, 401 otherwise; `require=NAME:VALUE`
 * (repeatable) asks that the member's profile field hold that value, else 403. A reverse proxy
 * asks it on every request to a protected page: one read of the session, no page.
 */
export function check(sessions: SessionsService, account: Account | undefined, request: FastifyRequest, reply: FastifyReply): undefined | Promise<void> {
  const cookies = account ? readCookies(request.headers.cookie, cookieName(account)) : [];
  if (!account || cookies.length === 0) return refuse(reply, 401);
  // `require` rules only when the address has a query (a proxy's plain check has none).
  const required = request.url.includes('?') ? queryParams(request).getAll('require') : [];
  const fields =
    required.length === 0
      ? account.settings.checkFields
      : [...new Set([...account.settings.checkFields, ...required.map((rule) => rule.split(':')[0]!)])].filter(isProfileFieldName);
  const template = fields.map((name) => `{${name}}`).join('');
  const parsed = template === '' ? undefined : parseRecordTemplate(template);
  const record = parsed && { template, fields: parsed };
  // The first valid of the browser's cookies (usually the only one): each checked in turn.
  const next = (at: number): undefined | Promise<void> => {
    if (at === cookies.length) return refuse(reply, 401);
    const checked = sessions.check(account, cookies[at]!, record);
    if (checked instanceof Promise) return checked.then((answer) => (answer.kind === 'valid' ? letIn(account, answer, required, reply) : next(at + 1)));
    return checked.kind === 'valid' ? letIn(account, checked, required, reply) : next(at + 1);
  };
  return next(0);
}

/**
 * Every check's answer says `private, no-store`: a proxy that passes it on (and the
 * configurations docs/protecting-pages.md shows, which set it on the protected pages) keeps a
 * member's page out of every cache, the browser's included: after sign-out, Back asks again.
 */
const NO_STORE = 'private, no-store';

function refuse(reply: FastifyReply, status: 401 | 403): undefined {
  void reply.code(status).header('cache-control', NO_STORE).send();
  return undefined;
}

/** 200 with the member's headers, or 403 when a `require` rule does not hold. */
function letIn(account: Account, checked: Extract<SessionCheck, { kind: 'valid' }>, required: readonly string[], reply: FastifyReply): undefined {
  const values = checked.record ? (JSON.parse(checked.record) as Record<string, string>) : {};
  const { member } = checked;
  reply
    .header('cache-control', NO_STORE)
    .header('x-member-id', String(member.id))
    .header('x-member-login', headerValue(member.login))
    .header('x-member-email', headerValue(member.email));
  for (const name of account.settings.checkFields) reply.header(`x-member-field-${name.toLowerCase()}`, headerValue(values[name] ?? ''));
  for (const rule of required) {
    const at = rule.indexOf(':');
    if (at < 0 || values[rule.slice(0, at)] !== rule.slice(at + 1)) return refuse(reply, 403);
  }
  void reply.code(200).send();
  return undefined;
}
