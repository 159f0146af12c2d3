/**
 * A second server of this project, listening on a real port, as the upstream a test account
 * moves from: it speaks the same API, on its own store (the same engine as the test's).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { appDependencies, servicesOver, type Services } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import type { SourceRow } from '../../src/import-export/importer.js';
import type { Engine } from '../../src/store/dialects/dialect.js';
import { createTestStore } from './engines.js';

export interface Upstream {
  /** The API's base as an operator gives it (ending in /api2). */
  readonly url: string;
  readonly user: string;
  readonly apiKey: string;
  readonly services: Services;
  /** Stops listening (the port stays this upstream's), and starts again. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
  post(endpoint: string, params: Record<string, string>): Promise<any>;
  /** Puts members in its store through its importer (rows of import columns; ids kept). */
  importRows(rows: ReadonlyArray<Record<string, string>>): Promise<void>;
}

/** htpasswd's {SHA} of a password: a hash the upstream verifies, made without argon2's cost. */
export function cheapHash(password: string): string {
  return `{SHA}${createHash('sha1').update(password).digest('base64')}`;
}

export async function startUpstream(engine: Engine): Promise<Upstream> {
  const { store, dispose } = await createTestStore(engine);
  const config = loadConfig({ KEY_FAILURE_LIMIT: '1000000', SWEEP_INTERVAL_SECONDS: '0' });
  const services = await servicesOver(store, { config });
  const created = await services.accounts.create('upstream-site', {});
  if (created.kind !== 'created') throw new Error('no upstream account');
  const account = created.account;
  let app: FastifyInstance | undefined;
  let port = 0;
  const start = async () => {
    app = await buildApp(appDependencies(services, config, { logger: false }));
    await app.listen({ host: '127.0.0.1', port });
    port = (app.server.address() as { port: number }).port;
  };
  await start();
  const url = `http://127.0.0.1:${port}/api2`;
  return {
    url,
    user: 'upstream-site',
    apiKey: created.apiKey,
    services,
    start,
    async stop() {
      await app?.close();
      app = undefined;
    },
    async close() {
      await app?.close();
      await dispose();
    },
    async post(endpoint, params) {
      const response = await fetch(`${url}/${endpoint}/`, {
        method: 'POST',
        body: new URLSearchParams({ user: 'upstream-site', api_key: created.apiKey, ...params }),
      });
      return response.json();
    },
    async importRows(rows) {
      async function* source(): AsyncIterable<SourceRow> {
        let line = 0;
        for (const row of rows) yield { line: ++line, values: new Map(Object.entries(row)) };
      }
      const summary = await services.importer.run(account, source(), { dryRun: false, keepIds: true });
      if (summary.rejected > 0) throw new Error(`upstream rows rejected: ${JSON.stringify(summary.reasons)}`);
    },
  };
}

/** A server that takes connections and never answers: an upstream that hangs. */
export async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/api2`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
