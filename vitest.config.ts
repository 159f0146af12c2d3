import { defineConfig } from 'vitest/config';

/**
 * Tests that compare or bound times run on their own, after the rest: other files running beside
 * them are noise. The rest run two files at a time: most of their time is spent waiting (for a
 * command's process, a browser, a mail, a webhook's receiver), and the suite takes a third of
 * the time it takes one file at a time.
 */
const TIMED = [
  'test/http/enumeration.test.ts',
  'test/http/search-isolation.test.ts',
  'test/http/bounded-work.test.ts',
  'test/http/upstream-move.test.ts',
  'test/http/sessions.test.ts',
  'test/cli/latency-under-abuse.test.ts',
  'test/unit/legacy-hashes.test.ts',
];

export default defineConfig({
  test: {
    // A test that runs the command line a dozen times waits for a dozen processes on a shared machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'main', maxWorkers: 2, include: ['test/**/*.test.ts'], exclude: [...TIMED, 'test/ha/**'], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'timed', include: TIMED, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
