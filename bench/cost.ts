/**
 * What one request costs, not only how many are answered: the server's CPU per request and, on
 * PostgreSQL, the primary's CPU, round trips and statements per request (bench/cpu.ts,
 * bench/pg-wire.ts), each beside its floor measured the same way: argon2id alone, the bare
 * driver's one statement for the same effect, a bare Fastify route. And the ceiling several
 * servers reach against one PostgreSQL primary.
 *
 * Each is measured for one or two builds (`--before REF` in bench/run.ts: the build of that
 * commit, beside this checkout's), taking turns round by round, medians kept: this machine's
 * speed drifts within minutes, and a comparison made minutes apart would measure the drift.
 */
import type { Engine } from '../src/store/dialects/dialect.js';
import { postgresCpu, processCpu, threadsCpu } from './cpu.js';
import { load, loadRequests, median, ROOT, runBaseline, serverHashingEnv, startListening, startServer, type LoadRequest, type Server } from './lib.js';
import { startPgWire, type PgWire, type WireCounts } from './pg-wire.js';

/** A build of the server: this checkout's, or an earlier commit's built beside it. */
export interface Build {
  readonly name: string;
  readonly bin: string;
}

/** One kind of request, as the bench sends it. */
export interface CostRow {
  readonly name: string;
  readonly path: string;
  readonly request: () => LoadRequest;
  readonly connections: number;
  /** Whatever must be done on a server before its requests count (sessions to check). */
  readonly prepare?: (url: string) => Promise<void>;
  /** Whether each request hashes a password (argon2id, on libuv's pool of threads). */
  readonly hashes?: boolean;
}

export interface Cost {
  /** Requests answered as expected per second, during the measure. */
  readonly perSecond: number;
  /** The server process's CPU (every thread), µs per request. */
  readonly serverMicros: number;
  /** Of it, the main thread's: the event loop (HTTP, the routes, the queries built and sent). */
  readonly eventLoopMicros: number;
  /**
   * Of it, the hashing threads' (libuv's pool, where argon2id runs), in a row whose requests
   * hash (hashingThreads).
   */
  readonly hashingMicros?: number;
  /** The server's CPU less its hashing threads': beyond argon2id. */
  readonly beyondHashingMicros?: number;
  /** Each thread's CPU, µs per request, by thread id. */
  readonly threads: ReadonlyMap<number, number>;
  /** Every PostgreSQL process's CPU, µs per request (PostgreSQL only). */
  readonly postgresMicros?: number;
  readonly roundTrips?: number;
  readonly statements?: number;
  /** Statements parsed: fewer than run when named statements are prepared once per connection. */
  readonly parses?: number;
}

/** A server of one build, its database reached through a counting proxy on PostgreSQL. */
interface Measured {
  readonly build: Build;
  readonly server: Server;
  readonly wire?: PgWire;
}

/** A process's CPU while `run` loads it, per request answered as expected (`ok`): all of it, and each thread's. */
async function cpuOver(name: string, pid: number, run: () => Promise<{ ok: number; perSecond: number }>): Promise<Cost & { ok: number }> {
  const threadsBefore = threadsCpu(pid);
  const before = processCpu(pid);
  const { ok, perSecond } = await run();
  if (ok === 0) throw new Error(`no request of ${name} answered as expected`);
  const serverMicros = (processCpu(pid) - before) / ok;
  const threads = new Map([...threadsCpu(pid)].map(([id, micros]) => [id, (micros - (threadsBefore.get(id) ?? 0)) / ok]));
  return { ok, perSecond, serverMicros, eventLoopMicros: threads.get(pid) ?? 0, threads };
}

/** Runs `load` and reads what it cost: the server's and PostgreSQL's CPU, the wire's counts. */
async function costOf(target: Measured, engine: Engine, run: () => Promise<{ ok: number; perSecond: number }>): Promise<Cost> {
  const wireBefore: WireCounts | undefined = target.wire && { ...target.wire.counts };
  const postgresBefore = engine === 'postgres' ? postgresCpu() : 0;
  const { ok, ...server } = await cpuOver(target.build.name, target.server.child.pid!, run);
  if (engine !== 'postgres' || !target.wire || !wireBefore) return server;
  const counts = target.wire.counts;
  return {
    ...server,
    postgresMicros: (postgresCpu() - postgresBefore) / ok,
    roundTrips: (counts.roundTrips - wireBefore.roundTrips) / ok,
    statements: (counts.statements - wireBefore.statements) / ok,
    parses: (counts.parses - wireBefore.parses) / ok,
  };
}

/**
 * The threads of a server that hash: those other than the event loop's that stayed idle while
 * it answered the rows that do not hash (under a hundredth of the event loop's CPU there), or
 * did not exist then. libuv's pool is where argon2id runs, and nothing else of these requests
 * uses it; V8's collector and SQLite's writer and readers work in every row. A thread idle in
 * every row (Node.js's signal watcher) is counted too, for the nothing it spends.
 */
function hashingThreads(pid: number, notHashing: readonly Cost[], hashing: readonly Cost[]): Set<number> {
  const spent = new Map<number, number>();
  for (const cost of notHashing) for (const [id, micros] of cost.threads) spent.set(id, (spent.get(id) ?? 0) + micros);
  const eventLoop = spent.get(pid) ?? 0;
  const seen = new Set(hashing.flatMap((cost) => [...cost.threads.keys()]));
  return new Set([...seen].filter((id) => id !== pid && (spent.get(id) ?? 0) < eventLoop / 100));
}

/** A cost with its hashing threads' share told apart: theirs, and the process's beyond them. */
function splitByHashing(cost: Cost, hashing: ReadonlySet<number>): Cost {
  const hashingMicros = [...hashing].reduce((sum, id) => sum + (cost.threads.get(id) ?? 0), 0);
  return { ...cost, hashingMicros, beyondHashingMicros: cost.serverMicros - hashingMicros };
}

/** The median of each figure of several measures. */
function medianCost(costs: readonly Cost[]): Omit<Cost, 'threads'> {
  const of = (pick: (cost: Cost) => number | undefined) => {
    const values = costs.map(pick).filter((value): value is number => value !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  return {
    perSecond: of((c) => c.perSecond)!,
    serverMicros: of((c) => c.serverMicros)!,
    eventLoopMicros: of((c) => c.eventLoopMicros)!,
    hashingMicros: of((c) => c.hashingMicros),
    beyondHashingMicros: of((c) => c.beyondHashingMicros),
    postgresMicros: of((c) => c.postgresMicros),
    roundTrips: of((c) => c.roundTrips),
    statements: of((c) => c.statements),
    parses: of((c) => c.parses),
  };
}

/** Starts a server of the build, on PostgreSQL behind a counting proxy. */
async function startMeasured(build: Build, engine: Engine, env: Record<string, string>): Promise<Measured> {
  const wire = engine === 'postgres' ? await startPgWire(env.DATABASE_URL!) : undefined;
  const server = await startServer({ ...env, ...(wire ? { DATABASE_URL: wire.url } : {}) }, build.bin);
  return { build, server, wire };
}

async function stopMeasured(measured: Measured): Promise<void> {
  await measured.server.stop();
  await measured.wire?.close();
}

/**
 * Each row's cost on each build: a server per build started once, the rows measured in
 * `rounds` rounds of `seconds` each, the builds taking turns (the first alternating), after
 * two seconds of each not counted.
 */
export async function measureCosts(
  engine: Engine,
  env: Record<string, string>,
  builds: readonly Build[],
  rows: readonly CostRow[],
  options: { seconds: number; rounds: number },
): Promise<Map<string, Map<string, Omit<Cost, 'threads'>>>> {
  const servers: Measured[] = [];
  try {
    for (const build of builds) servers.push(await startMeasured(build, engine, env));
    // Each row's measures by build, the rounds in order.
    const measures = new Map(rows.map((row) => [row.name, new Map<string, Cost[]>(builds.map((build) => [build.name, []]))]));
    for (const row of rows) {
      for (const target of servers) {
        await row.prepare?.(target.server.url);
        await loadRequests(`${target.server.url}${row.path}`, row.request, { connections: row.connections, seconds: 2 });
      }
      for (let round = 0; round < options.rounds; round++) {
        const order = round % 2 === 0 ? servers : [...servers].reverse();
        for (const target of order) {
          const cost = await costOf(target, engine, () =>
            loadRequests(`${target.server.url}${row.path}`, row.request, { connections: row.connections, seconds: options.seconds }),
          );
          measures.get(row.name)!.get(target.build.name)!.push(cost);
        }
      }
    }
    // The hashing threads' share of each row that hashes, once every row has shown which they are.
    for (const target of servers) {
      const notHashing = rows.filter((row) => row.hashes !== true).flatMap((row) => measures.get(row.name)!.get(target.build.name)!);
      if (notHashing.length === 0) continue;
      const hashingRows = rows.filter((row) => row.hashes === true);
      const hashing = hashingThreads(
        target.server.child.pid!,
        notHashing,
        hashingRows.flatMap((row) => measures.get(row.name)!.get(target.build.name)!),
      );
      // The threads that hash do so on every request; fewer than libuv's pool of four (or a
      // dozen: more than the server starts) would say that the rule above found others.
      const busy = [...hashing].filter((id) => hashingRows.every((row) => measures.get(row.name)!.get(target.build.name)!.every((cost) => (cost.threads.get(id) ?? 0) > 0)));
      console.log(`  (${target.build.name}: ${hashing.size} threads idle but in the rows that hash, ${busy.length} of them busy in every round of those)`);
      if (busy.length === 0 || hashing.size > 12) console.log(`  (${target.build.name}: the hashing threads are not as expected: their figures are doubtful)`);
      for (const row of hashingRows) {
        const costs = measures.get(row.name)!.get(target.build.name)!;
        costs.forEach((cost, i) => (costs[i] = splitByHashing(cost, hashing)));
      }
    }
    return new Map([...measures].map(([row, byBuild]) => [row, new Map([...byBuild].map(([name, costs]) => [name, medianCost(costs)]))]));
  } finally {
    for (const measured of servers) await stopMeasured(measured);
  }
}

/** A bare Fastify route that hashes as the server does, measured by thread as the server is, µs per request. */
export interface HashingFloor {
  /** Its CPU beyond its hashing threads'. */
  readonly beyondHashingMicros: number;
  /** Its event loop's CPU. */
  readonly eventLoopMicros: number;
}

/** The floors' costs: argon2id alone, the bare driver's statement, a bare Fastify route (alone, and with one argon2id). */
export interface Floors {
  /** CPU µs of one argon2id verification, and of one hash, with the server's parameters. */
  readonly verifyMicros: number;
  readonly hashMicros: number;
  /** The bare driver's durable one-field update: the client's CPU (on SQLite, all of it) and PostgreSQL's, µs each. */
  readonly update: { readonly clientMicros: number; readonly postgresMicros?: number };
  /** The bare driver's durable insert of a login's record. */
  readonly loginRecord: { readonly clientMicros: number; readonly postgresMicros?: number };
  /** A bare Fastify route parsing the same form body: the server's CPU per request. */
  readonly fastifyMicros: number;
  /**
   * The bare route that also verifies the form's password (`/bare/verify`), and the one that
   * hashes it (`/bare/hash`), with the server's argon2id, hashing slots and thread pool, at the
   * login row's concurrency: what a request that hashes costs beyond its hash with nothing of
   * this service around it.
   */
  readonly bareVerify: HashingFloor;
  readonly bareHash: HashingFloor;
}

/** What measureFloors is given: the loads and bodies of the rows the floors stand beside. */
export interface FloorSettings {
  readonly seconds: number;
  readonly slots: number;
  readonly connections: number;
  /** The form body of the bare route alone. */
  readonly body: () => string;
  /** The login row's concurrency; a body with the seeded password (`password`), and the create row's body (`_password`). */
  readonly hashing: { readonly connections: number; readonly verifyBody: () => string; readonly hashBody: () => string };
}

/** The floors measured `rounds` times, the median of each kept (one run of argon2id alone moved by a fifth between two). */
export async function measureFloors(
  engine: Engine,
  databaseUrl: string,
  members: number,
  settings: FloorSettings & { rounds: number },
): Promise<Floors> {
  const runs: Floors[] = [];
  for (let round = 0; round < settings.rounds; round++) runs.push(await measureFloorsOnce(engine, databaseUrl, members, settings));
  const of = (pick: (floors: Floors) => number | undefined) => {
    const values = runs.map(pick).filter((value): value is number => value !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  const postgres = engine === 'postgres';
  return {
    verifyMicros: of((f) => f.verifyMicros)!,
    hashMicros: of((f) => f.hashMicros)!,
    update: { clientMicros: of((f) => f.update.clientMicros)!, ...(postgres ? { postgresMicros: of((f) => f.update.postgresMicros) } : {}) },
    loginRecord: { clientMicros: of((f) => f.loginRecord.clientMicros)!, ...(postgres ? { postgresMicros: of((f) => f.loginRecord.postgresMicros) } : {}) },
    fastifyMicros: of((f) => f.fastifyMicros)!,
    bareVerify: { beyondHashingMicros: of((f) => f.bareVerify.beyondHashingMicros)!, eventLoopMicros: of((f) => f.bareVerify.eventLoopMicros)! },
    bareHash: { beyondHashingMicros: of((f) => f.bareHash.beyondHashingMicros)!, eventLoopMicros: of((f) => f.bareHash.eventLoopMicros)! },
  };
}

async function measureFloorsOnce(engine: Engine, databaseUrl: string, members: number, settings: FloorSettings): Promise<Floors> {
  const hashingEnv = serverHashingEnv(settings.slots);
  const argon2 = (kind: string) => runBaseline('argon2.ts', [kind, String(settings.slots), String(settings.seconds)], hashingEnv);
  const bare = async (statement: string) => {
    const before = engine === 'postgres' ? postgresCpu() : 0;
    const line = await runBaseline('bare-update.ts', [databaseUrl, String(members), String(settings.connections), String(settings.seconds)], {
      STATEMENT: statement,
    });
    return {
      clientMicros: line.cpuMicros!,
      ...(engine === 'postgres' ? { postgresMicros: (postgresCpu() - before) / line.done! } : {}),
    };
  };
  const verify = await argon2('verify');
  const hash = await argon2('hash');
  const update = await bare('update');
  const loginRecord = await bare('login-record');
  const fastify = await startListening([`--import`, 'tsx', `${ROOT}bench/baselines/bare-fastify.ts`], hashingEnv);
  try {
    const pid = fastify.child.pid!;
    const bareLoad = (path: string, body: () => string, connections: number, seconds: number) => load(`${fastify.url}${path}`, body, { connections, seconds });
    const alone = await cpuOver('the bare route', pid, () => bareLoad('/bare/', settings.body, settings.connections, settings.seconds));
    // Measured as the server's rows are: two seconds not counted, then its hashing threads
    // told apart by the same rule, against the route alone.
    const hashingFloor = async (path: string, body: () => string): Promise<HashingFloor> => {
      await bareLoad(path, body, settings.hashing.connections, 2);
      const cost = await cpuOver(`the bare ${path}`, pid, () => bareLoad(path, body, settings.hashing.connections, settings.seconds));
      const hashing = hashingThreads(pid, [alone], [cost]);
      // Each with what it spent: libuv's pool hashes, a thread of V8's idle while the route ran alone spends a little.
      const spent = [...hashing].map((id) => (cost.threads.get(id) ?? 0).toFixed(0));
      console.log(`  (the bare ${path}: the threads counted as hashing spent ${spent.join(', ')} µs per request)`);
      const split = splitByHashing(cost, hashing);
      return { beyondHashingMicros: split.beyondHashingMicros!, eventLoopMicros: split.eventLoopMicros };
    };
    return {
      verifyMicros: verify.cpuMicros!,
      hashMicros: hash.cpuMicros!,
      update,
      loginRecord,
      fastifyMicros: alone.serverMicros,
      bareVerify: await hashingFloor('/bare/verify', settings.hashing.verifyBody),
      bareHash: await hashingFloor('/bare/hash', settings.hashing.hashBody),
    };
  } finally {
    await fastify.stop();
  }
}

/**
 * The ceiling of one PostgreSQL primary: `servers` processes of the build, each given the same
 * share of the load, their answers per second summed, and the primary's CPU per request.
 */
export async function measureCeiling(
  env: Record<string, string>,
  build: Build,
  servers: number,
  row: Pick<CostRow, 'path' | 'request' | 'connections'>,
  seconds: number,
): Promise<{ perSecond: number; postgresMicros: number; postgresCores: number }> {
  const started: Server[] = [];
  try {
    for (let i = 0; i < servers; i++) started.push(await startServer(env, build.bin));
    const each = Math.max(1, Math.round(row.connections / servers));
    await Promise.all(started.map((server) => loadRequests(`${server.url}${row.path}`, row.request, { connections: each, seconds: 2 })));
    const before = postgresCpu();
    const begun = performance.now();
    const loads = await Promise.all(started.map((server) => loadRequests(`${server.url}${row.path}`, row.request, { connections: each, seconds })));
    const postgres = postgresCpu() - before;
    const elapsed = (performance.now() - begun) / 1000;
    const ok = loads.reduce((sum, answered) => sum + answered.ok, 0);
    return { perSecond: ok / elapsed, postgresMicros: postgres / ok, postgresCores: postgres / 1e6 / elapsed };
  } finally {
    for (const server of started) await server.stop();
  }
}
