// With a FILE.lock left by a dead process and `gpualloc plan --commit` processes started at once on
// one state file (4 in npm test, 8 in the deep suite), every run that exits 0 has its slot in the file,
// in every round (1 in npm test, 10 in the deep suite). (The old pid-file lock let two runs each "remove the stale lock" and both write.) And
// `state release` processes racing `plan --commit` processes: every release and every commit lands.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inTempDir, ROOT } from '../support/cli.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const ROUNDS = depth(1, 10);
/** Releases and commits racing in the second case (each: one process). */
const PAIRS = depth(3, 6);
/** Writers racing for the stale lock in each round (each process costs most of a CPU second to start). */
const WRITERS = depth(4, 8);

/** Runs the built bin in a child process without blocking the others. */
function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MAIN, ...argv], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('concurrent plan --commit processes with a stale lock file', () => {
  it(`${ROUNDS} round(s) of ${WRITERS} processes: every run that exits 0 has its slot in the file`, { timeout: 300_000 }, async () => {
    await inTempDir('gpualloc-race-', async (dir) => {
      const file = join(dir, 'state.json');
      const expected = new Set<string>();
      let landed = 0;
      for (let round = 0; round < ROUNDS; round++) {
        // A lock file written by a process that is gone, as a crash leaves it.
        writeFileSync(`${file}.lock`, `${deadPid()}\n`);
        const seed = round === 0 ? ['--preset', 'dgx-a100'] : [];
        const runs = await Promise.all(Array.from({ length: WRITERS }, (_, k) => run(['plan', '--memory', '1GiB', ...seed, '--model', `r${round}w${k}`, '--state', file, '--commit', '--json'])));
        for (const r of runs) {
          // Each run waits up to 10 s for the lock, far more than 8 short commits take.
          expect(r.code, r.stderr).toBe(0);
          const committed = JSON.parse(r.stdout).committed as string;
          expect(expected.has(committed), `slot ${committed} reported twice`).toBe(false);
          expected.add(committed);
          landed++;
        }
        const saved = ts.restoreClusterState(readFileSync(file, 'utf8'));
        expect(new Set(saved.listSlots().map((s) => s.id)), `round ${round}`).toEqual(expected);
      }
      expect(landed).toBe(ROUNDS * WRITERS);
    });
  });

  it(`${PAIRS} state release and ${PAIRS} plan --commit processes at once: every release and every commit lands`, { timeout: 120_000 }, async () => {
    await inTempDir('gpualloc-race-', async (dir) => {
      const file = join(dir, 'state.json');
      const G = 2 ** 30;
      const state = ts.createClusterState({ nodes: [{ id: 'box', gpus: Array.from({ length: 8 }, (_, index) => ({ index, memoryTotal: 80 * G })) }] });
      for (let k = 0; k < 12; k++) state.commit({ node: 'box', gpus: [k % 8], memoryPerGpu: G, evict: [], score: 0 }, { id: `old-${k}`, lastActivity: 0 });
      writeFileSync(file, JSON.stringify(state.toJSON()));
      const releases = Array.from({ length: PAIRS }, (_, k) => run(['state', 'release', `old-${2 * k}`, '--state', file, '--json']));
      const commits = Array.from({ length: PAIRS }, () => run(['plan', '--memory', '1GiB', '--state', file, '--commit', '--json']));
      const done = await Promise.all([...releases, ...commits]);
      for (const r of done) expect(r.code, r.stderr).toBe(0);
      const committed = done.slice(PAIRS).map((r) => JSON.parse(r.stdout).committed as string);
      const released = new Set(Array.from({ length: PAIRS }, (_, k) => `old-${2 * k}`));
      const expected = [...Array.from({ length: 12 }, (_, k) => `old-${k}`).filter((id) => !released.has(id)), ...committed].sort();
      expect(
        ts
          .restoreClusterState(readFileSync(file, 'utf8'))
          .listSlots()
          .map((s) => s.id)
          .sort(),
      ).toEqual(expected);
    });
  });
});
