/**
 * The running server: builds the app over the services, listens, and stops cleanly on
 * SIGTERM/SIGINT (in-flight requests finish, then the store is closed).
 */
import { StoreUnavailable } from './common/store-errors.js';
import { classifyPostgresError } from './store/dialects/postgres.js';
import { mkdirSync } from 'node:fs';
import { replaceWithPrivateFile } from './common/private-file.js';
import { dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { appDependencies, createMetrics, createServices, type Services } from './compose.js';
import type { Config } from './config.js';
import { createLogger } from './http/logging.js';
import { startMetricsServer, type MetricsServer } from './observability/metrics-server.js';
import { packageVersion } from './version.js';
import { startJobs, type BackgroundJob } from './upkeep/background-jobs.js';

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly services: Services;
  /** The address it listens on, e.g. http://127.0.0.1:8080. */
  readonly address: string;
  /** Where Prometheus reads the metrics, when METRICS_PORT is set. */
  readonly metricsAddress: string | undefined;
  stop(): Promise<void>;
}

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Runs `start` until it gets past a store that does not answer (refused, reset, shutting down,
 * read-only: a database still starting, a primary failing over), waiting a quarter second
 * and doubling up to 5 s between tries, for at most `waitMs`; any other error, or the last
 * one past the wait, is thrown as it is.
 */
export async function whenStoreAnswers<T>(start: () => Promise<T>, waitMs: number, waiting: (reason: string, retryMs: number) => void): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pause = 250; ; pause = Math.min(pause * 2, 5_000)) {
    try {
      return await start();
    } catch (error) {
      const unavailable = error instanceof StoreUnavailable || classifyPostgresError(error) === 'unavailable';
      if (!unavailable || Date.now() + pause > deadline) throw error;
      waiting(error instanceof Error ? error.message : String(error), pause);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Starts the server; `beforeAnnouncing` (signal handlers) is given it before it says where it listens. */
export async function startServer(config: Config, beforeAnnouncing?: (server: RunningServer) => void): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  // Where it listens is said whatever LOG_LEVEL is (standard output holds nothing but log lines).
  const notices = logger.child({}, { level: 'info' });
  const out = (line: string) => notices.info(line);
  let listeningAt = '';
  const services = await whenStoreAnswers(
    () => createServices(config, { publicUrl: () => config.publicUrl ?? listeningAt }),
    config.storeWaitSeconds * 1000,
    (reason, retryMs) =>
      logger.warn({ reason, retryInSeconds: retryMs / 1000 }, `the store does not answer yet; trying again (STORE_WAIT_SECONDS: ${config.storeWaitSeconds})`),
  );
  const demoKey = await services.accounts.ensureDemoAccount();
  if (demoKey) showDemoKey(demoKey, config.demoKeyFile);
  const metrics = config.metricsPort === undefined ? undefined : createMetrics(services);
  const app = await buildApp(appDependencies(services, config, { logger, metrics, version: packageVersion() }));
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await services.store.close();
    throw listenError(error, 'PORT', config.port, 'HOST', config.host);
  }
  let metricsServer: MetricsServer | undefined;
  try {
    if (metrics && config.metricsPort !== undefined) metricsServer = await startMetricsServer(metrics, config.metricsHost, config.metricsPort);
  } catch (error) {
    await app.close();
    await services.store.close();
    throw listenError(error, 'METRICS_PORT', config.metricsPort ?? 0, 'METRICS_HOST', config.metricsHost);
  }
  listeningAt = address;
  const stopJobs = startJobs(backgroundJobs(services, config), {
    log: app.log,
    exclusively: (name, work) => services.store.housekeeping.exclusively(name, work),
    observe: metrics && ((job, outcome, seconds) => metrics.observeJobRound(job, outcome, seconds)),
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await stopJobs();
      // In-flight requests get this long to finish; then their connections are cut.
      const force = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await metricsServer?.close();
      await services.store.close();
    })());
  const server = { app, services, address, metricsAddress: metricsServer?.address, stop };
  // Before it says it listens: whoever waits for that line may signal it at once.
  beforeAnnouncing?.(server);
  out(`member-api listening on ${address} (store: ${services.store.engine}); links use ${config.publicUrl ?? address}`);
  if (metricsServer) out(`metrics at ${metricsServer.address}`);
  if (config.publicUrl === undefined)
    logger.warn(
      `PUBLIC_URL is not set: members' mails link to ${address}, and mails to operators (invitations, registrations to approve) carry paths without an address. Set PUBLIC_URL to the address browsers use.`,
    );
  return server;
}

/** A port that cannot be listened on, said with the variables that chose it. */
function listenError(error: unknown, portVariable: string, port: number, hostVariable: string, host: string): Error {
  const code = (error as { code?: string }).code;
  const why =
    code === 'EADDRINUSE'
      ? 'is in use by another program'
      : code === 'EACCES'
        ? 'needs privileges this user lacks'
        : code === 'EADDRNOTAVAIL'
          ? `cannot be had on ${host}, which is not an address of this machine`
          : (error as Error).message;
  return new Error(`${portVariable}=${port} on ${hostVariable}=${host} ${why}`, { cause: error });
}

/**
 * The demo account's key is shown once, and never through the log stream (which may go to a
 * collector): on the terminal when there is one, else in a file only its owner can read.
 */
function showDemoKey(key: string, file: string): void {
  if (process.stderr.isTTY) {
    process.stderr.write(`Created account "demo" on this empty store. Its API key, shown only this once:\n\n  user=demo  api_key=${key}\n\n`);
    return;
  }
  mkdirSync(dirname(file), { recursive: true });
  // A new file (a link or an older file there is replaced, never written through).
  replaceWithPrivateFile(file, `user=demo api_key=${key}\n`);
  process.stderr.write(
    `Created account "demo" on this empty store. Its API key is in ${file} (readable by its owner only); delete the file once the key is kept elsewhere.\n`,
  );
}

/** How often each server looks for writes to mirror, counter deltas to fold and mails to send (one short query when there are none). */
const EVERY_SECOND_MS = 1_000;
/** How often kept payment notices are looked at for a member that now matches them. */
const BILLING_INTERVAL_MS = 10_000;
/** How often due webhook deliveries are looked for. */
const WEBHOOK_INTERVAL_MS = 500;

/**
 * The server's background jobs, all of them. The queues they drain are rows, so a restart goes
 * on where a stop left off.
 */
export function backgroundJobs(services: Services, config: Config): BackgroundJob[] {
  const jobs: BackgroundJob[] = [
    {
      // Due time expirations written down, what outlived its retention purged.
      name: 'sweep',
      intervalMs: config.sweepIntervalSeconds * 1000,
      runsOn: 'one server',
      atStart: true,
      changesMembers: true,
      run: async () => {
        const report = await services.sweeper.sweep();
        return Object.values(report).some((n) => n > 0) ? { level: 'info', fields: { sweep: report }, message: 'sweep' } : undefined;
      },
    },
    {
      // PostgreSQL's counter deltas folded into their totals (Sweeper.fold), so that the reads of them stay short.
      name: 'fold',
      intervalMs: EVERY_SECOND_MS,
      runsOn: 'every server',
      run: async () => {
        await services.sweeper.fold();
        return undefined;
      },
      close: () => services.sweeper.idle(),
    },
    {
      name: 'mirror',
      intervalMs: EVERY_SECOND_MS,
      runsOn: 'every server',
      run: async () => {
        const sent = await services.upstream.mirror.drain();
        return sent > 0 ? { level: 'info', fields: { mirrored: sent }, message: 'writes mirrored to upstreams' } : undefined;
      },
    },
    {
      name: 'webhooks',
      intervalMs: WEBHOOK_INTERVAL_MS,
      runsOn: 'every server',
      run: async () => {
        const { delivered, failed } = await services.webhooks.dispatcher.run();
        return failed > 0 ? { level: 'warn', fields: { delivered, failed }, message: 'webhook deliveries given up' } : undefined;
      },
      close: async () => {
        await services.webhooks.dispatcher.idle();
        services.webhooks.sender.close();
      },
    },
    {
      name: 'mail',
      intervalMs: EVERY_SECOND_MS,
      runsOn: 'every server',
      run: async () => {
        const { sent, failed } = await services.mailer.run();
        if (failed > 0) return { level: 'warn', fields: { sent, failed }, message: 'mails given up' };
        return sent > 0 ? { level: 'info', fields: { sent }, message: 'mails sent' } : undefined;
      },
      close: async () => {
        await services.mailer.idle();
        services.mailer.close();
      },
    },
    {
      // Kept payment notices applied once their member has appeared (BillingService.applyKept).
      name: 'billing',
      intervalMs: BILLING_INTERVAL_MS,
      runsOn: 'one server',
      changesMembers: true,
      run: async () => {
        const { applied, failed, error } = await services.billing.applyKept();
        if (failed > 0) return { level: 'warn', fields: { applied, failed, err: error }, message: 'kept payment notices not applied; tried again later' };
        return applied > 0 ? { level: 'info', fields: { applied }, message: 'kept payment notices applied' } : undefined;
      },
    },
  ];
  // SWEEP_INTERVAL_SECONDS=0 turns the sweep off.
  return jobs.filter((job) => job.intervalMs > 0);
}

/** After this long a stop that has not finished (a store that does not answer) exits anyway. */
const STOP_DEADLINE_MS = 30_000;
/** Stops the server on the first SIGTERM or SIGINT; a second one exits at once. */
export function stopOnSignals(server: RunningServer): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(1);
    signalled = true;
    server.app.log.info({ signal }, 'stopping: finishing in-flight requests');
    setTimeout(() => {
      server.app.log.error('stopping took too long; exiting');
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    server.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
