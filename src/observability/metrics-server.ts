/**
 * The metrics endpoint on a port of its own (METRICS_PORT), so that it can be left off the
 * public interface: Prometheus scrapes it on the private network, clients never see it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.js';

export interface MetricsServer {
  readonly address: string;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: try GET /metrics\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? undefined : body),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
    );
  });
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = server.address() as AddressInfo;
  return {
    address: `http://${address.includes(':') ? `[${address}]` : address}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
