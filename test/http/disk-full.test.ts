/**
 * A SQLite store whose disk fills up answers 503 with Retry-After, logs the real cause, and
 * keeps what it had. The disk is a small tmpfs the test mounts (as root, which CI is); where
 * mounting is not allowed the suite is skipped with a notice.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { appDependencies, servicesOver, type Services } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/http/logging.js';
import { openSqlite } from '../../src/store/dialects/sqlite.js';
import { storeOver } from '../../src/store/store.js';
import type { FastifyInstance } from 'fastify';

const dir = mkdtempSync(join(tmpdir(), 'member-api-full-'));
const mounted = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('*** cannot mount a tmpfs here (not root?): the full-disk test is SKIPPED ***');
    return false;
  }
})();

describe.skipIf(!mounted)('a full disk [sqlite]', () => {
  const connection = openSqlite(join(dir, 'members.db'));
  let log = '';
  let app: FastifyInstance;
  let services: Services;
  beforeAll(async () => {
    const store = storeOver(connection);
    await store.migrate();
    services = await servicesOver(store, { publicUrl: 'http://localhost' });
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => (log += chunk.toString()));
    app = await buildApp(appDependencies(services, loadConfig({}), { logger: createLogger('info', sink) }));
  });
  afterAll(async () => {
    await app.close();
    await services.store.close();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After and logs SQLITE_FULL, not "no transaction is active"', async () => {
    const created = await services.accounts.create('full-disk');
    if (created.kind !== 'created') throw new Error(created.kind);
    const create = (login: string, bio = 60_000) =>
      app.inject({
        method: 'POST',
        url: '/api2/create/',
        payload: new URLSearchParams({
          user: 'full-disk',
          api_key: created.apiKey,
          _login: login,
          _email: 'f@example.com',
          bio: 'x'.repeat(bio),
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const first = await create('first');
    expect(JSON.parse(first.body).result, first.body).toBe('OK');
    let full: Awaited<ReturnType<typeof create>> | undefined;
    for (let i = 0; i < 100 && !full; i++) {
      const reply = await create(`m${i}`);
      if (reply.statusCode !== 200) full = reply;
      else expect(JSON.parse(reply.body).result).toBe('OK');
    }
    expect(full?.statusCode).toBe(503);
    expect(full?.headers['retry-after']).toBe('1');
    expect(JSON.parse(full!.body)).toEqual({ result: 'ERROR', message: 'service unavailable' });
    expect(log).toMatch(/database or disk is full/);
    expect(log).not.toMatch(/no transaction is active/);
    // The room a refused member left, filled with smaller ones: where a large one no longer
    // fits, a smaller one may still, and the update below must find none.
    for (const bio of [8_000, 1_000]) {
      for (let i = 0; i < 100; i++) if ((await create(`s${bio}-${i}`, bio)).statusCode !== 200) break;
    }
    // An update runs in the writer's thread, in a group commit: the same answer, and the
    // member as it was.
    const update = await app.inject({
      method: 'POST',
      url: '/api2/update/',
      payload: new URLSearchParams({
        user: 'full-disk',
        api_key: created.apiKey,
        find_member_login: 'first',
        city: 'Oslo',
        notes: 'y'.repeat(60_000),
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(update.statusCode, update.body).toBe(503);
    expect(JSON.parse(update.body)).toEqual({ result: 'ERROR', message: 'service unavailable' });
    // What was acknowledged is there, and nothing of what was refused.
    const accountId = (await services.accounts.find('full-disk'))!.id;
    const kept = await services.store.members.findMemberByLogin(accountId, 'first');
    expect(kept).toBeDefined();
    expect((await services.store.members.findProfile(accountId, kept!.id)).get('city')).toBeUndefined();
  });
});
