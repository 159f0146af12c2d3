import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import type { Engine } from '../../src/store/dialects/dialect.js';
import { createPostgresDatabase } from './postgres.js';

/** Both, unless TEST_ENGINES names some (`postgres` alone: the API's suite on a stack with a standby, scripts/test-on-replica.ts). */
export const ENGINES: readonly Engine[] = (process.env.TEST_ENGINES?.split(',') as Engine[] | undefined) ?? ['sqlite', 'postgres'];

export interface TestDatabase {
  readonly engine: Engine;
  /** What DATABASE_URL would be for this database. */
  readonly url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the engine: a SQLite file in a temp folder, or a PostgreSQL database. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'postgres') {
    const database = await createPostgresDatabase();
    return { engine, ...database };
  }
  const dir = mkdtempSync(join(tmpdir(), 'member-api-test-'));
  return { engine, url: join(dir, 'members.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * With TEST_POSTGRES_REPLICA_URL (a standby of TEST_POSTGRES_URL's server), the test
 * database on that standby: stores read from it as a server with DATABASE_REPLICA_URLS does.
 */
export function replicaUrlOf(database: TestDatabase): string | undefined {
  const standby = process.env.TEST_POSTGRES_REPLICA_URL;
  if (!standby || database.engine !== 'postgres') return undefined;
  const url = new URL(standby);
  url.pathname = new URL(database.url).pathname;
  return url.toString();
}

/** A migrated store on a fresh database, and how to throw both away. */
export async function createTestStore(engine: Engine): Promise<{ store: Store; database: TestDatabase; dispose(): Promise<void> }> {
  const database = await createTestDatabase(engine);
  const replica = replicaUrlOf(database);
  const store = openStore(database.url, { replicaUrls: replica ? [replica] : undefined });
  await store.migrate();
  return {
    store,
    database,
    async dispose() {
      // Where this store's reads went, for `npm run test:replica` to sum up.
      const reads = store.poolStats().replicas?.reads;
      if (reads && process.env.TEST_REPLICA_READS_FILE) appendFileSync(process.env.TEST_REPLICA_READS_FILE, `${JSON.stringify(reads)}\n`);
      await store.close();
      await database.drop();
    },
  };
}

export function engineAvailable(engine: Engine): boolean {
  return engine !== 'postgres' || inject('postgresUnavailable') === '';
}

/**
 * Runs the same suite once per engine, each on its own fresh store. The PostgreSQL run is
 * skipped only when the global set-up found no server and CI is not set.
 */
export function describeEachEngine(title: string, body: (context: () => { store: Store; database: TestDatabase }) => void): void {
  for (const engine of ENGINES) {
    describe.skipIf(!engineAvailable(engine))(`${title} [${engine}]`, () => {
      let current: Awaited<ReturnType<typeof createTestStore>> | undefined;
      beforeAll(async () => {
        current = await createTestStore(engine);
      });
      afterAll(async () => {
        await current?.dispose();
      });
      body(() => {
        if (!current) throw new Error('store not ready');
        return current;
      });
    });
  }
}
