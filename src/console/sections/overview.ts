/**
 * The account's overview (every operator of the account): members by status, registrations
 * and logins per day over 30 days as charts, the members whose time expiration falls due in
 * the next 7 days, the last failed logins. What it shows comes from AccountOverview, which
 * reads counters and indexes only: it answers as fast at a million members as at ten.
 */
import type { FastifyInstance } from 'fastify';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { send } from '../replies.js';
import { overviewPage } from '../views/overview.js';

export async function overviewSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.get('/', { config: { access: 'viewer' } }, async (request, reply) => {
    const seen = onAccount(request);
    const overview = await deps.overview.of(seen.account);
    return send(reply, 200, overviewPage({ operator: seen.operator, account: seen.account.name }, seen.account.name, overview));
  });
}
