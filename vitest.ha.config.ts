import { defineConfig } from 'vitest/config';

/** `npm run test:ha`: the failover test on a Patroni cluster started from Debian's packages (test/ha/). */
export default defineConfig({
  test: {
    include: ['test/ha/**/*.test.ts'],
    // Each file starts a cluster of its own, and mostly waits on it (Patroni's timings): both at once.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
