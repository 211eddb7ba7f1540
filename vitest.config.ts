import { defineConfig } from 'vitest/config';
import { WORKERS } from './test/support/workers.ts';

// `npm test`: every unit, property and house test in its short form (test/support/depth.ts), within
// two minutes on a 2-core machine. Two projects:
// - unit: worker threads sharing one module graph per worker (isolate: false), so src/ and the wasm
//   core are loaded once per worker rather than once per file. The library keeps no module-level
//   state that a test could leave behind; a test that needs a fresh process goes in `nvml` below.
// - nvml: the NVML test double is a shared library that koffi loads once per process and that reads
//   its machine from the process environment (which worker threads cannot set), so these files run
//   each in its own child process.
// The global set-up (test/support/global-setup.ts) runs once at the root and once per project; it is
// synchronous, so the later runs find the build fresh and do nothing.
// Files run WORKERS at a time (test/support/workers.ts: two on a 2-core machine).
const NVML = ['test/bindings/**/*.test.ts', 'test/hardware/inventory-source.test.ts', 'test/cli/discover.test.ts', 'test/cli/plan-busy.test.ts'];
const ELSEWHERE = ['test/e2e/**', 'test/pg/**', 'test/research/**', 'test/deep/**', 'node_modules/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: WORKERS,
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...ELSEWHERE, ...NVML], pool: 'threads', isolate: false } },
      { extends: true, test: { name: 'nvml', include: NVML, exclude: ELSEWHERE, pool: 'forks', isolate: true } },
    ],
  },
});
