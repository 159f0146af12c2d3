import { execFileSync } from 'node:child_process';
import { postgresReachable, TEST_POSTGRES_URL } from './postgres.js';

/** The command-line tests run bin/member-api.js, which runs dist/: build it from the current sources, as `npm run build` does. */
function buildDist(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

/**
 * Checks PostgreSQL once per run. With CI set, an unreachable server fails the run; on a
 * laptop without one, the PostgreSQL half of every store test is skipped with this notice.
 */
export default async function setup({ provide }: { provide: (key: 'postgresUnavailable', value: string) => void }) {
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
  provide('postgresUnavailable', problem ?? '');
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUnavailable: string;
  }
}
