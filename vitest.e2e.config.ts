import { defineConfig } from 'vitest/config';

// The browser suite: drives the built page (web/dist) in headless Chromium. `npm run test:e2e`
// builds the page first. E2E_JSON=path also writes a JSON report there (used by .ci/run).
const json = process.env.E2E_JSON;

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    reporters: json ? ['default', 'json'] : ['default'],
    ...(json ? { outputFile: { json } } : {}),
  },
});
