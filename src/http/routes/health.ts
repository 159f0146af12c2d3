/**
 * GET /healthz: the process is up and serving (for a liveness probe: restart it if not).
 * GET /readyz: the store answers too (for a readiness probe or a load balancer: send it
 * traffic only then). Neither takes parameters or touches an account.
 */
import type { FastifyInstance } from 'fastify';
import { errorBody, MESSAGES } from '../errors.js';

export interface HealthContext {
  /** Throws when the store cannot be reached now. */
  readonly ping: () => Promise<void>;
}

export function registerHealthRoutes(app: FastifyInstance, context: HealthContext): void {
  app.get('/healthz', { logLevel: 'warn' }, async () => ({ result: 'OK', message: '' }));
  app.get('/readyz', { logLevel: 'warn' }, async (_request, reply) => {
    try {
      await context.ping();
      return { result: 'OK', message: '' };
    } catch {
      return reply.code(503).header('retry-after', '1').send(errorBody(MESSAGES.unavailable));
    }
  });
}
