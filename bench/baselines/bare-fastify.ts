/**
 * Baseline: the least a Fastify server can do for one of our requests. `POST /bare/` parses
 * the same form body with the same parser (URLSearchParams, as the API does) and answers a
 * small JSON object; `GET /bare/check` reads one cookie of the Cookie header and answers 200
 * with an empty body and a member id header, as `/auth/ACCOUNT/check` answers a reverse proxy.
 * No authentication, no store, no logging.
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
app.get('/bare/check', async (request, reply) => {
  const cookie = request.headers.cookie ?? '';
  const session = /(?:^|; )member_[^=]+=([^;]*)/.exec(cookie)?.[1];
  if (!session) return reply.code(401).send();
  return reply.code(200).header('x-member-id', '1').send();
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void app.close().then(() => process.exit(0)));
