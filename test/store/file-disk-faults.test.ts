// The file store when its disk fails it (test/fixtures/file-store-disk-faults.mjs, on a real tmpfs):
// a full disk and a read-only folder each fail the commit, through the API and the CLI, with
// STORE_UNAVAILABLE naming the file and the reason, and leave the previous state file intact and
// readable (no temporary file left behind); once space is back, commits go on. Mounting needs root:
// as root it mounts directly, otherwise inside a user namespace (unshare -rm) where it is root.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'gpualloc-disk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCRIPT = join(import.meta.dirname, '..', 'fixtures', 'file-store-disk-faults.mjs');

describe('JsonFileStore on a full disk and a read-only folder', () => {
  it('fails the commit clearly and leaves the previous state intact and readable', () => {
    const root = process.getuid?.() === 0;
    const command = root ? [process.execPath, SCRIPT] : ['unshare', '-rm', process.execPath, SCRIPT];
    const r = spawnSync(command[0], command.slice(1), { env: { ...process.env, GPUALLOC_DISK: JSON.stringify({ dir }) }, encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    const out = JSON.parse(r.stdout);
    expect(out.filled).toBe('ENOSPC');
    const path = join(dir, 'state.json');
    for (const [what, code, reason] of [
      ['full', 'ENOSPC', 'the disk is full'],
      ['readOnly', 'EROFS', 'the file system is read-only'],
    ] as const) {
      const message = `cannot write ${path}: ${reason} (${code}); ${path} was left as it was (the previous state, still readable); nothing was changed`;
      expect({ what, ...out[what] }).toEqual({
        what,
        error: { code: 'STORE_UNAVAILABLE', message },
        cli: { code: 2, error: { code: 'STORE_UNAVAILABLE', message } },
        intact: true,
        slots: what === 'full' ? ['slot-1'] : ['slot-1', 'slot-2'],
        leftovers: [],
      });
    }
    expect(out.afterFull).toBe('slot-2');
  });
});
