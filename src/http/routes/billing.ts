/**
 * The payment providers' notifications: `POST /billing/ACCOUNT/stripe` (a Stripe webhook
 * endpoint) and `POST /billing/ACCOUNT/paypal` (PayPal's `notify_url`). The body is read as it
 * came (a signature, a postback, is over its exact bytes), in a scope with parsers of its own.
 * Answers: 200 applied, recorded, kept for later, or applied before; 400 not the provider's
 * (bad signature, PayPal did not confirm); 404 no such account; 503 when it cannot be checked or
 * written now, so that the provider retries.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AccountsService } from '../../accounts/accounts-service.js';
import type { BillingService } from '../../billing/billing-service.js';
import { NotAuthentic, PROVIDERS, ProviderUnavailable, type ProviderName } from '../../billing/billing.js';

/** Stripe's events are a few KiB; PayPal's IPN less. */
const NOTICE_BODY_LIMIT_BYTES = 256 * 1024;

export async function registerBillingRoutes(app: FastifyInstance, context: { accounts: AccountsService; billing: BillingService }): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: NOTICE_BODY_LIMIT_BYTES }, (_request: FastifyRequest, body: Buffer, done) => done(null, body));
    scope.post<{ Params: { account: string; provider: string } }>(
      '/billing/:account/:provider',
      { schema: { hide: true } },
      async (request, reply) => {
        const { provider } = request.params;
        if (!PROVIDERS.includes(provider as ProviderName)) return reply.code(404).send({ error: `no such provider: ${provider} (stripe or paypal)` });
        // Read once a second at most: a provider sends its notices in bursts.
        const account = await context.accounts.findRecent(request.params.account);
        if (!account) return reply.code(404).send({ error: 'no such account' });
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        try {
          const outcomes = await context.billing.receive(
            account,
            provider as ProviderName,
            { body, header: (name) => headerOf(request, name) },
            request.id,
          );
          return reply.code(200).send({ received: true, outcomes: outcomes.map((outcome) => ('outcome' in outcome ? { kind: outcome.kind, outcome: outcome.outcome } : { kind: outcome.kind })) });
        } catch (error) {
          if (error instanceof NotAuthentic) {
            request.log.warn({ account: account.name, provider, reason: error.message }, 'billing notice refused');
            return reply.code(400).send({ error: error.message });
          }
          if (error instanceof ProviderUnavailable) {
            request.log.warn({ account: account.name, provider, reason: error.message }, 'billing notice not checked');
            return reply.code(503).header('retry-after', '60').send({ error: error.message });
          }
          throw error;
        }
      },
    );
  });
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
