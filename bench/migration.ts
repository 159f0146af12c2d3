/**
 * The migration rate from a local upstream: a server of this project holding `count` seeded
 * members (each with two profile fields) serves as the upstream; an account on a fresh
 * database is linked to it and `member-api migrate-members` is run as an operator runs it.
 * Figures: the command's own members/s, and the wall-clock rate of the whole command.
 *
 *   npx tsx bench/migration.ts [--count 100000] [--engines sqlite,postgres]
 *
 * `npm run bench` runs it too (100,000 members per engine).
 */
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../src/store/dialects/dialect.js';
import { openStore } from '../src/store/store.js';
import { build, cli, databaseUrl, resetDatabase, startServer } from './lib.js';
import { ensureAccount, seedMembers } from './seed-members.js';

export interface MigrationFigures {
  readonly members: number;
  /** As the command reports it: members read from the upstream per second of the run. */
  readonly membersPerSecond: number;
  /** The whole command, start to exit (opening the store, the count, the list, the writes). */
  readonly wallPerSecond: number;
}

export async function measureMigration(engine: Engine, count: number): Promise<MigrationFigures> {
  const upstreamUrl = databaseUrl(engine, 'upstream');
  await resetDatabase(engine, 'upstream');
  const store = openStore(upstreamUrl);
  await store.migrate();
  const { id, apiKey } = await ensureAccount(store, 'upstream');
  await store.close();
  await seedMembers(upstreamUrl, id, { count });
  const upstream = await startServer({ DATABASE_URL: upstreamUrl, SWEEP_INTERVAL_SECONDS: '0' });
  try {
    await resetDatabase(engine, 'migrated');
    const env = { DATABASE_URL: databaseUrl(engine, 'migrated') };
    cli(['account', 'create', 'moved', '--json'], env);
    cli(['account', 'link', 'moved', '--upstream-url', `${upstream.url}/api2`, '--upstream-user', 'upstream', '--upstream-key', apiKey!], env);
    const started = performance.now();
    const summary = JSON.parse(cli(['migrate-members', 'moved', '--fields', 'city,phone', '--json'], env)) as {
      read: number;
      imported: number;
      deletions: number;
      membersPerSecond: number;
    };
    const seconds = (performance.now() - started) / 1000;
    // The seeded Deleted members (about 5%) come over Deleted (listed with status=D).
    if (summary.imported + summary.deletions !== summary.read)
      throw new Error(`migrated ${summary.imported} and ${summary.deletions} Deleted of the ${summary.read} members listed`);
    return { members: summary.read, membersPerSecond: summary.membersPerSecond, wallPerSecond: summary.read / seconds };
  } finally {
    await upstream.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '100000' }, engines: { type: 'string', default: 'sqlite,postgres' } } });
  build();
  for (const engine of values.engines!.split(',') as Engine[]) {
    const figures = await measureMigration(engine, Number(values.count));
    console.log(
      `${engine}: ${figures.members} members migrated, ${Math.round(figures.membersPerSecond)} members/s (whole command ${Math.round(figures.wallPerSecond)}/s)`,
    );
  }
}
