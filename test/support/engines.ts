import { appendFileSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs';
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

/**
 * A new database on the engine: a SQLite file in a temp folder, or a PostgreSQL database.
 * Empty (no file yet, no tables), unless `migrated`: then a copy of the migrated template the
 * global set-up made (global-setup.ts), its schema up to date and no rows in it. A test of
 * migrations, or of what a command or a server does on a new store, takes an empty one.
 */
export async function createTestDatabase(engine: Engine, options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const template = options.migrated ? inject(engine === 'postgres' ? 'postgresTemplate' : 'sqliteTemplate') : undefined;
  const database = await newDatabase(engine, template || undefined);
  if (options.migrated && !template) {
    // No template (the global set-up made none: no dist/ to migrate it with, or no set-up at all): migrated here.
    const store = openStore(database.url);
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
  }
  return database;
}

async function newDatabase(engine: Engine, template: string | undefined): Promise<TestDatabase> {
  if (engine === 'postgres') {
    const database = await createPostgresDatabase({ template });
    return { engine, ...database };
  }
  const dir = mkdtempSync(join(tmpdir(), 'member-api-test-'));
  const url = join(dir, 'members.db');
  // The copy keeps the template's mode: its owner's only, as a store the service makes.
  if (template) copyFileSync(template, url);
  return { engine, url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
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
  const database = await createTestDatabase(engine, { migrated: true });
  const replica = replicaUrlOf(database);
  const store = openStore(database.url, { replicaUrls: replica ? [replica] : undefined });
  // A copy of a migrated template: nothing to apply, a look at the migrations table (as a server starting does).
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
