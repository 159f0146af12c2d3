import { defineConfig } from 'vitest/config';

/** Tests that measure time run on their own, after the rest: on two cores, other files running beside them are noise. */
const TIMED = ['test/http/enumeration.test.ts', 'test/http/search-isolation.test.ts', 'test/http/bounded-work.test.ts', 'test/cli/latency-under-abuse.test.ts'];

export default defineConfig({
  test: {
    // A test that runs the command line a dozen times waits for a dozen processes on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: [...TIMED, 'test/ha/**'], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timed', include: TIMED, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
