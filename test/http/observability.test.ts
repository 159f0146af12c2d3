import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { appDependencies, createMetrics, servicesOver } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { startMetricsServer } from '../../src/observability/metrics-server.js';
import { describeEachEngineApp } from '../support/app.js';
import { createTestStore, ENGINES, engineAvailable } from '../support/engines.js';

const logLines: string[] = [];
const logTo = new PassThrough();
logTo.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));

/** The value of one sample of the exposition text, e.g. metric{a="b"}; 0 when absent. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`) || (labels === '' && l.startsWith(`${name} `)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describeEachEngineApp(
  'observability',
  (h) => {
    it('answers /healthz and /readyz while the store is up', async () => {
      const health = await h().request({ method: 'GET', url: '/healthz' });
      const ready = await h().request({ method: 'GET', url: '/readyz' });
      expect([health.status, health.json]).toEqual([200, { result: 'OK', message: '' }]);
      expect([ready.status, ready.json]).toEqual([200, { result: 'OK', message: '' }]);
    });

    it('gives every answer an X-Request-Id, keeps a tame one the client sent, and logs every line of the request with it', async () => {
      const made = await h().request({ method: 'GET', url: '/healthz' });
      expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const kept = await h().request({
        method: 'POST',
        url: '/api2/login/',
        payload: 'user=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'edge-42.a' },
      });
      expect(kept.headers['x-request-id']).toBe('edge-42.a');
      const wild = await h().request({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'a b\u00e9<script>' } });
      expect(wild.status).toBe(404);
      expect(wild.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const lines = logLines.map((l) => JSON.parse(l) as { reqId?: string; msg: string }).filter((l) => l.reqId === 'edge-42.a');
      expect(lines.map((l) => l.msg)).toContain('request completed');
    });

    it('counts requests per endpoint and outcome, and logins per outcome', async () => {
      const { user, apiKey } = await h().newAccount({ lockout: { threshold: 2 } });
      const metrics = h().metrics;
      const before = await metrics.registry.metrics();
      const created = await h().post('/api2/create/', { user, api_key: apiKey, _login: 'metered', _email: 'm@example.com', _password: 'correct-horse' });
      expect(created.json.result).toBe('OK');
      await h().post('/api2/login/', { user, login: 'metered', password: 'correct-horse' });
      for (let i = 0; i < 3; i++) await h().post('/api2/login/', { user, login: 'metered', password: 'wrong-horse' });
      await h().post('/api2/update/', { user, api_key: 'wrong', find_member_id: '1', email: 'x@example.com' });
      const after = await metrics.registry.metrics();
      const delta = (name: string, labels: string) => sample(after, name, labels) - sample(before, name, labels);
      expect(delta('member_api_logins_total', 'outcome="ok"')).toBe(1);
      expect(delta('member_api_logins_total', 'outcome="fail"')).toBe(2);
      expect(delta('member_api_logins_total', 'outcome="locked"')).toBe(1);
      expect(delta('member_api_request_duration_seconds_count', 'endpoint="/api2/login/",outcome="OK"')).toBe(1);
      expect(delta('member_api_request_duration_seconds_count', 'endpoint="/api2/login/",outcome="FAIL"')).toBe(3);
      expect(delta('member_api_request_duration_seconds_count', 'endpoint="/api2/create/",outcome="OK"')).toBe(1);
      expect(delta('member_api_request_duration_seconds_count', 'endpoint="/api2/update/",outcome="ERROR"')).toBe(1);
      expect(after).toMatch(/^member_api_store_connections \d+$/m);
      expect(after).toMatch(/^member_api_hashing_waiting 0$/m);
      expect(after).toMatch(/^member_api_hashing_refused_total \d+$/m);
      expect(after).toMatch(/^member_api_process_resident_memory_bytes \d+/m);
    });

    it("counts SQLite's group commits and the updates they carried (none on PostgreSQL)", async () => {
      const { user, apiKey } = await h().newAccount();
      expect((await h().post('/api2/create/', { user, api_key: apiKey, _login: 'grouped', _email: 'g@example.com' })).json.result).toBe('OK');
      const metrics = h().metrics;
      const before = await metrics.registry.metrics();
      const updates = await Promise.all(
        ['Oslo', 'Lima', 'Rome', 'Kyiv'].map((city) => h().post('/api2/update/', { user, api_key: apiKey, find_member_login: 'grouped', city })),
      );
      expect(updates.map((update) => update.json.result)).toEqual(['OK', 'OK', 'OK', 'OK']);
      const after = await metrics.registry.metrics();
      const delta = (name: string) => sample(after, name, '') - sample(before, name, '');
      if (h().database.engine === 'sqlite') {
        expect(delta('member_api_store_grouped_writes_total')).toBeGreaterThanOrEqual(4);
        expect(delta('member_api_store_group_commits_total')).toBeGreaterThanOrEqual(1);
        expect(delta('member_api_store_group_commits_total')).toBeLessThanOrEqual(delta('member_api_store_grouped_writes_total'));
      } else {
        expect(after).toMatch(/^member_api_store_group_commits_total 0$/m);
        expect(after).toMatch(/^member_api_store_grouped_writes_total 0$/m);
      }
    });

    it('serves the metrics on a port of their own', async () => {
      const server = await startMetricsServer(h().metrics, '127.0.0.1', 0);
      try {
        const answer = await fetch(server.address);
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        expect(await answer.text()).toContain('# TYPE member_api_request_duration_seconds histogram');
        expect((await fetch(server.address.replace('/metrics', '/other'))).status).toBe(404);
      } finally {
        await server.close();
      }
    });
  },
  { logTo },
);

for (const engine of ENGINES) {
  it.skipIf(!engineAvailable(engine))(`answers /readyz 503 (and /healthz 200) when the store is gone [${engine}]`, async () => {
    const { store, dispose } = await createTestStore(engine);
    const services = await servicesOver(store, { publicUrl: 'http://localhost' });
    const app = await buildApp(appDependencies(services, loadConfig({}), { logger: false, metrics: createMetrics(services) }));
    await store.close();
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ result: 'ERROR', message: 'service unavailable' });
    await app.close();
    await dispose().catch(() => {});
  });
}
