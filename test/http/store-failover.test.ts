/**
 * What a client sees of a PostgreSQL primary failing over (Patroni restarts the old primary
 * read-only for a moment, and the new one takes a while to answer): a write refused by a
 * read-only server is "store unavailable" (503, a warning), never an internal error; reads go
 * on; and /readyz answers at once, ready or not, while the store hangs.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { appDependencies, createMetrics, servicesOver } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/store.js';
import { createTestDatabase, engineAvailable } from '../support/engines.js';
import { CuttableProxy, proxyFor, throughProxy } from '../support/proxy.js';

async function appOver(url: string) {
  const store = openStore(url);
  await store.migrate();
  const services = await servicesOver(store, { publicUrl: 'http://localhost' });
  const app = await buildApp(appDependencies(services, loadConfig({}), { logger: false, metrics: createMetrics(services) }));
  return { store, services, app };
}

/** A new account of the app's store, and a form POST to the app with its name and key. */
async function accountOf(setup: Awaited<ReturnType<typeof appOver>>, name: string) {
  const created = await setup.services.accounts.create(name);
  if (created.kind !== 'created') throw new Error(created.kind);
  return (path: string, params: Record<string, string>) =>
    setup.app.inject({
      method: 'POST',
      url: path,
      payload: new URLSearchParams({ user: name, api_key: created.apiKey, ...params }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
}

describe.skipIf(!engineAvailable('postgres'))('a PostgreSQL failover, as a client sees it', () => {
  it('answers 503 "service unavailable" to a write on a read-only primary, and goes on reading', async () => {
    const database = await createTestDatabase('postgres', { migrated: true });
    const setup = await appOver(database.url);
    const post = await accountOf(setup, 'failover');
    expect((await post('/api2/create/', { _login: 'before', _email: 'before@example.com' })).json().result).toBe('OK');

    // Every new session of the database is read only, as on a primary restarted read-only, and
    // the server's connections are ended under it, as a failover ends them.
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`alter database "${name}" set default_transaction_read_only = on`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await post('/api2/create/', { _login: `during${attempt}`, _email: 'during@example.com' });
        expect(refused.statusCode).toBe(503);
        expect(refused.json()).toEqual({ result: 'ERROR', message: 'service unavailable' });
        expect(refused.headers['retry-after']).toBeDefined();
      }
      // Reads go on.
      const listed = await post('/api2/list/', { record: '{login}' });
      expect(listed.json().members).toEqual([{ login: 'before' }]);
      // Writable again (the new primary): writes go through with no restart.
      await admin.query(`alter database "${name}" reset default_transaction_read_only`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      await expect
        .poll(async () => (await post('/api2/create/', { _login: 'after', _email: 'after@example.com' })).json().result, { timeout: 10_000 })
        .toBe('OK');
    } finally {
      await admin.end();
      await setup.app.close();
      await setup.store.close().catch(() => {});
      await database.drop();
    }
  }, 30_000);

  it('makes a write whose connection was lost before its COMMIT once more, and answers one lost at its COMMIT as maybe applied', async () => {
    const database = await createTestDatabase('postgres', { migrated: true });
    const proxy = proxyFor(database.url);
    await proxy.open();
    const setup = await appOver(throughProxy(database.url, proxy));
    try {
      const post = await accountOf(setup, 'lost');
      const logins = async () => ((await post('/api2/list/', { record: '{login}' })).json().members as Array<{ login: string }>).map((m) => m.login);

      // Lost as the member's row is sent, inside its transaction: PostgreSQL rolls it back, so
      // the create runs again on another connection, and the member is made once.
      proxy.cutAt('insert into "members"');
      const again = await post('/api2/create/', { _login: 'again', _email: 'again@example.com' });
      expect(again.json()).toMatchObject({ result: 'OK' });
      expect(await logins()).toEqual(['again']);

      // Lost as its COMMIT is sent: the server may have committed (here it never got the
      // COMMIT), so the answer says so, and nothing runs it again.
      proxy.cutAt('commit', { after: 'insert into "members"' });
      const maybe = await post('/api2/create/', { _login: 'maybe', _email: 'maybe@example.com' });
      expect(maybe.statusCode).toBe(503);
      expect(maybe.json()).toEqual({ result: 'ERROR', message: 'service unavailable (the change may or may not have been applied)' });
      expect(maybe.headers['retry-after']).toBeDefined();
      expect(await logins()).toEqual(['again']);
      // The same for an update lost at its COMMIT; sent again with the same values, it is made.
      // (A change of a profile field writes its row of member_fields, and no "update members".)
      proxy.cutAt('commit', { after: 'insert into "member_fields"' });
      expect((await post('/api2/update/', { find_member_login: 'again', city: 'Oslo' })).json()).toEqual({
        result: 'ERROR',
        message: 'service unavailable (the change may or may not have been applied)',
      });
      expect((await post('/api2/update/', { find_member_login: 'again', city: 'Oslo' })).json()).toMatchObject({ result: 'OK', updated: 1 });
      expect((await post('/api2/list/', { record: '{login}{city}' })).json().members).toEqual([{ login: 'again', city: 'Oslo' }]);
    } finally {
      await setup.app.close();
      await setup.store.close().catch(() => {});
      await proxy.cut().catch(() => {});
      await database.drop();
    }
  }, 30_000);

  it('takes several hosts in DATABASE_URL, and with target_session_attrs=read-write connects only to one that takes writes', async () => {
    const database = await createTestDatabase('postgres');
    const name = new URL(database.url).pathname.slice(1);
    // A read-only twin of the database, reached through a proxy: a server that is up but
    // takes no writes (a standby, or a primary restarted read-only).
    const twin = `${name.slice(0, -1)}${name.endsWith('r') ? 's' : 'r'}`;
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`create database "${twin}"`);
    await admin.query(`alter database "${twin}" set default_transaction_read_only = on`);
    const { hostname, port } = new URL(database.url);
    const readOnly = new CuttableProxy({ host: hostname, port: Number(port || 5432) }, { from: name, to: twin });
    await readOnly.open();
    const closed = new CuttableProxy({ host: hostname, port: Number(port || 5432) });
    await closed.open();
    await closed.cut();
    const user = new URL(database.url).username;
    const urlOf = (hosts: string, query = '') => `postgres://${user}@${hosts}/${name}${query}`;
    const opened: Array<{ store: ReturnType<typeof openStore>; app: Awaited<ReturnType<typeof appOver>>['app'] }> = [];
    const creates = async (url: string, login: string) => {
      const setup = await appOver(url);
      opened.push(setup);
      const post = await accountOf(setup, `hosts-${login}`);
      return post('/api2/create/', { _login: login, _email: `${login}@example.com` });
    };
    try {
      // A host that refuses connections is passed over for the next.
      expect((await creates(urlOf(`127.0.0.1:${closed.port},${hostname}:${port || 5432}`), 'second')).json()).toMatchObject({ result: 'OK' });
      // Read-write asked: the read-only server first in the list is passed over too.
      const readWrite = urlOf(`127.0.0.1:${readOnly.port},${hostname}:${port || 5432}`, '?target_session_attrs=read-write');
      expect((await creates(readWrite, 'writable')).json()).toMatchObject({ result: 'OK' });
      expect((await admin.query('select login from members order by id')).rows.map((row: { login: string }) => row.login)).toEqual(['second', 'writable']);
      // Not asked, the first server that answers is used, read-only or not: the store there refuses the migration's writes.
      await expect(appOver(urlOf(`127.0.0.1:${readOnly.port},${hostname}:${port || 5432}`))).rejects.toThrow();
      expect(() => openStore(urlOf(`${hostname}:${port || 5432}`, '?target_session_attrs=standby'))).toThrow(
        'DATABASE_URL: target_session_attrs must be any or read-write, not "standby"',
      );
    } finally {
      for (const { app, store } of opened) {
        await app.close();
        await store.close().catch(() => {});
      }
      await readOnly.cut().catch(() => {});
      await admin.query(`drop database "${twin}" with (force)`);
      await admin.end();
      await database.drop();
    }
  }, 30_000);

  it('answers /readyz at once while the store hangs, and ready again once it answers', async () => {
    const database = await createTestDatabase('postgres', { migrated: true });
    const proxy = proxyFor(database.url);
    await proxy.open();
    const { store, app } = await appOver(throughProxy(database.url, proxy));
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      proxy.freeze();
      // The store never answers while frozen: an answer at all shows the probe did not wait for it.
      for (let probe = 0; probe < 3; probe++) {
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toEqual({ result: 'ERROR', message: 'service unavailable' });
      }
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      proxy.thaw();
      await expect.poll(async () => (await app.inject({ method: 'GET', url: '/readyz' })).statusCode, { timeout: 10_000 }).toBe(200);
    } finally {
      proxy.thaw();
      await app.close();
      await store.close().catch(() => {});
      await proxy.cut().catch(() => {});
      await database.drop();
    }
  }, 30_000);
});
