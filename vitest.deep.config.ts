import { defineConfig } from 'vitest/config';

// The deep suite (`npm run test:deep`): the long forms of the property and differential tests —
// thousands of random cases, large clusters, many CLI processes, races run many times. `npm test`
// runs the short form of each (the same assertions over fewer cases) so it stays within two
// minutes; CI runs both.
export default defineConfig({
  test: {
    include: ['test/deep/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
