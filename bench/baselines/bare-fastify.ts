/**
 * Baseline: the least a Fastify server can do for one of our requests. `POST /bare/` parses
 * the same form body with the same parser (URLSearchParams, as the API does) and answers a
 * small JSON object; `GET /bare/check` reads one cookie of the Cookie header and answers 200
 * with an empty body and a member id header, as `/auth/ACCOUNT/check` answers a reverse proxy.
 * `POST /bare/verify` and `POST /bare/hash` add what `/login/` and `/create/` cannot do without:
 * one argon2id verification of the form's `password` against a stored hash, or one hash of it,
 * with the server's parameters, its native module and as many at once as its hashing slots
 * (`HASH_CONCURRENCY`, else one per core; the others wait their turn), on a thread pool of the
 * server's size. No authentication, no store, no logging.
 *
 *   node --import tsx bench/baselines/bare-fastify.ts     (prints "listening on URL")
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import Fastify from 'fastify';
import { createArgon2Hasher } from '../../src/auth/passwords.js';

const SLOTS = Number(process.env.HASH_CONCURRENCY) || availableParallelism();
/** The server's hasher, with its parameters. */
const argon2 = createArgon2Hasher();
/**
 * The hash of the seeded members' password (SEEDED_PASSWORD), made at the first verification
 * (the other routes' loads start nothing): a wrong password is answered 401, so a load of
 * wrong ones fails its measure.
 */
let stored: Promise<string> | undefined;

/** The hashing slots: `work` runs when one is free, in the order asked. */
let running = 0;
const waiting: Array<() => void> = [];
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < SLOTS) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
  done(null, new URLSearchParams(body.toString()));
});
app.post('/bare/', async (request) => {
  const params = request.body as URLSearchParams;
  return { members: [{ id: '1', login: params.get('user') ?? '' }], members_total: 1 };
});
app.post('/bare/verify', async (request, reply) => {
  const password = (request.body as URLSearchParams).get('password') ?? '';
  const hash = await (stored ??= argon2.hash('seeded-password'));
  if (!(await inTurn(() => argon2.verify(hash, password)))) return reply.code(401).send({ result: 'FAIL' });
  return { result: 'OK', session: randomBytes(24).toString('base64url') };
});
app.post('/bare/hash', async (request) => {
  const password = (request.body as URLSearchParams).get('_password') ?? '';
  await inTurn(() => argon2.hash(password));
  return { result: 'OK', id: '1' };
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
