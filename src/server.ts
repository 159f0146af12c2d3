/**
 * The running server: builds the app over the services, listens, and stops cleanly on
 * SIGTERM/SIGINT (in-flight requests finish, then the store is closed).
 */
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

export async function startServer(config: Config): Promise<RunningServer> {
  const logger = createLogger(config.logLevel);
  // Where it listens is said whatever LOG_LEVEL is (standard output holds nothing but log lines).
  const notices = logger.child({}, { level: 'info' });
  const out = (line: string) => notices.info(line);
  let listeningAt = '';
  const services = await createServices(config, { publicUrl: () => config.publicUrl ?? listeningAt });
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
  const stopSweeping = scheduleSweeps(services, config, app.log);
  const stopMirroring = scheduleMirroring(services, app.log);
  const stopWebhooks = scheduleWebhooks(services, app.log);
  const stopMail = scheduleMail(services, app.log);
  const stopFolding = scheduleFolding(services, app.log);
  out(`member-api listening on ${address} (store: ${services.store.engine}); links use ${config.publicUrl ?? address}`);
  if (metricsServer) out(`metrics at ${metricsServer.address}`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // In-flight requests get this long to finish; then their connections are cut.
      stopSweeping();
      await stopMirroring();
      await stopWebhooks();
      await stopMail();
      await stopFolding();
      const force = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await metricsServer?.close();
      await services.sweeper.idle();
      await services.store.close();
    })());
  return { app, services, address, metricsAddress: metricsServer?.address, stop };
}

/** A port that cannot be listened on, said with the variables that chose it. */
function listenError(error: unknown, portVariable: string, port: number, hostVariable: string, host: string): Error {
  const code = (error as { code?: string }).code;
  const why = code === 'EADDRINUSE' ? 'is in use by another program' : code === 'EACCES' ? 'needs privileges this user lacks' : code === 'EADDRNOTAVAIL' ? `cannot be had on ${host}, which is not an address of this machine` : (error as Error).message;
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
  process.stderr.write(`Created account "demo" on this empty store. Its API key is in ${file} (readable by its owner only); delete the file once the key is kept elsewhere.\n`);
}


/** Runs the sweep now and every SWEEP_INTERVAL_SECONDS; returns how to stop it. */
function scheduleSweeps(services: Services, config: Config, log: FastifyInstance['log']): () => void {
  if (config.sweepIntervalSeconds === 0) return () => {};
  const run = () =>
    services.sweeper.sweep().then(
      (report) => {
        if (report && Object.values(report).some((n) => n > 0)) log.info({ sweep: report }, 'sweep');
      },
      (error: unknown) => log.warn({ err: error }, 'sweep failed; will try again'),
    );
  void run();
  const timer = setInterval(run, config.sweepIntervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** How often each server looks for writes to mirror to upstreams (one short query when there are none). */
const MIRROR_INTERVAL_MS = 1_000;

/** Sends the writes queued for upstreams, now and then; returns how to stop (waiting for a send in progress). */
function scheduleMirroring(services: Services, log: FastifyInstance['log']): () => Promise<void> {
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= services.upstream.mirror
      .drain()
      .then(
        (sent) => {
          if (sent > 0) log.info({ mirrored: sent }, 'writes mirrored to upstreams');
        },
        (error: unknown) => log.warn({ err: error }, 'mirroring writes failed; will try again'),
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(run, MIRROR_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/**
 * Sends webhooks every WEBHOOK_INTERVAL_MS: one round at a time (the dispatcher shares a round
 * asked for while one runs); the deliveries are rows, so a restart goes on where it stopped.
 */
function scheduleWebhooks(services: Services, log: FastifyInstance['log']): () => Promise<void> {
  const run = () => {
    services.webhooks.dispatcher.run().then(
      ({ delivered, failed }) => {
        if (failed > 0) log.warn({ delivered, failed }, 'webhook deliveries given up');
      },
      (error: unknown) => log.warn({ err: error }, 'webhook round failed; will try again'),
    );
  };
  const timer = setInterval(run, WEBHOOK_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await services.webhooks.dispatcher.idle();
    services.webhooks.sender.close();
  };
}

/** How often the count and usage deltas are folded (one short query when there are none). */
const FOLD_INTERVAL_MS = 1_000;

/** Folds the deltas of PostgreSQL's counters every FOLD_INTERVAL_MS (Sweeper.fold); returns how to stop. */
function scheduleFolding(services: Services, log: FastifyInstance['log']): () => Promise<void> {
  const run = () => {
    services.sweeper.fold().catch((error: unknown) => log.warn({ err: error }, 'folding counters failed; will try again'));
  };
  const timer = setInterval(run, FOLD_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await services.sweeper.idle();
  };
}

/** How often queued mails are looked for. */
const MAIL_INTERVAL_MS = 1_000;

/** Sends the queued mails every MAIL_INTERVAL_MS; they are rows, so a restart goes on where it stopped. */
function scheduleMail(services: Services, log: FastifyInstance['log']): () => Promise<void> {
  const run = () => {
    services.mailer.run().then(
      ({ sent, failed }) => {
        if (sent > 0) log.info({ sent }, 'mails sent');
        if (failed > 0) log.warn({ failed }, 'mails given up');
      },
      (error: unknown) => log.warn({ err: error }, 'mail round failed; will try again'),
    );
  };
  const timer = setInterval(run, MAIL_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await services.mailer.idle();
    services.mailer.close();
  };
}

/** After this long a stop that has not finished (a store that does not answer) exits anyway. */
const STOP_DEADLINE_MS = 30_000;
/** How often due webhook deliveries are looked for. */
const WEBHOOK_INTERVAL_MS = 500;

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
