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

/**
 * How long /readyz waits for the store: a probe must answer fast, ready or not (a store that
 * hangs, as a primary does while it fails over, would otherwise hold every probe).
 */
export const READY_WITHIN_MS = 100;

export const HEALTH_SCHEMAS = {
  healthz: { summary: 'Liveness: the process serves requests', tags: ['operations'], response: { 200: okAnswer({}, 'up') } },
  readyz: {
    summary: `Readiness: the process serves requests and its store answers within ${READY_WITHIN_MS} ms`,
    tags: ['operations'],
    response: { 200: okAnswer({}, 'ready'), 503: { ...ERROR_ANSWER, description: `the store does not answer ("${MESSAGES.unavailable}"); with Retry-After` } },
  },
};

export function registerHealthRoutes(app: FastifyInstance, context: HealthContext): void {
  // One ping at a time: probes that come while the store hangs share the one under way,
  // rather than each queueing for a connection of its own.
  let pinging: Promise<boolean> | undefined;
  const storeAnswers = () =>
    (pinging ??= context
      .ping()
      .then(
        () => true,
        () => false,
      )
      .finally(() => (pinging = undefined)));

  app.get('/healthz', { logLevel: 'warn', schema: HEALTH_SCHEMAS.healthz }, async () => okReply({}));
  app.get('/readyz', { logLevel: 'warn', schema: HEALTH_SCHEMAS.readyz }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), READY_WITHIN_MS)));
    const ready = await Promise.race([storeAnswers(), late]).finally(() => clearTimeout(timer));
    if (ready) return okReply({});
    return reply.code(503).header('retry-after', '1').send(errorBody(MESSAGES.unavailable));
  });
}
