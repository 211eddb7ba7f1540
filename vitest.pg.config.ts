import { defineConfig } from 'vitest/config';
import { WORKERS } from './test/support/workers.ts';

// The PostgreSQL store suite (`npm run test:pg`): one throwaway server for the whole run (test/pg/setup.ts),
// each file in schemas of its own. Without server binaries the tests say so and skip, except under
// GPUALLOC_REQUIRE_PG=1 (.ci/run), where a missing server fails the run.
export default defineConfig({
  test: {
    include: ['test/pg/**/*.test.ts'],
    testTimeout: 60_000,
    maxWorkers: WORKERS,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts', 'test/pg/setup.ts'],
  },
});
