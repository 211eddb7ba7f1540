// withFileLock (src/store/file-lock.ts): flock(2) on FILE.lock through koffi. Holders never overlap,
// in one process or across processes; a lock file left by a dead process does not block; a live
// holder's lock cannot be taken, whatever its lock file says; a holder killed with SIGKILL releases
// it (the kernel does); waiting ends in STATE_LOCKED after the timeout, without running the callback.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AllocationError } from '../../src/shared/errors.js';
import { withFileLock } from '../../src/store/file-lock.js';
import { inTempDir, ROOT } from '../support/cli.js';

const MODULE = pathToFileURL(join(ROOT, 'dist', 'src', 'store', 'file-lock.js')).href;

/** A pid no process has: one of a child that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

/** A child process that takes the lock on `path`, prints "locked", and holds it until killed. */
async function holder(path: string): Promise<ChildProcess> {
  const script = `const { withFileLock } = await import(${JSON.stringify(MODULE)});
await withFileLock(${JSON.stringify(path)}, () => { process.stdout.write('locked\\n'); return new Promise(() => setInterval(() => {}, 1000)); });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('locked')) done();
    });
    child.on('exit', (code) => fail(new Error(`holder exited early with ${code}`)));
  });
  return child;
}

async function lockedError(path: string, timeoutMs: number): Promise<{ error: unknown; ran: boolean; waited: number }> {
  let ran = false;
  const start = Date.now();
  try {
    await withFileLock(path, () => void (ran = true), { timeoutMs });
    return { error: undefined, ran, waited: Date.now() - start };
  } catch (error) {
    return { error, ran, waited: Date.now() - start };
  }
}

describe('withFileLock', () => {
  it('in one process, 20 concurrent holders run one at a time and each sees the previous write', async () => {
    await inTempDir('gpualloc-flock-', async (dir) => {
      const file = join(dir, 'counter');
      writeFileSync(file, '0');
      let inside = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 20 }, () =>
          withFileLock(file, async () => {
            inside++;
            most = Math.max(most, inside);
            const n = Number(readFileSync(file, 'utf8'));
            await new Promise((done) => setTimeout(done, 2));
            writeFileSync(file, String(n + 1));
            inside--;
          }),
        ),
      );
      expect(most).toBe(1);
      expect(readFileSync(file, 'utf8')).toBe('20');
      // The lock file stays (it is never deleted) and holds the last holder's pid, for messages only.
      expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(process.pid));
    });
  });

  it('returns the callback value, releases on a throw, and a lock file naming a dead process does not block', async () => {
    await inTempDir('gpualloc-flock-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(`${file}.lock`, `${deadPid()}\n`);
      await expect(withFileLock(file, () => 42, { timeoutMs: 200 })).resolves.toBe(42);
      await expect(
        withFileLock(
          file,
          () => {
            throw new Error('boom');
          },
          { timeoutMs: 200 },
        ),
      ).rejects.toThrow('boom');
      await expect(withFileLock(file, async () => 'again', { timeoutMs: 200 })).resolves.toBe('again');
      expect(existsSync(`${file}.lock`)).toBe(true);
    });
  });

  it("a live holder's lock is not taken even when its lock file names a dead pid; STATE_LOCKED after the timeout, callback not run", async () => {
    await inTempDir('gpualloc-flock-', async (dir) => {
      const file = join(dir, 'state.json');
      const child = await holder(file);
      try {
        expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(child.pid));
        // What the old pid-file lock treated as stale: the file names a process that is gone.
        writeFileSync(`${file}.lock`, `${deadPid()}\n`);
        const { error, ran, waited } = await lockedError(file, 300);
        expect(ran).toBe(false);
        expect(error).toBeInstanceOf(AllocationError);
        expect((error as AllocationError).code).toBe('STATE_LOCKED');
        expect((error as AllocationError).message).toContain(`${file}.lock`);
        expect((error as AllocationError).message).toMatch(/nothing was read or written/);
        expect(waited).toBeGreaterThanOrEqual(290);
        expect(waited).toBeLessThan(5_000);
      } finally {
        child.kill('SIGKILL');
      }
    });
  });

  it('a holder killed with SIGKILL releases the lock: the next caller gets it at once', async () => {
    await inTempDir('gpualloc-flock-', async (dir) => {
      const file = join(dir, 'state.json');
      const child = await holder(file);
      const exited = new Promise((done) => child.on('exit', done));
      // Held: a short wait fails.
      expect(((await lockedError(file, 100)).error as AllocationError).code).toBe('STATE_LOCKED');
      child.kill('SIGKILL');
      await exited;
      const { error, ran } = await lockedError(file, 2_000);
      expect(error).toBeUndefined();
      expect(ran).toBe(true);
    });
  });

  it('where there is no flock (Windows, simulated in a child process) it is LOCK_UNAVAILABLE and the callback never runs', async () => {
    await inTempDir('gpualloc-flock-', async (dir) => {
      const file = join(dir, 'state.json');
      const script = `Object.defineProperty(process, 'platform', { value: 'win32' });
const { withFileLock } = await import(${JSON.stringify(MODULE)});
let ran = false;
try { await withFileLock(${JSON.stringify(file)}, () => { ran = true; }); } catch (e) { process.stdout.write(JSON.stringify({ code: e.code, message: e.message, ran })); }`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      const out = JSON.parse(r.stdout);
      expect(out.code).toBe('LOCK_UNAVAILABLE');
      expect(out.ran).toBe(false);
      expect(out.message).toMatch(/flock\(2\) is not available on win32/);
      expect(existsSync(`${file}.lock`)).toBe(false);
    });
  });

  it('a bad timeout is INVALID_ARGUMENT; an unopenable lock file is the file system error', async () => {
    await inTempDir('gpualloc-flock-', async (dir) => {
      const file = join(dir, 'state.json');
      await expect(withFileLock(file, () => 1, { timeoutMs: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(withFileLock(file, () => 1, { timeoutMs: Number.NaN })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(withFileLock(join(dir, 'missing', 'state.json'), () => 1)).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });
});
