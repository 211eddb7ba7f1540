import { defineConfig } from 'vitest/config';

// The PostgreSQL store suite (`npm run test:pg`): one throwaway server for the whole run (test/pg/setup.ts),
// each file in schemas of its own. Without server binaries the tests say so and skip, except under
// GPUALLOC_REQUIRE_PG=1 (.ci/run), where a missing server fails the run. Files run one less than the
// cores at a time (vitest's default), not the other suites' two at least (test/support/workers.ts): the
// 8-writer contention and fault files are CPU-bound, and two of them side by side on 2 cores run past
// their 60 s limit under load.
export default defineConfig({
  test: {
    include: ['test/pg/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts', 'test/pg/setup.ts'],
  },
});
