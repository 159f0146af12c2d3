/**
 * Baseline: the least a Fastify server can do for one of our requests. It parses the same
 * form body with the same parser (URLSearchParams, as the API does) and answers a small JSON
 * object; no authentication, no store, no logging.
 *
 *   node --import tsx bench/baselines/bare-fastify.ts     (prints "listening on URL")
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
  done(null, new URLSearchParams(body.toString()));
});
app.post('/bare/', async (request) => {
  const params = request.body as URLSearchParams;
  return { members: [{ id: '1', login: params.get('user') ?? '' }], members_total: 1 };
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void app.close().then(() => process.exit(0)));
