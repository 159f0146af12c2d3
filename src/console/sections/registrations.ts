/**
 * The queue of registrations awaiting approval (every operator sees it; editors decide):
 * approve makes the member Active and sends the welcome mail; refuse deletes it, with a mail
 * when asked. A registration awaiting approval is a row of its own, made with the member
 * (Suspended) by the registration and taken by the decision: a member suspended for another
 * reason, or imported as Free, is never in the queue.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import type { Operator } from '../../operators/operator.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { registrationsPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { registrationsPage } from '../views/registrations.js';

const QUEUE_SIZE = 50;

export async function registrationsSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function showQueue(reply: FastifyReply, seen: { operator: Operator; account: Account }, status = 200, notice?: Chrome['notice']) {
    const { account } = seen;
    const page = await deps.members.pendingRegistrations(account, QUEUE_SIZE);
    const members = page.members.map(({ member, profile }) => ({ id: member.id, login: member.login, email: member.email, regAt: member.regAt, profile }));
    return send(reply, status, registrationsPage({ operator: seen.operator, account: account.name, notice }, { account, members, total: page.total }));
  }

  scope.get('/', { config: { access: 'viewer' } }, async (request, reply) => showQueue(reply, onAccount(request), 200, doneNotice(request)));

  /** Approves or refuses one registration that still waits: through the members' service, with the member's mail. */
  async function decide(request: FastifyRequest, reply: FastifyReply, approve: boolean) {
    const seen = onAccount(request);
    const { account, operator } = seen;
    const id = (request.params as { id: string }).id;
    const tell = formOf(request).tell === '1';
    const decided = /^[1-9]\d{0,14}$/.test(id)
      ? await deps.members.decideRegistration(account, Number(id), { approve, tell }, { actor: 'operator', email: operator.email, requestId: request.id })
      : 'not-waiting';
    if (decided === 'not-waiting') return showQueue(reply, seen, 404, { kind: 'error', text: t('regNoLongerWaits') });
    return seeOther(reply, `${registrationsPath(account.name)}?done=${approve ? 'approved' : 'refused'}`);
  }

  scope.post('/:id/approve', { config: { access: 'editor' } }, async (request, reply) => decide(request, reply, true));
  scope.post('/:id/refuse', { config: { access: 'editor' } }, async (request, reply) => decide(request, reply, false));
}
