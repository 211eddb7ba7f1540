// While another process holds FILE.lock, every change to the state file (plan --commit, state release,
// stale, gc) waits the full 10 s and then exits 2 with STATE_LOCKED, leaving the file byte-identical;
// reads (state list, plan without --commit) do not wait for the lock.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir, ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;
const MODULE = pathToFileURL(join(ROOT, 'dist', 'src', 'store', 'file-lock.js')).href;

describe('a state file whose lock another process holds', () => {
  it('changes end in STATE_LOCKED (exit 2) after the wait, nothing written; reads go on', { timeout: 60_000 }, async () => {
    await inTempDir('gpualloc-locked-', async (dir) => {
      const file = join(dir, 'state.json');
      const state = ts.createClusterState({ nodes: [{ id: 'box', gpus: [0, 1].map((index) => ({ index, memoryTotal: 80 * G })) }] });
      state.commit({ node: 'box', gpus: [0], memoryPerGpu: 10 * G, evict: [], score: 0 }, { id: 'old', lastActivity: 0 });
      writeFileSync(file, JSON.stringify(state.toJSON(), null, 2));
      const before = readFileSync(file, 'utf8');
      const script = `const { withFileLock } = await import(${JSON.stringify(MODULE)});
await withFileLock(${JSON.stringify(file)}, () => { process.stdout.write('locked\\n'); return new Promise(() => setInterval(() => {}, 1000)); });`;
      const holder = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        await new Promise<void>((done) => holder.stdout!.on('data', (c: Buffer) => c.toString().includes('locked') && done()));
        const reads = await Promise.all([cli(['state', 'list', '--state', file, '--json']), cli(['plan', '--memory', '1GiB', '--state', file, '--json'])]);
        for (const r of reads) expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(reads[0].stdout).slots.map((s: { id: string }) => s.id)).toEqual(['old']);
        const start = Date.now();
        const changes = await Promise.all([
          cli(['plan', '--memory', '1GiB', '--state', file, '--commit', '--json']),
          cli(['state', 'release', 'old', '--state', file, '--json']),
          cli(['state', 'stale', 'old', '--state', file, '--json']),
          cli(['state', 'gc', '--older-than', '1s', '--state', file, '--json']),
        ]);
        expect(Date.now() - start).toBeGreaterThanOrEqual(9_500);
        for (const r of changes) {
          expect(r.code).toBe(2);
          const error = JSON.parse(r.stdout).error;
          expect(error.code).toBe('STATE_LOCKED');
          expect(error.message).toContain(`${file}.lock is held by process ${holder.pid}`);
        }
        expect(readFileSync(file, 'utf8')).toBe(before);
      } finally {
        holder.kill('SIGKILL');
      }
    });
  });
});
