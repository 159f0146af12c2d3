/**
 * The account's operators in the console (owners), through the operators' service: invite one
 * with a role (a new operator gets its set-up link by mail, or, when the account sends no mail,
 * on the page that answers the form for the owner to send; an operator that exists gets no
 * link: see OperatorsService.invite), change a role, take one off the account. An owner cannot take itself off, nor lower its own role:
 * an account keeps an owner who can sign in.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Account } from '../accounts/account.js';
import { isEmail } from '../members/fields.js';
import { ROLES, isRole, type Operator, type Role } from '../operators/operator.js';
import type { InviteOutcome, OperatorsService } from '../operators/operators-service.js';
import { html } from '../http/html.js';
import type { ConsoleKit } from './member-pages.js';
import { layout, membersPath, type Chrome } from './pages.js';

/** What an invitation's page says; with mail, the same whether the address was known or not. */
const INVITED: Record<InviteOutcome['kind'], (email: string, role: Role, account: string) => string> = {
  mailed: (email, role, account) => `${email} is invited as ${role} on ${account}: the invitation is on its way by mail.`,
  link: (email, role) => `${email} is invited as ${role}. The account sends no mail, so send them the link below yourself.`,
  granted: (email, role, account) =>
    `${email} is ${role} on ${account} now, and signs in with the password they already have (a lost one: the server's administrator makes a new set-up link with member-api operator reset).`,
  'role-set': (email, role, account) => `${email} is ${role} on ${account}.`,
};

export const operatorsPath = (account: string) => `/admin/accounts/${encodeURIComponent(account)}/operators`;

export function registerAccountOperators(scope: FastifyInstance, kit: ConsoleKit & { operators: OperatorsService }): void {
  async function show(reply: FastifyReply, chrome: Chrome, account: Account, status = 200, invited?: { email: string; link?: string }) {
    const operators = (await kit.operators.list()).filter((operator) => operator.accounts.some((grant) => grant.accountId === account.id));
    return kit.send(reply, status, operatorsPage(chrome, account, operators, invited));
  }

  scope.get('/accounts/:account/operators', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: kit.doneNotice(request) }, seen.account);
  });

  /** Invites an operator, or sets the role of one already on the account (`operator add`). */
  scope.post('/accounts/:account/operators', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const { operator, account } = seen;
    const chrome: Chrome = { operator, account: account.name };
    const form = kit.formOf(request);
    const email = (form.email ?? '').trim();
    const role = form.role ?? '';
    if (!isEmail(email)) return show(reply, { ...chrome, notice: { kind: 'error', text: 'email: must be an e-mail address.' } }, account, 400);
    if (!isRole(role)) return show(reply, { ...chrome, notice: { kind: 'error', text: `role: must be one of ${ROLES.join(', ')}.` } }, account, 400);
    if (email.toLowerCase() === operator.email.toLowerCase() && role !== 'owner')
      return show(reply, { ...chrome, notice: { kind: 'error', text: 'Your own role stays owner: another owner may change it.' } }, account, 400);
    const invited = await kit.operators.invite(operator, email, account, role);
    return show(reply, { ...chrome, notice: { kind: 'ok', text: INVITED[invited.kind](email, role, account.name) } }, account, 200, {
      email,
      link: invited.kind === 'link' ? invited.link : undefined,
    });
  });

  scope.post('/accounts/:account/operators/remove', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'owner');
    if (!seen) return reply;
    const { operator, account } = seen;
    const email = (kit.formOf(request).email ?? '').trim();
    const chrome: Chrome = { operator, account: account.name };
    if (email.toLowerCase() === operator.email.toLowerCase())
      return show(reply, { ...chrome, notice: { kind: 'error', text: 'You cannot take yourself off the account: another owner may.' } }, account, 400);
    if (!(await kit.operators.remove(email, account.name)))
      return show(reply, { ...chrome, notice: { kind: 'error', text: `${email} is not an operator.` } }, account, 404);
    return kit.seeOther(reply, `${operatorsPath(account.name)}?done=operator-removed`);
  });
}

function operatorsPage(chrome: Chrome, account: Account, operators: readonly Operator[], invited?: { email: string; link?: string }): string {
  const path = operatorsPath(account.name);
  const roleOf = (operator: Operator): Role => operator.accounts.find((grant) => grant.accountId === account.id)!.role;
  const roleSelect = (current: Role) =>
    html`<select name="role">${ROLES.map((role) => html`<option value="${role}"${role === current ? html` selected` : ''}>${role}</option>`)}</select>`;
  return layout(
    `Operators of ${account.name}`,
    chrome,
    html`<p><a href="${membersPath(account.name)}">← Members of ${account.name}</a></p><h1>Operators of ${account.name}</h1>
${
  invited?.link
    ? html`<div class="card issued"><h2>The set-up link for ${invited.email}</h2><p>Send it to them: it works once, for 24 hours, and sets their password (<code>member-api operator reset</code> makes a new one). It is shown only on this page.</p><p><code class="secret">${invited.link}</code></p></div>`
    : ''
}
<div class="card"><table><thead><tr><th>E-mail</th><th>Role</th><th>Two-step</th><th></th></tr></thead><tbody>
${operators.map(
  (
    operator,
  ) => html`<tr><td>${operator.email}</td><td><form method="post" action="${path}" class="inline-form"><input type="hidden" name="email" value="${operator.email}">${roleSelect(roleOf(operator))} <button type="submit" class="secondary">Set</button></form></td>
<td>${operator.twoStep ? 'on' : 'off'}</td>
<td>${
    operator.id === chrome.operator?.id
      ? html`<span class="muted">you</span>`
      : html`<form method="post" action="${path}/remove"><input type="hidden" name="email" value="${operator.email}"><button type="submit" class="danger">Take off the account</button></form>`
  }</td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>Invite an operator</h2><form method="post" action="${path}" class="edit">
<label>E-mail <input type="email" name="email" required></label>
<label>Role ${roleSelect('viewer')}</label>
<div class="actions"><button type="submit">Invite</button></div></form>
<p class="muted">Viewers read; editors also change members and decide registrations; owners also change the member pages, the settings, the keys and the operators.</p></div>`,
  );
}
