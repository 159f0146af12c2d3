/**
 * Durability, tested by killing the real server process with SIGKILL (no chance to flush or
 * close anything) and starting it again on the same store.
 * DURABILITY_ROUNDS repeats the first test (npm run reliability uses more rounds).
 */
import { describe, expect, it } from 'vitest';
import SqliteDatabase from 'better-sqlite3';
import { seedMembers } from '../../bench/seed-members.js';
import { exitOf, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { figure } from '../support/report.js';

const ROUNDS = Number(process.env.DURABILITY_ROUNDS ?? 1);

async function post(url: string, params: Record<string, string>): Promise<any> {
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(params) });
  return response.json();
}

async function listAll(url: string, key: string, record: string): Promise<Array<Record<string, string>>> {
  const reply = await post(`${url}/api2/list/`, { user: 'demo', api_key: key, record, status: 'A' });
  return reply.members;
}

function sqliteIntegrity(database: TestDatabase): string {
  const db = new SqliteDatabase(database.url, { readonly: true });
  try {
    return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join(',');
  } finally {
    db.close();
  }
}

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`durability [${engine}]`, () => {
    it(`keeps every acknowledged create and update across SIGKILL during concurrent writes (${ROUNDS} round${ROUNDS > 1 ? 's' : ''})`, async () => {
      const database = await createTestDatabase(engine);
      const acknowledgedCreates = new Set<string>();
      const acknowledgedUpdates = new Map<string, number>();
      try {
        let server = await startServe({ DATABASE_URL: database.url });
        const key = server.demoKey();
        for (let round = 0; round < ROUNDS; round++) {
          let running = true;
          const worker = async (id: number) => {
            for (let n = 0; running; n++) {
              const login = `r${round}-w${id}-${n}`;
              try {
                const created = await post(`${server.url}/api2/create/`, {
                  user: 'demo',
                  api_key: key,
                  _login: login,
                  _email: 'd@example.com',
                  _password: 'durable-horse',
                });
                if (created.result === 'OK') acknowledgedCreates.add(login);
                const updated = await post(`${server.url}/api2/update/`, { user: 'demo', api_key: key, find_member_login: login, seq: String(n) });
                if (updated.result === 'OK') acknowledgedUpdates.set(login, n);
              } catch {
                return; // The server is gone.
              }
            }
          };
          const workers = Array.from({ length: 8 }, (_, id) => worker(id));
          await new Promise((r) => setTimeout(r, 1500));
          server.child.kill('SIGKILL');
          running = false;
          await Promise.all(workers);
          await exitOf(server.child);
          if (engine === 'sqlite') expect(sqliteIntegrity(database)).toBe('ok');
          server = await startServe({ DATABASE_URL: database.url });
        }
        expect(acknowledgedCreates.size).toBeGreaterThan(0);
        const members = new Map((await listAll(server.url, key, '{login}{seq}')).map((m) => [m.login!, m.seq!]));
        const lostCreates = [...acknowledgedCreates].filter((login) => !members.has(login));
        const lostUpdates = [...acknowledgedUpdates].filter(([login, n]) => members.get(login) !== String(n));
        figure(`durability [${engine}] SIGKILL rounds`, ROUNDS);
        figure(`durability [${engine}] acknowledged creates / updates checked`, `${acknowledgedCreates.size} / ${acknowledgedUpdates.size}`);
        figure(`durability [${engine}] lost creates / updates`, `${lostCreates.length} / ${lostUpdates.length}`);
        expect(lostCreates).toEqual([]);
        expect(lostUpdates).toEqual([]);
        server.child.kill('SIGTERM');
        await exitOf(server.child);
      } finally {
        await database.drop();
      }
    }, 600_000);

    it('leaves all members changed or none when an update of every member is killed midway', async () => {
      const database = await createTestDatabase(engine);
      try {
        // First start creates the demo account (id 1); then 30,000 members are loaded into it.
        const first = await startServe({ DATABASE_URL: database.url });
        const key = first.demoKey();
        first.child.kill('SIGTERM');
        await exitOf(first.child);
        await seedMembers(database.url, 1, { count: 30_000 });

        const server = await startServe({ DATABASE_URL: database.url, LOG_LEVEL: 'debug', SWEEP_INTERVAL_SECONDS: '0' });
        let answered = false;
        const update = post(`${server.url}/api2/update/`, { user: 'demo', api_key: key, find_member_id: '*', batch: 'v1', status: 'S' }).then(
          () => (answered = true),
          () => undefined,
        );
        while (!server.output().includes('"url":"/api2/update/"')) await new Promise((r) => setTimeout(r, 2));
        await new Promise((r) => setTimeout(r, 150));
        server.child.kill('SIGKILL');
        await update;
        await exitOf(server.child);
        // The kill must have landed before the answer, or this test proves nothing.
        expect(answered).toBe(false);
        if (engine === 'sqlite') expect(sqliteIntegrity(database)).toBe('ok');

        const again = await startServe({ DATABASE_URL: database.url, SWEEP_INTERVAL_SECONDS: '0' });
        const count = async (params: Record<string, string>) =>
          (await post(`${again.url}/api2/list/`, { user: 'demo', api_key: key, record: '{id}', limit: '0', ...params })).members_total as number;
        const changed = await count({ 'profile:batch': 'v1' });
        const suspended = await count({ status: 'S' });
        const active = await count({ status: 'A' });
        figure(`durability [${engine}] update of 30,000 members killed midway: members changed`, changed);
        if (changed === 0) {
          // Nothing of the update happened: the seeded Suspended members (~3%) are all there is.
          expect(active).toBeGreaterThan(25_000);
          expect(suspended).toBeLessThan(2_000);
        } else {
          expect(active).toBe(0);
          expect(changed).toBe(suspended);
        }
        again.child.kill('SIGTERM');
        await exitOf(again.child);
      } finally {
        await database.drop();
      }
    }, 120_000);
  });
}
