import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { runCli } from './cli.js';
import { createDatabase, dropDatabase, postgresReachable, postgresUrlOf, TEST_POSTGRES_URL } from './postgres.js';

/** What bin/member-api.js runs. */
const DIST_ENTRY = fileURLToPath(new URL('../../dist/member-api.js', import.meta.url));

/** The command-line tests run bin/member-api.js, which runs dist/: build it from the current sources, as `npm run build` does. */
function buildDist(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

/**
 * Brings a new store's schema up to date with `member-api migrate` (dist/, built just before),
 * which leaves nobody connected to it. Not through src/store/store.ts: under this set-up's
 * module runner a SQLite store cannot start its worker threads (no import.meta.resolve). A
 * dist/ older than the sources (SKIP_BUILD=1) only leaves the newer migrations to each store's
 * own migrate().
 */
async function migrate(databaseUrl: string): Promise<void> {
  const migrated = await runCli(['migrate'], { DATABASE_URL: databaseUrl });
  if (migrated.code !== 0) throw new Error(`member-api migrate failed on ${databaseUrl} (exit ${migrated.code}):\n${migrated.stderr}`);
}

/**
 * A migrated SQLite file, which engines.ts copies for each store a test asks for: migrating a
 * new file takes a few hundred milliseconds, copying one less than one.
 */
async function sqliteTemplate(): Promise<{ path: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'member-api-migrated-'));
  const path = join(dir, 'members.db');
  try {
    await migrate(path);
    // The last connection closed has checkpointed the WAL into the file and removed it: the file alone is the store.
    if (existsSync(`${path}-wal`)) throw new Error(`the template ${path} still has a WAL file after its store closed`);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A migrated PostgreSQL database, which engines.ts copies (`create database … template …`)
 * for each store a test asks for, instead of migrating a new one. Its name is this run's own.
 */
async function postgresTemplate(): Promise<string> {
  const name = `member_api_template_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await createDatabase(name);
  try {
    await migrate(postgresUrlOf(name));
  } catch (error) {
    await dropDatabase(name);
    throw error;
  }
  return name;
}

/**
 * Checks PostgreSQL once per run. With CI set, an unreachable server fails the run; on a
 * laptop without one, the PostgreSQL half of every store test is skipped with this notice.
 * Makes the migrated templates the test stores are copied from (engines.ts), and removes them
 * in the teardown it returns.
 */
export default async function setup(project: TestProject) {
  // Vitest runs a global set-up for the root project and again for each of the config's
  // projects whose files run; what the root provides, every project sees. Once is enough.
  if (!project.isRootProject()) return;
  // SKIP_BUILD=1 keeps a dist/ patched by hand while debugging.
  if (!process.env.SKIP_BUILD) buildDist();
  const problem = await postgresReachable();
  if (problem && process.env.CI) {
    throw new Error(`CI is set and PostgreSQL is unreachable at ${TEST_POSTGRES_URL}: ${problem}`);
  }
  if (problem) {
    console.warn(
      `\n*** PostgreSQL unreachable at ${TEST_POSTGRES_URL} (${problem}): PostgreSQL tests are SKIPPED. Set TEST_POSTGRES_URL or start PostgreSQL. ***\n`,
    );
  }
  project.provide('postgresUnavailable', problem ?? '');
  // Without dist/ (SKIP_BUILD=1 on a fresh checkout), no templates: engines.ts migrates each store itself.
  if (!existsSync(DIST_ENTRY)) {
    console.warn(`\n*** ${DIST_ENTRY} is missing: no migrated templates, every test store is migrated anew. ***\n`);
    project.provide('sqliteTemplate', '');
    project.provide('postgresTemplate', '');
    return;
  }
  // Both at once; one that failed is no run, and what the other made is removed.
  const [sqliteMade, postgresMade] = await Promise.allSettled([sqliteTemplate(), problem ? undefined : postgresTemplate()]);
  const sqlite = sqliteMade.status === 'fulfilled' ? sqliteMade.value : undefined;
  const postgres = postgresMade.status === 'fulfilled' ? postgresMade.value : undefined;
  const teardown = async () => {
    sqlite?.remove();
    if (postgres) await dropDatabase(postgres);
  };
  const failed = [sqliteMade, postgresMade].find((made): made is PromiseRejectedResult => made.status === 'rejected');
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  project.provide('sqliteTemplate', sqlite?.path ?? '');
  project.provide('postgresTemplate', postgres ?? '');
  return teardown;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUnavailable: string;
    /** A migrated SQLite file, copied for each migrated test store. */
    sqliteTemplate: string;
    /** A migrated PostgreSQL database, the template of each migrated test store; empty when PostgreSQL is unavailable. */
    postgresTemplate: string;
  }
}
