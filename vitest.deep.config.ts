import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { WORKERS } from './test/support/workers.ts';

// The deep suite (`npm run test:deep`, run by CI): the long forms. Every test file that imports
// test/support/depth.ts runs here again with GPUALLOC_DEEP=1 (thousands of random cases, every trace,
// ten race rounds instead of the short forms `npm test` runs), and so does every file under test/deep/
// (checks that only have a long form: the CLI's full lock wait, every documentation example).

/** The test files, under test/ outside the other suites, that import the depth switch. */
function filesWithDepth(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['deep', 'e2e', 'pg', 'research', 'fixtures', 'support'].includes(entry.name)) found.push(...filesWithDepth(path));
    } else if (entry.name.endsWith('.test.ts') && /from '\.\.\/(\.\.\/)?support\/depth\.js'/.test(readFileSync(path, 'utf8'))) found.push(path);
  }
  return found;
}

export default defineConfig({
  test: {
    include: ['test/deep/**/*.test.ts', ...filesWithDepth('test')],
    env: { GPUALLOC_DEEP: '1' },
    testTimeout: 300_000,
    maxWorkers: WORKERS,
    hookTimeout: 120_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
