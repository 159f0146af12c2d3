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

const UP = { type: 'object', properties: { result: { type: 'string', const: 'OK' }, message: { type: 'string', const: '' } }, required: ['result', 'message'] };
const DOWN = { type: 'object', properties: { result: { type: 'string', const: 'ERROR' }, message: { type: 'string', const: MESSAGES.unavailable } }, required: ['result', 'message'] };

export const HEALTH_SCHEMAS = {
  healthz: { summary: 'Liveness: the process serves requests', tags: ['operations'], response: { 200: { ...UP, description: 'up' } } },
  readyz: {
    summary: 'Readiness: the process serves requests and its store answers',
    tags: ['operations'],
    response: { 200: { ...UP, description: 'ready' }, 503: { ...DOWN, description: 'the store does not answer; with Retry-After' } },
  },
};

export function registerHealthRoutes(app: FastifyInstance, context: HealthContext): void {
  app.get('/healthz', { logLevel: 'warn', schema: HEALTH_SCHEMAS.healthz }, async () => ({ result: 'OK', message: '' }));
  app.get('/readyz', { logLevel: 'warn', schema: HEALTH_SCHEMAS.readyz }, async (_request, reply) => {
    try {
      await context.ping();
      return { result: 'OK', message: '' };
    } catch {
      return reply.code(503).header('retry-after', '1').send(errorBody(MESSAGES.unavailable));
    }
  });
}
