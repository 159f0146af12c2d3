/**
 * The server's background jobs, run by one loop: each job is a name, an interval, where it
 * runs (on one server of those sharing a store at a time, or on every server) and one round of
 * work. A round never overlaps the job's previous one; a round that fails is logged and tried
 * again at the next interval. Stopping waits for the rounds in progress, then lets each job
 * close what it holds. Every round is counted, by job and outcome, in the metrics.
 */
import { accountScope } from '../common/account-scope.js';

/** What a round did, for the log: nothing said when it did nothing. */
export interface RoundReport {
  readonly level: 'info' | 'warn';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

export interface BackgroundJob {
  /** Also the name of the store-wide lock of a job that runs on one server at a time. */
  readonly name: string;
  readonly intervalMs: number;
  /**
   * `one server`: of the servers sharing a store, one runs a round at a time (a lock in the
   * store; the others skip that round); `every server`: each runs its own.
   */
  readonly runsOn: 'one server' | 'every server';
  /** Whether the first round runs at start rather than after the first interval. */
  readonly atStart?: boolean;
  /**
   * Whether its writes change what lists and exports read (members and their fields: the
   * sweep). Those of the other jobs (their queues, leases, counters folded) do not: their rounds
   * run in an account scope of their own, empty, so that their writes send no account's reads
   * from the standbys to the primary (read-your-writes: store/dialects/postgres-replicas.ts).
   */
  readonly changesMembers?: boolean;
  /** One round of the work; what it reports is logged. */
  run(): Promise<RoundReport | undefined>;
  /** After the last round: waits for work the job's own service may still run, and lets go of what it holds. */
  close?(): void | Promise<void>;
}

/**
 * How a round ended: `skipped` when another server held the job's lock; `busy` when its
 * interval came while the job's previous round still ran (none is started then).
 */
export type RoundOutcome = 'ok' | 'failed' | 'skipped' | 'busy';

export interface JobLoopDependencies {
  readonly log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
  /** Runs the work unless another server holds the lock of that name (then undefined). */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined>;
  /** Told of every round (the metrics, when they are on). */
  readonly observe?: (job: string, outcome: RoundOutcome, seconds: number) => void;
}

/** Runs one round of the job (under its lock when it runs on one server at a time), logs what it reports, and says how it ended. */
export async function runRound(job: BackgroundJob, deps: JobLoopDependencies): Promise<RoundOutcome> {
  const started = performance.now();
  let outcome: RoundOutcome;
  const work = job.changesMembers ? () => job.run() : () => accountScope.run(() => job.run());
  try {
    const done =
      job.runsOn === 'one server' ? await deps.exclusively(`member-api:${job.name}`, async () => ({ report: await work() })) : { report: await work() };
    if (done?.report) deps.log[done.report.level](done.report.fields, done.report.message);
    outcome = done ? 'ok' : 'skipped';
  } catch (error) {
    deps.log.warn({ err: error, job: job.name }, `${job.name} failed; will try again`);
    outcome = 'failed';
  }
  deps.observe?.(job.name, outcome, (performance.now() - started) / 1000);
  return outcome;
}

/** Starts every job's timer; the function returned stops them all and waits for their last rounds. */
export function startJobs(jobs: readonly BackgroundJob[], deps: JobLoopDependencies): () => Promise<void> {
  const running = new Map<string, Promise<unknown>>();
  const round = (job: BackgroundJob) => {
    // A round never overlaps the job's previous one (a round that hangs shows as `busy`).
    if (running.has(job.name)) {
      deps.observe?.(job.name, 'busy', 0);
      return;
    }
    running.set(
      job.name,
      runRound(job, deps).finally(() => running.delete(job.name)),
    );
  };
  const timers = jobs.map((job) => {
    if (job.atStart) round(job);
    const timer = setInterval(() => round(job), job.intervalMs);
    timer.unref();
    return timer;
  });
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await Promise.all(running.values());
    // Each job lets go of what it holds, whatever another's close did.
    for (const job of jobs) {
      try {
        await job.close?.();
      } catch (error) {
        deps.log.warn({ err: error, job: job.name }, `${job.name}: closing failed`);
      }
    }
  };
}
