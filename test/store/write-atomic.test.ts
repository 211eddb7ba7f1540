// writeFileAtomic (src/store/file-lock.ts): the file shows the old text or the new one, never a mix;
// the replaced file keeps its permissions; no temporary file is left behind, on success or failure.

import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/store/file-lock.js';
import { inTempDir } from '../support/cli.js';

describe('writeFileAtomic', () => {
  it('creates a file, then replaces it keeping its mode, leaving no temporary file', async () => {
    await inTempDir('gpualloc-atomic-', async (dir) => {
      const file = join(dir, 'state.json');
      await writeFileAtomic(file, 'first ✓\n');
      expect(readFileSync(file, 'utf8')).toBe('first ✓\n');
      chmodSync(file, 0o640);
      const big = 'x'.repeat(1 << 20);
      await writeFileAtomic(file, big);
      expect(readFileSync(file, 'utf8')).toBe(big);
      expect(statSync(file).mode & 0o777).toBe(0o640);
      expect(readdirSync(dir)).toEqual(['state.json']);
    });
  });

  it('a reader racing 50 replacements only ever sees a whole version', async () => {
    await inTempDir('gpualloc-atomic-', async (dir) => {
      const file = join(dir, 'state.json');
      const versions = Array.from({ length: 50 }, (_, k) => JSON.stringify({ k, pad: String(k).repeat(20_000) }));
      await writeFileAtomic(file, versions[0]);
      let reading = true;
      const seen = new Set<string>();
      const reader = (async () => {
        while (reading) {
          seen.add(readFileSync(file, 'utf8'));
          await new Promise((done) => setImmediate(done));
        }
      })();
      for (const v of versions.slice(1)) await writeFileAtomic(file, v);
      reading = false;
      await reader;
      for (const text of seen) expect(versions).toContain(text);
      expect(readFileSync(file, 'utf8')).toBe(versions[49]);
    });
  });

  it('when the rename fails (the target is a folder) the target is untouched and no temporary file is left', async () => {
    await inTempDir('gpualloc-atomic-', async (dir) => {
      const target = join(dir, 'state.json');
      mkdirSync(target);
      writeFileSync(join(target, 'inside'), 'kept');
      await expect(writeFileAtomic(target, 'new')).rejects.toMatchObject({ syscall: 'rename' });
      expect(readdirSync(dir)).toEqual(['state.json']);
      expect(readFileSync(join(target, 'inside'), 'utf8')).toBe('kept');
      await expect(writeFileAtomic(join(dir, 'missing', 'state.json'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
      expect(readdirSync(dir)).toEqual(['state.json']);
    });
  });
});
