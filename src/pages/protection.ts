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
export async function check(sessions: SessionsService, account: Account, request: FastifyRequest, reply: FastifyReply) {
  const cookies = readCookies(request.headers.cookie, cookieName(account));
  if (cookies.length === 0) return reply.code(401).send();
  const required = queryParams(request).getAll('require');
  const fields = [...new Set([...account.settings.checkFields, ...required.map((rule) => rule.split(':')[0]!)])].filter(isProfileFieldName);
  const template = fields.map((name) => `{${name}}`).join('');
  const parsed = template === '' ? undefined : parseRecordTemplate(template);
  // The first valid of the browser's cookies (usually the only one).
  let checked: SessionCheck = { kind: 'not-found' };
  for (const session of cookies) {
    const checking = sessions.check(account, session, parsed && { template, fields: parsed });
    checked = checking instanceof Promise ? await checking : checking;
    if (checked.kind === 'valid') break;
  }
  if (checked.kind !== 'valid') return reply.code(401).send();
  const values = checked.record ? (JSON.parse(checked.record) as Record<string, string>) : {};
  const { member } = checked;
  reply.header('x-member-id', String(member.id)).header('x-member-login', headerValue(member.login)).header('x-member-email', headerValue(member.email));
  for (const name of account.settings.checkFields) reply.header(`x-member-field-${name.toLowerCase()}`, headerValue(values[name] ?? ''));
  for (const rule of required) {
    const at = rule.indexOf(':');
    if (at < 0 || values[rule.slice(0, at)] !== rule.slice(at + 1)) return reply.code(403).send();
  }
  return reply.code(200).send();
}
