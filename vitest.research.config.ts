import { defineConfig } from 'vitest/config';
import { WORKERS } from './test/support/workers.ts';

// Research checks (`npm run test:research`): the measured claims behind the README's numbers — the
// published FGD table reproduced, the default policy against FGD over ten seeds, the allocation upper
// bound, the long-lived engine's memory figure. Minutes of simulation, so `npm test` does not wait on
// them; CI runs them after the unit suite.
export default defineConfig({
  test: {
    include: ['test/research/**/*.test.ts'],
    testTimeout: 300_000,
    maxWorkers: WORKERS,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
