/**
 * GET /healthz: the process is up and serving (for a liveness probe: restart it if not).
 * GET /readyz: the store answers too (for a readiness probe or a load balancer: send it
 * traffic only then). Neither takes parameters or touches an account.
 */
import type { FastifyInstance } from 'fastify';
import { errorBody, MESSAGES } from '../errors.js';
import { okReply } from '../replies.js';
import { ERROR_ANSWER, okAnswer } from '../schemas.js';

export interface HealthContext {
  /** Throws when the store cannot be reached now. */
  readonly ping: () => Promise<void>;
}

export const HEALTH_SCHEMAS = {
  healthz: { summary: 'Liveness: the process serves requests', tags: ['operations'], response: { 200: okAnswer({}, 'up') } },
  readyz: {
    summary: 'Readiness: the process serves requests and its store answers',
    tags: ['operations'],
    response: { 200: okAnswer({}, 'ready'), 503: { ...ERROR_ANSWER, description: `the store does not answer ("${MESSAGES.unavailable}"); with Retry-After` } },
  },
};

export function registerHealthRoutes(app: FastifyInstance, context: HealthContext): void {
  app.get('/healthz', { logLevel: 'warn', schema: HEALTH_SCHEMAS.healthz }, async () => okReply({}));
  app.get('/readyz', { logLevel: 'warn', schema: HEALTH_SCHEMAS.readyz }, async (_request, reply) => {
    try {
      await context.ping();
      return okReply({});
    } catch {
      return reply.code(503).header('retry-after', '1').send(errorBody(MESSAGES.unavailable));
    }
  });
}
