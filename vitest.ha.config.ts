import { defineConfig } from 'vitest/config';

/** `npm run test:ha`: the failover test on a Patroni cluster started from Debian's packages (test/ha/). */
export default defineConfig({
  test: {
    include: ['test/ha/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
