/**
 * A signed-in member's own pages: the profile (its address, which takes its password to change,
 * and the account's editable fields), its password, its data as one JSON file, and the deletion
 * of its account, which erases it. Every change goes through the members' service, actor
 * `member`; a password confirms a change at most 10 times an hour per member.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { HashingBusy } from '../../auth/hashing-gate.js';
import { builtInValues } from '../../events/event.js';
import { FORM_BODY_LIMIT_BYTES } from '../../http/page-security.js';
import { isEmail } from '../../members/fields.js';
import { loginShare } from '../../members/login-service.js';
import type { Member } from '../../members/member.js';
import { signedInOf } from '../access.js';
import type { MemberPagesContext } from '../context.js';
import { clearSessionCookie, setSessionCookie } from '../member-cookie.js';
import { leaveForSignIn, readFields, showProfile, visitor } from '../page-actions.js';
import { passwordProblem } from '../page-reply.js';
import type { Chrome } from '../views/layout.js';
import type { ProfileView } from '../views/profile.js';
import { redirectWithFlash, takeFlash, type Flash } from '../flash.js';

/** The profile page's forms, by their elements' ids. */
const PROFILE_FORM = 'profile-form';
const PASSWORD_FORM = 'password-form';
const DELETE_FORM = 'delete-form';

/** What a form's redirect left, as the profile page shows it. */
function profileViewOf(flash: Flash | undefined): Partial<ProfileView> {
  if (!flash) return {};
  const errors = flash.errors ?? {};
  switch (flash.form) {
    case PASSWORD_FORM: {
      const field = (['current', 'password', 'confirm'] as const).find((name) => errors[name] !== undefined);
      return field ? { passwordError: { field, message: errors[field]! } } : {};
    }
    case DELETE_FORM:
      return { deleteError: errors.delete_password };
    case PROFILE_FORM:
      return { errors, values: flash.values };
    default:
      return { notice: flash.notice };
  }
}

const FORM = { bodyLimit: FORM_BODY_LIMIT_BYTES, config: { page: { form: 'own', member: true } } } as const;

export async function profileSection(pages: FastifyInstance, context: MemberPagesContext): Promise<void> {
  /**
   * Whether `password` is the member's own, for a change it confirms (its e-mail, its
   * password, its deletion): at most 10 tries an hour per member, each a hash's work.
   */
  async function confirmed(account: Account, chrome: Chrome, member: Member, password: string): Promise<true | string> {
    const admission = await context.confirmations.admit(account.id, String(member.id));
    if (!admission.ok) return chrome.t('tooMany', { seconds: admission.retryAfterSeconds });
    // A signed-in member's own turn at hashing: its confirmations wait behind no one else's.
    const client = `member:${member.id}`;
    try {
      await context.hashing.admit(loginShare(account, client));
    } catch (error) {
      if (error instanceof HashingBusy) return chrome.t('busy');
      throw error;
    }
    return (await context.logins.confirmPassword(account, member, password, client)) ? true : chrome.t('wrongPassword');
  }

  const profileOf = (request: FastifyRequest) => {
    const page = signedInOf(request);
    return { ...page, member: page.signedIn.member };
  };

  /** Each form answers with a redirect to the profile: its notice at the top, or its errors, the page scrolled to the form. */
  const outcome = (reply: FastifyReply, chrome: Chrome, flash: Flash) =>
    redirectWithFlash(reply, chrome, context.flashKey, `${chrome.base}profile${flash.form ? `#${flash.form}` : ''}`, flash);

  pages.get('/:account/profile', { config: { page: { member: true } } }, async (request, reply) => {
    const { account, chrome, member } = profileOf(request);
    return showProfile(context, request, reply, account, member.id, profileViewOf(takeFlash(request, reply, chrome, context.flashKey)));
  });

  pages.post('/:account/profile', FORM, async (request, reply) => {
    const { account, chrome, member, params } = profileOf(request);
    const email = (params.get('email') ?? '').trim();
    const { set, cleared, values, errors } = readFields(chrome, params, true);
    if (!isEmail(email)) errors.email = chrome.t(email === '' ? 'required' : 'invalidEmail');
    // A new address takes the password: whoever holds only the session cannot move the
    // account (and its password reminders) to an address of theirs.
    if (!errors.email && email !== member.email) {
      const ok = await confirmed(account, chrome, member, params.get('email_password') ?? '');
      if (ok !== true) errors.email_password = ok;
    }
    if (Object.keys(errors).length > 0) return outcome(reply, chrome, { form: PROFILE_FORM, errors, values: { ...values, email } });
    const updated = await context.members.update(
      account,
      { selector: { by: 'id', id: member.id }, ...(email !== member.email ? { email } : {}), setFields: set, deleteFields: cleared },
      { actor: 'member', requestId: request.id },
    );
    if (updated.kind !== 'updated') {
      const problem = updated.kind === 'over-quota' ? 'full' : updated.kind === 'too-many-fields' || updated.kind === 'too-large' ? 'tooLong' : 'failedText';
      return outcome(reply, chrome, { form: PROFILE_FORM, errors: { form: chrome.t(problem) }, values: { ...values, email } });
    }
    return outcome(reply, chrome, { notice: chrome.t('saved') });
  });

  pages.post('/:account/password', FORM, async (request, reply) => {
    const { account, chrome, member, params, signedIn } = profileOf(request);
    const password = params.get('password') ?? '';
    const fail = (field: 'current' | 'password' | 'confirm', message: string) => outcome(reply, chrome, { form: PASSWORD_FORM, errors: { [field]: message } });
    const problem = passwordProblem(chrome, password);
    if (problem) return fail('password', problem);
    if (password !== (params.get('confirm') ?? '')) return fail('confirm', chrome.t('passwordsDiffer'));
    const ok = await confirmed(account, chrome, member, params.get('current') ?? '');
    if (ok !== true) return fail('current', ok);
    // A new password ends every session of the member (as /update/'s does); this browser
    // gets a new one, kept as the old one was. Not a login: nothing is counted.
    await context.members.update(
      account,
      { selector: { by: 'id', id: member.id }, password, setFields: new Map(), deleteFields: [] },
      { actor: 'member', requestId: request.id },
    );
    const session = await context.sessions.start(account, member.id, { ip: visitor(request), remember: signedIn.remember });
    setSessionCookie(reply, request, account, session, signedIn.remember, context.publicUrl);
    return outcome(reply, chrome, { notice: chrome.t('passwordChanged') });
  });

  pages.post('/:account/delete', FORM, async (request, reply) => {
    const { account, chrome, member, params } = profileOf(request);
    const ok = await confirmed(account, chrome, member, params.get('delete_password') ?? '');
    if (ok !== true) return outcome(reply, chrome, { form: DELETE_FORM, errors: { delete_password: ok } });
    // Erased, not the restorable Deleted an operator's status=D makes (docs/security.md).
    await context.members.erase(account, member.id, { actor: 'member', requestId: request.id });
    clearSessionCookie(reply, request, account, context.publicUrl);
    return leaveForSignIn(context, request, reply, chrome, 'deleted');
  });

  // Everything stored about the member, as one JSON document (GET: it changes nothing).
  pages.get('/:account/my-data', { config: { page: { member: true } } }, async (request, reply) => {
    const { account, member } = profileOf(request);
    const [profile, logins, sessions, history] = await Promise.all([
      context.members.profileOf(account, member.id),
      context.logins.recentLogins(account, member.id, 100),
      context.sessions.listOf(account, member.id, 100),
      context.events.ofMember(account.id, member.id, 100),
    ]);
    const document = {
      account: account.name,
      exported_at: new Date().toISOString(),
      member: { id: String(member.id), ...builtInValues(member) },
      profile: Object.fromEntries(profile),
      recent_logins: logins.map((entry) => ({ at: new Date(entry.at).toISOString(), ip: entry.ip, outcome: entry.outcome })),
      sessions: sessions.map((session) => ({
        signed_in_at: new Date(session.createdAt).toISOString(),
        last_seen_at: new Date(session.seenAt ?? session.createdAt).toISOString(),
        ip: session.ip,
        kept_signed_in: session.remember,
      })),
      history: history.map((event) => ({ at: new Date(event.at).toISOString(), type: event.type, by: event.origin.actor, data: event.data })),
    };
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="${account.name}-${member.login.replace(/[^A-Za-z0-9._-]/g, '_')}.json"`)
      .send(`${JSON.stringify(document, null, 2)}\n`);
  });
}
