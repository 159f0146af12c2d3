/** Shared by the benchmark scripts: databases, servers started as users start them, RSS readings. */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Engine } from '../src/store/dialects/dialect.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = `${ROOT}bin/member-api.js`;
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The database URL a benchmark uses on an engine, under a name of its own. */
export function databaseUrl(engine: Engine, name: string): string {
  if (engine === 'sqlite') return `${ROOT}.bench/${name}.db`;
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/member_api_${name}`;
  return url.toString();
}

/** Removes the benchmark database and creates it empty. */
export async function resetDatabase(engine: Engine, name: string): Promise<void> {
  if (engine === 'sqlite') {
    mkdirSync(`${ROOT}.bench`, { recursive: true });
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${databaseUrl('sqlite', name)}${suffix}`, { force: true });
    return;
  }
  await onPostgres(POSTGRES_ADMIN_URL, async (client) => {
    await client.query(`drop database if exists member_api_${name} with (force)`);
    await client.query(`create database member_api_${name}`);
  });
}

/** Runs `work` on a connection of its own to the database at `url`, closed after. */
async function onPostgres(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL: the statistics of a bench's database made current, as a live installation has
 * them (autovacuum analyzes a table within a minute of its growth, the sweep where autovacuum
 * is behind). A statement a server planned while a table was new keeps a plan made for an
 * empty table until then: a bench that fills a table and measures at once would measure that
 * first minute, not the service.
 */
export async function analyzeDatabase(name: string): Promise<void> {
  await onPostgres(databaseUrl('postgres', name), async (client) => {
    await client.query('analyze');
  });
}

/** Runs the command line, as a user would, and returns its standard output. */
export function cli(args: string[], env: Record<string, string>): string {
  return execFileSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
}

export function build(): void {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

export interface Server {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** The server's hashing slots and the thread pool it sizes for them (bin/member-api.js), for a baseline that hashes as it does. */
export function serverHashingEnv(slots: number): Record<string, string> {
  return { HASH_CONCURRENCY: String(slots), UV_THREADPOOL_SIZE: String(Math.max(4, slots + 2)) };
}

/** Runs a baseline program of bench/baselines/ and answers the one JSON line it prints. */
export async function runBaseline(script: string, args: readonly string[], env: Record<string, string> = {}): Promise<Record<string, number>> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${ROOT}bench/baselines/${script}`, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  return JSON.parse(output) as Record<string, number>;
}

/** Node.js's CPU profile of each server a bench starts, written to BENCH_CPU_PROFILES (a folder) when it stops. */
const PROFILING = process.env.BENCH_CPU_PROFILES ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROFILES] : [];

/** Starts `member-api serve` as a user does, on a free port (of this checkout, or of the build at `bin`). */
export function startServer(env: Record<string, string>, bin = BIN): Promise<Server> {
  return startListening([...PROFILING, bin, 'serve'], { PORT: '0', LOG_LEVEL: 'warn', ...env });
}

/** Starts a Node.js program that prints "listening on URL", and waits for that line. */
export async function startListening(args: string[], env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${args.join(' ')} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident memory of a process, now and at its peak, in MiB (Linux). */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** The middle value; with an even count, the mean of the two middle values. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const form = { 'content-type': 'application/x-www-form-urlencoded' };

export interface Load {
  readonly perSecond: number;
  readonly ok: number;
  readonly refused: number;
  readonly errors: number;
  readonly p50: number;
  readonly p99: number;
}

export interface LoadSettings {
  readonly connections: number;
  readonly seconds?: number;
  readonly overallRate?: number;
  /** The answers that count (`ok`, `perSecond`): 2xx unless said; every other answer is `refused`. */
  readonly expect?: '2xx' | '3xx';
}

/** One request of a load. */
export interface LoadRequest {
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** autocannon against one path, with a fresh form body per request (POST). */
export function load(url: string, body: () => string, settings: LoadSettings): Promise<Load> {
  return loadRequests(url, () => ({ method: 'POST', headers: form, body: body() }), settings);
}

/** autocannon against one path, with a fresh request (method, headers, body) each time. */
export async function loadRequests(url: string, request: () => LoadRequest, settings: LoadSettings): Promise<Load> {
  const result = await autocannon({
    url,
    connections: settings.connections,
    duration: settings.seconds ?? 8,
    overallRate: settings.overallRate,
    requests: [
      {
        setupRequest: (base) => {
          const next = request();
          // A copy of the headers: autocannon writes the body's Content-Length into the object
          // it is given, and `form`, shared with the fetches, would then carry a stale one.
          return { ...base, ...next, headers: { ...next.headers } };
        },
      },
    ],
  });
  const seconds = result.duration;
  const ok = result[settings.expect ?? '2xx'];
  const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  return {
    perSecond: ok / seconds,
    ok,
    refused: answered - ok,
    errors: result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

