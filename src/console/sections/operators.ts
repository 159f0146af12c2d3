/**
 * The account's operators in the console (owners), through the operators' service: invite one
 * with a role (a new operator gets its set-up link by mail, or, when the account sends no mail,
 * on the page that answers the form for the owner to send; an operator that exists gets no
 * link: see OperatorsService.invite), change a role, take one off the account. An owner cannot take itself off, nor lower its own role:
 * an account keeps an owner who can sign in.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { isEmail } from '../../members/fields.js';
import { ROLES, isRole, type Role } from '../../operators/operator.js';
import type { InviteOutcome } from '../../operators/operators-service.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { operatorsPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { operatorsPage } from '../views/operators.js';

/** What an invitation's page says; with mail, the same whether the address was known or not. */
const INVITED: Record<InviteOutcome['kind'], (email: string, role: Role, account: string) => string> = {
  mailed: (email, role, account) => t('opInvitedMailed', { email, role, account }),
  link: (email, role) => t('opInvitedLink', { email, role }),
  granted: (email, role, account) => t('opInvitedGranted', { email, role, account }),
  'role-set': (email, role, account) => t('opRoleSet', { email, role, account }),
};

export async function operatorsSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function show(reply: FastifyReply, chrome: Chrome, account: Account, status = 200, invited?: { email: string; link?: string }) {
    const operators = (await deps.operators.list()).filter((operator) => operator.accounts.some((grant) => grant.accountId === account.id));
    return send(reply, status, operatorsPage(chrome, account, operators, invited));
  }

  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account);
  });

  /** Invites an operator, or sets the role of one already on the account (`operator add`). */
  scope.post('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const chrome: Chrome = { operator, account: account.name };
    const form = formOf(request);
    const email = (form.email ?? '').trim();
    const role = form.role ?? '';
    if (!isEmail(email)) return show(reply, { ...chrome, notice: { kind: 'error', text: t('opInvalidEmail') } }, account, 400);
    if (!isRole(role)) return show(reply, { ...chrome, notice: { kind: 'error', text: t('opInvalidRole', { roles: ROLES.join(', ') }) } }, account, 400);
    if (email.toLowerCase() === operator.email.toLowerCase() && role !== 'owner')
      return show(reply, { ...chrome, notice: { kind: 'error', text: t('opOwnRoleStays') } }, account, 400);
    const invited = await deps.operators.invite(operator, email, account, role);
    return show(reply, { ...chrome, notice: { kind: 'ok', text: INVITED[invited.kind](email, role, account.name) } }, account, 200, {
      email,
      link: invited.kind === 'link' ? invited.link : undefined,
    });
  });

  /** A new sign-in link for an operator of this account alone: mailed, or shown when the account sends no mail. */
  scope.post('/link', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const email = (formOf(request).email ?? '').trim();
    const chrome: Chrome = { operator, account: account.name };
    const sent = await deps.operators.sendLink(operator, email, account);
    if (sent.kind === 'link')
      return show(reply, { ...chrome, notice: { kind: 'ok', text: t('opLinkMade', { email }) } }, account, 200, { email, link: sent.link });
    const refused = {
      'not-here': 'opNotAnOperator',
      yourself: 'opLinkNotYourself',
      'other-accounts': 'opLinkOtherAccounts',
      'just-mailed': 'opLinkJustMailed',
    } as const;
    if (sent.kind !== 'mailed') return show(reply, { ...chrome, notice: { kind: 'error', text: t(refused[sent.kind], { email }) } }, account, 409);
    return show(reply, { ...chrome, notice: { kind: 'ok', text: t('opLinkMailed', { email }) } }, account);
  });

  scope.post('/remove', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const email = (formOf(request).email ?? '').trim();
    const chrome: Chrome = { operator, account: account.name };
    if (email.toLowerCase() === operator.email.toLowerCase())
      return show(reply, { ...chrome, notice: { kind: 'error', text: t('opNotYourself') } }, account, 400);
    if (!(await deps.operators.remove(email, account.name)))
      return show(reply, { ...chrome, notice: { kind: 'error', text: t('opNotAnOperator', { email }) } }, account, 404);
    return seeOther(reply, `${operatorsPath(account.name)}?done=operator-removed`);
  });
}
