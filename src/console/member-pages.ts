/**
 * The console's side of the member pages: the queue of registrations awaiting approval
 * (editors: approve makes the member Active and sends the welcome mail; refuse deletes it,
 * with a mail when asked), and the pages' settings (owners: registration and its fields, the
 * allowed return origins, the look, the language, the check's headers).
 *
 * A registration awaiting approval is a row of its own, made with the member (Suspended) by
 * the registration service and taken by the decision: a member suspended for another reason,
 * or imported as Free, is never in the queue.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_LANGUAGES, REGISTRATIONS, type Account, type SettingsPatch } from '../accounts/account.js';
import { ACCOUNT_SETTINGS, SettingValueError } from '../accounts/account-settings.js';
import { formatRegistrationFields } from '../accounts/registration-fields.js';
import type { AccountsService } from '../accounts/accounts-service.js';
import type { FormOrigin } from '../accounts/account-store.js';
import type { MembersService } from '../members/members-service.js';
import type { Operator, Role } from '../operators/operator.js';
import { html } from '../http/html.js';
import { layout, memberPath, membersPath, when, type Chrome } from './pages.js';

const QUEUE_SIZE = 50;

export const registrationsPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/registrations`;
export const memberPagesPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/member-pages`;

/** What the console's routes lend this module. */
export interface ConsoleKit {
  readonly accounts: AccountsService;
  readonly members: MembersService;
  accountOf(request: FastifyRequest, reply: FastifyReply, needed: Role): Promise<{ operator: Operator; account: Account; role: Role } | undefined>;
  send(reply: FastifyReply, status: number, page: string): FastifyReply;
  formOf(request: FastifyRequest): Record<string, string>;
  /** The notice of the change whose redirect opened the page (`?done=…`). */
  doneNotice(request: FastifyRequest): Chrome['notice'];
  /** A redirect after a change (303): a reload does not send the form again. */
  seeOther(reply: FastifyReply, location: string): FastifyReply;
  /** Whether an owner may point this server's connections (a mail server) at private addresses (WEBHOOKS_ALLOW_PRIVATE_ADDRESSES). */
  readonly allowPrivateAddresses: boolean;
}

interface QueueView {
  readonly account: Account;
  readonly members: ReadonlyArray<{
    readonly id: number;
    readonly login: string;
    readonly email: string;
    readonly regAt: number;
    readonly profile: ReadonlyMap<string, string>;
  }>;
  readonly total: number;
}

export function registrationsPage(chrome: Chrome, view: QueueView): string {
  const { account } = view;
  const fields = account.settings.registrationFields;
  return layout(
    `Registrations of ${account.name}`,
    chrome,
    html`<div class="actions"><h1>Registrations awaiting approval</h1><a class="button secondary" href="${membersPath(account.name)}">Members</a></div>
${account.settings.registration !== 'approval' ? html`<p class="muted">Registration is <strong>${account.settings.registration}</strong> on this account: new registrations do not wait here.</p>` : ''}
<div class="card"><p class="count"><strong>${view.total.toLocaleString('en')}</strong> waiting${view.total > view.members.length ? html` (the oldest ${view.members.length} shown)` : ''}</p>
<table><thead><tr><th>Login</th><th>E-mail</th><th>Registered</th>${fields.map((field) => html`<th>${field.label}</th>`)}<th>Decision</th></tr></thead><tbody>
${view.members.length === 0 ? html`<tr><td colspan="${4 + fields.length}" class="muted">No registration waits.</td></tr>` : ''}
${view.members.map(
  (
    member,
  ) => html`<tr><td><a href="${memberPath(account.name, member.id)}">${member.login}</a></td><td>${member.email}</td><td>${when(member.regAt)}</td>${fields.map((field) => html`<td>${member.profile.get(field.name) ?? ''}</td>`)}
<td><div class="actions"><form method="post" action="${registrationsPath(account.name)}/${member.id}/approve"><button type="submit">Approve</button></form>
<form method="post" action="${registrationsPath(account.name)}/${member.id}/refuse"><label class="inline"><input type="checkbox" name="tell" value="1" checked> mail them</label> <button type="submit" class="danger">Refuse</button></form></div></td></tr>`,
)}
</tbody></table></div>`,
  );
}

/** The member pages' settings form, with each setting's current value or the value sent and its error. */
export function memberPagesSettingsPage(
  chrome: Chrome,
  account: Account,
  form: Readonly<Record<string, string>> = {},
  error?: { setting: string; reason: string },
  formOrigins: readonly FormOrigin[] = [],
): string {
  const s = account.settings;
  const value = (name: string, current: string) => form[name] ?? current;
  const choice = (name: string, choices: readonly string[], current: string) =>
    html`<select name="${name}">${choices.map((c) => html`<option value="${c}"${value(name, current) === c ? html` selected` : ''}>${c}</option>`)}</select>`;
  return layout(
    `Member pages of ${account.name}`,
    { ...chrome, notice: error ? { kind: 'error', text: `${error.setting}: ${error.reason}.` } : chrome.notice },
    html`<div class="actions"><h1>Member pages</h1><a class="button secondary" href="/auth/${account.name}/">Open the sign-in page</a></div>
<div class="card"><form method="post" action="${memberPagesPath(account.name)}" class="settings">
<label>Registration ${choice('registration', REGISTRATIONS, s.registration)}</label>
<p class="muted">off: no registration page; open: a new member is Active and signed in at once; approval: it waits, Suspended, in the <a href="${registrationsPath(account.name)}">registrations queue</a>.</p>
<label>Registration fields <textarea name="registration_fields" rows="3">${value('registration_fields', formatRegistrationFields(s.registrationFields))}</textarea></label>
<p class="muted">Separated by <code>;</code>, each <code>name[*]:kind[:label]</code> (<code>*</code>: required; kinds text, email, number, date, choice(a|b), checkbox), e.g. <code>first_name*:text:First name;terms*:checkbox:I accept the terms</code>. Members change the same fields, but the checkboxes, on their profile page.</p>
<label>Allowed return origins <textarea name="return_origins" rows="2">${value('return_origins', s.returnOrigins.join(', '))}</textarea></label>
<p class="muted">Comma-separated, e.g. <code>https://www.example.com</code>: where a browser may go back after sign-in, and whose pages may post the sign-in form.</p>
<label>Name shown <input name="page_name" value="${value('page_name', s.pageName)}" placeholder="${account.name}"></label>
<label>Logo URL <input name="page_logo" value="${value('page_logo', s.pageLogoUrl)}" placeholder="https://…"></label>
<label>Accent colour <input name="page_accent" type="color" value="${value('page_accent', s.pageAccent)}"></label>
<label>Language ${choice('page_language', PAGE_LANGUAGES, s.pageLanguage)}</label>
<p class="muted">auto: the visitor's browser chooses between English and French.</p>
<label>Profile fields the check answers as headers <input name="check_fields" value="${value('check_fields', s.checkFields.join(','))}" placeholder="plan,city"></label>
<label>Cookie domain <input name="cookie_domain" value="${value('cookie_domain', s.cookieDomain)}" placeholder="example.com"></label>
<p class="muted">Empty: the sign-in holds on the pages' own host. <code>example.com</code>: on every subdomain too (pages on members.example.com, a proxy on www.example.com).</p>
<div class="actions"><button type="submit">Save</button></div>
</form></div>
${formOrigins.length === 0 ? '' : foreignOrigins(account, formOrigins)}`,
  );
}

/**
 * Other sites whose pasted forms (the original's sign-in or registration) reached the pages:
 * their visitors were asked to finish on the pages themselves. Allowing one adds it to the
 * allowed return origins; dismissing forgets it.
 */
function foreignOrigins(account: Account, origins: readonly FormOrigin[]) {
  const path = `${memberPagesPath(account.name)}/origins`;
  const button = (origin: string, action: 'allow' | 'dismiss', label: string, kind: string) =>
    html`<form method="post" action="${path}" class="inline-form"><input type="hidden" name="origin" value="${origin}"><input type="hidden" name="do" value="${action}"><button type="submit" class="${kind}">${label}</button></form>`;
  return html`<div class="card"><h2>Forms posted from other sites</h2>
<p class="muted">A sign-in or registration form pasted on these sites' pages reached the member pages; as these origins are not allowed, nothing was done, and the visitors were asked to finish on the member pages. Allow an origin that is yours: its forms then work as they are.</p>
<table><thead><tr><th>Origin</th><th>Posts</th><th>Last</th><th></th></tr></thead><tbody>
${origins.map(
  (entry) =>
    html`<tr><td><code>${entry.origin}</code></td><td>${entry.posts.toLocaleString('en')}</td><td>${when(entry.lastAt)}</td><td>${button(entry.origin, 'allow', 'Allow', 'secondary')} ${button(entry.origin, 'dismiss', 'Dismiss', 'secondary')}</td></tr>`,
)}</tbody></table></div>`;
}

/** The form's fields, by the setting each sets (the command line's option names). */
const FORM_SETTINGS: Record<string, string> = {
  registration: 'registration',
  registration_fields: 'registration-fields',
  return_origins: 'return-origins',
  page_name: 'page-name',
  page_logo: 'page-logo',
  page_accent: 'page-accent',
  page_language: 'page-language',
  check_fields: 'check-fields',
  cookie_domain: 'cookie-domain',
};

/** The patch a settings form asks for, read as the command line reads each option; or the first value that cannot be read. */
function patchOfForm(form: Readonly<Record<string, string>>): { ok: true; patch: SettingsPatch } | { ok: false; setting: string; reason: string } {
  let patch = {} as SettingsPatch;
  for (const [field, option] of Object.entries(FORM_SETTINGS)) {
    const sent = form[field];
    if (sent === undefined) continue;
    const spec = ACCOUNT_SETTINGS.find((candidate) => candidate.option === option)!;
    try {
      const text = field === 'return_origins' ? sent.replace(/\s+/g, ',') : sent;
      patch = spec.set(patch as never, spec.kind.parse(text.trim())) as SettingsPatch;
    } catch (error) {
      if (error instanceof SettingValueError) return { ok: false, setting: option, reason: error.message };
      throw error;
    }
  }
  return { ok: true, patch };
}

export function registerMemberPagesConsole(scope: FastifyInstance, kit: ConsoleKit): void {
  async function showQueue(
    request: FastifyRequest,
    reply: FastifyReply,
    seen: { operator: Operator; account: Account },
    status = 200,
    notice?: Chrome['notice'],
  ) {
    const { account } = seen;
    const page = await kit.members.pendingRegistrations(account, QUEUE_SIZE);
    const members = page.members.map(({ member, profile }) => ({ id: member.id, login: member.login, email: member.email, regAt: member.regAt, profile }));
    return kit.send(reply, status, registrationsPage({ operator: seen.operator, account: account.name, notice }, { account, members, total: page.total }));
  }

  scope.get('/accounts/:account/registrations', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'viewer');
    if (!seen) return reply;
    return showQueue(request, reply, seen, 200, kit.doneNotice(request));
  });

  /** Approves or refuses one registration that still waits: through the members' service, with the member's mail. */
  async function decide(request: FastifyRequest, reply: FastifyReply, approve: boolean) {
    const seen = await kit.accountOf(request, reply, 'editor');
    if (!seen) return reply;
    const { account, operator } = seen;
    const id = (request.params as { id: string }).id;
    const tell = kit.formOf(request).tell === '1';
    const decided = /^[1-9]\d{0,14}$/.test(id)
      ? await kit.members.decideRegistration(account, Number(id), { approve, tell }, { actor: 'operator', email: operator.email, requestId: request.id })
      : 'not-waiting';
    if (decided === 'not-waiting') return showQueue(request, reply, seen, 404, { kind: 'error', text: 'This registration no longer waits.' });
    return kit.seeOther(reply, `${registrationsPath(account.name)}?done=${approve ? 'approved' : 'refused'}`);
  }

  scope.post('/accounts/:account/registrations/:id/approve', async (request, reply) => decide(request, reply, true));
  scope.post('/accounts/:account/registrations/:id/refuse', async (request, reply) => decide(request, reply, false));

  scope.get('/accounts/:account/member-pages', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const chrome = { operator: seen.operator, account: seen.account.name, notice: kit.doneNotice(request) };
    return kit.send(reply, 200, memberPagesSettingsPage(chrome, seen.account, {}, undefined, await kit.accounts.formOrigins(seen.account)));
  });

  // An origin other sites' forms came from: allowed (added to the return origins), or dismissed.
  scope.post('/accounts/:account/member-pages/origins', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const { origin = '', do: action } = kit.formOf(request);
    const { account } = seen;
    const known = (await kit.accounts.formOrigins(account)).some((entry) => entry.origin === origin);
    if (known && action === 'allow') {
      const changed = await kit.accounts.change(account.name, { returnOrigins: [...new Set([...account.settings.returnOrigins, origin])] });
      if (changed.kind !== 'ok') {
        const refusal = changed.kind === 'invalid' ? { setting: changed.setting, reason: changed.reason } : { setting: 'account', reason: 'not found' };
        return kit.send(reply, 400, memberPagesSettingsPage({ operator: seen.operator, account: account.name }, account, {}, refusal));
      }
    }
    if (known) await kit.accounts.forgetFormOrigin(account, origin);
    return kit.seeOther(reply, `${memberPagesPath(account.name)}?done=${known && action === 'allow' ? 'origin-allowed' : 'saved'}`);
  });

  scope.post('/accounts/:account/member-pages', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const form = kit.formOf(request);
    const chrome = { operator: seen.operator, account: seen.account.name };
    const read = patchOfForm(form);
    if (!read.ok) return kit.send(reply, 400, memberPagesSettingsPage(chrome, seen.account, form, read));
    const changed = await kit.accounts.change(seen.account.name, read.patch);
    if (changed.kind !== 'ok') {
      const refusal = changed.kind === 'invalid' ? { setting: changed.setting, reason: changed.reason } : { setting: 'account', reason: 'not found' };
      return kit.send(reply, 400, memberPagesSettingsPage(chrome, seen.account, form, refusal));
    }
    return kit.seeOther(reply, `${memberPagesPath(seen.account.name)}?done=saved`);
  });
}
