/**
 * Payment notifications applied: signed Stripe `invoice.paid` events sent to `member-api serve`
 * (`POST /billing/bench/stripe`) as Stripe sends them, 16 at a time, each for one of `customers`
 * paid members (made first by their `checkout.session.completed`), each a new event id and a
 * later period: every one is verified, recorded once and applied through the members' update.
 * Figures: events applied per second, each request's p50 and p99 in milliseconds, and the CPU
 * each event cost the server, (on PostgreSQL) the database and this load generator, in µs, read
 * from /proc (bench/cpu.ts: every PostgreSQL process of the machine, so nothing else may use it
 * meanwhile).
 *
 *   npx tsx bench/billing.ts [--events 5000] [--customers 500] [--engines sqlite,postgres]
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import Stripe from 'stripe';
import type { Engine } from '../src/store/dialects/dialect.js';
import { postgresCpu, processCpu } from './cpu.js';
import { analyzeDatabase, cli, databaseUrl, percentile, resetDatabase, startServer } from './lib.js';

const SECRET = 'whsec_bench_secret_0123456789';
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);

function signed(type: string, object: Record<string, unknown>, id: string): { body: string; signature: string } {
  const body = JSON.stringify({ id, object: 'event', created: Math.floor(Date.now() / 1000), type, data: { object } });
  return { body, signature: Stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET }) };
}

/** One POST on the agent's kept-alive connections: its status and body. */
function post(agent: Agent, url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      answer.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

/**
 * Sends each request, `IN_FLIGHT` at a time, on as many kept-alive connections; answers each
 * one's milliseconds (every answer must be 200). node:http, not fetch: the load generator shares
 * the two cores, and fetch cost it about 0.75 ms of CPU per notification, a fifth of all.
 */
async function sendAll(url: string, requests: ReadonlyArray<{ body: string; signature: string }>): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const target = new URL(url);
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const sent = requests[next++]!;
      const started = performance.now();
      const answer = await post(agent, target, { 'content-type': 'application/json', 'stripe-signature': sent.signature }, sent.body);
      if (answer.status !== 200 || !answer.text.includes('"applied"')) throw new Error(`answered ${answer.status}: ${answer.text}`);
      times.push(performance.now() - started);
    }
  };
  try {
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    agent.destroy();
  }
  return times;
}

export async function measureBilling(engine: Engine, events: number, customers: number): Promise<{ perSecond: number; p50: number; p99: number; serverCpu: number; databaseCpu: number | undefined; loadCpu: number }> {
  await resetDatabase(engine, 'billing');
  const env = { DATABASE_URL: databaseUrl(engine, 'billing') };
  cli(['account', 'create', 'bench'], env);
  cli(['billing', 'set', 'bench', '--stripe-secret-key', 'sk_test_bench_0000', '--stripe-webhook-secret', SECRET], env);
  cli(['plan', 'add', 'bench', 'gold', '--stripe-price', 'price_gold', '--grace', '3d', '--field', 'plan=gold'], env);
  // STRIPE_API_URL nowhere: the events say all they need, and the API is never asked.
  const server = await startServer({ ...env, STRIPE_API_URL: 'http://127.0.0.1:9' });
  try {
    const url = `${server.url}/billing/bench/stripe`;
    const start = Math.floor(Date.now() / 1000);
    const period = (n: number) => start + (n + 1) * 30 * 86_400;
    await sendAll(
      url,
      Array.from({ length: customers }, (_, c) =>
        signed(
          'checkout.session.completed',
          { id: `cs_${c}`, mode: 'subscription', payment_status: 'paid', customer: `cus_${c}`, subscription: `sub_${c}`, customer_details: { email: `payer${c}@example.com` }, metadata: { plan: 'gold' } },
          `evt_checkout_${c}`,
        ),
      ),
    );
    if (engine === 'postgres') await analyzeDatabase('billing');
    const renewals = Array.from({ length: events }, (_, n) => {
      const c = n % customers;
      const round = Math.floor(n / customers);
      return signed(
        'invoice.paid',
        {
          id: `in_${c}_${round}`,
          customer: `cus_${c}`,
          amount_paid: 900,
          currency: 'usd',
          parent: { subscription_details: { subscription: `sub_${c}` } },
          lines: { data: [{ period: { end: period(round) }, pricing: { price_details: { price: 'price_gold' } }, quantity: 1 }] },
        },
        `evt_renewal_${n}`,
      );
    });
    const cpu = () => ({ server: processCpu(server.child.pid!), database: engine === 'postgres' ? postgresCpu() : 0 });
    const cpuBefore = cpu();
    const clientBefore = processCpu(process.pid);
    const started = performance.now();
    const times = await sendAll(url, renewals);
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpu();
    const clientAfter = processCpu(process.pid);
    return {
      perSecond: events / seconds,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      serverCpu: (cpuAfter.server - cpuBefore.server) / events,
      databaseCpu: engine === 'postgres' ? (cpuAfter.database - cpuBefore.database) / events : undefined,
      loadCpu: (clientAfter - clientBefore) / events,
    };
  } finally {
    await server.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { events: { type: 'string', default: '5000' }, customers: { type: 'string', default: '500' }, engines: { type: 'string', default: 'sqlite,postgres' } },
  });
  for (const engine of values.engines!.split(',') as Engine[]) {
    const figures = await measureBilling(engine, Number(values.events), Number(values.customers));
    const database = figures.databaseCpu === undefined ? '' : `, PostgreSQL ${Math.round(figures.databaseCpu)} µs`;
    console.log(
      `${engine}: ${Math.round(figures.perSecond)} payment notifications applied/s, p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms; CPU per notification: server ${Math.round(figures.serverCpu)} µs${database}, load generator ${Math.round(figures.loadCpu)} µs`,
    );
  }
  process.exit(0);
}
