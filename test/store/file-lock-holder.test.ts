// STATE_LOCKED names the process that holds the lock, as the kernel says (/proc/locks), not whatever
// pid was last written into FILE.lock: here a stale pid is written over the file while another
// process holds the lock, and the message still names the holder.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withFileLock } from '../../src/store/file-lock.js';
import { inTempDir, ROOT } from '../support/cli.js';

const MODULE = pathToFileURL(join(ROOT, 'dist', 'src', 'store', 'file-lock.js')).href;

describe('the holder of a state file lock', () => {
  it.runIf(process.platform === 'linux')('is the process holding the flock, whatever FILE.lock says', { timeout: 30_000 }, async () => {
    await inTempDir('gpualloc-holder-', async (dir) => {
      const file = join(dir, 'state.json');
      const script = `const { withFileLock } = await import(${JSON.stringify(MODULE)});
await withFileLock(${JSON.stringify(file)}, () => { process.stdout.write('locked\\n'); return new Promise(() => setInterval(() => {}, 1000)); });`;
      const holder = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        await new Promise<void>((done) => holder.stdout!.on('data', (c: Buffer) => c.toString().includes('locked') && done()));
        writeFileSync(`${file}.lock`, '999999\n'); // a pid some earlier process left
        const error = await withFileLock(file, () => 'ran', { timeoutMs: 100 }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({ code: 'STATE_LOCKED', message: expect.stringContaining(`${file}.lock is held by process ${holder.pid} (waited 100 ms)`) });
        expect((error as Error).message).not.toContain('999999');
      } finally {
        holder.kill('SIGKILL');
      }
    });
  });
});
