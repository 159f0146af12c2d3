/**
 * `/admin/`, the accounts an operator may open (its one account's members when it has one),
 * and for the server's administrators every account and a new one: the same service as
 * `account create`, its API key shown once on the page that answers.
 */
import type { FastifyInstance } from 'fastify';
import { signedIn } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { membersPath } from '../paths.js';
import { formOf, send, seeOther } from '../replies.js';
import { t } from '../views/layout.js';
import { accountCreatedPage, accountsPage, newAccountPage } from '../views/accounts.js';

export async function accountsSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.get('/', { config: { access: 'signed-in' } }, async (request, reply) => {
    const operator = signedIn(request);
    if (operator.administrator) return send(reply, 200, accountsPage({ operator }, await deps.accounts.list()));
    if (operator.accounts.length === 1) return seeOther(reply, membersPath(operator.accounts[0]!.account));
    return send(reply, 200, accountsPage({ operator }));
  });

  scope.get('/accounts/new', { config: { access: 'administrator' } }, async (request, reply) =>
    send(reply, 200, newAccountPage({ operator: signedIn(request) })),
  );

  scope.post('/accounts/new', { config: { access: 'administrator' } }, async (request, reply) => {
    const operator = signedIn(request);
    const name = (formOf(request).name ?? '').trim();
    const created = await deps.accounts.create(name);
    if (created.kind === 'created') return send(reply, 201, accountCreatedPage({ operator }, created.account, created.apiKey));
    const error = created.kind === 'name-taken' ? t('accountNameTaken') : created.setting === 'name' ? t('accountNameInvalid') : created.reason;
    return send(reply, created.kind === 'name-taken' ? 409 : 400, newAccountPage({ operator }, name, error));
  });
}
