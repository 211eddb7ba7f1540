// The activity loop on a state file: `state touch SLOT…` records activity, so `state gc --older-than
// D` removes only slots idle for longer than D since their commit or latest touch, listing each one;
// `--dry-run` lists and changes nothing; `state stale --clear` counts as activity; `state list` shows
// the idle time.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, inTempDir } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;
const DAY = 86_400_000;

/** Nodes n0.. of one 80 GiB GPU, each with one slot s<k> committed `days[k]` days ago. */
function filled(days: number[]): string {
  const now = Date.now();
  const state = ts.createClusterState({ nodes: days.map((_, k) => ({ id: `n${k}`, gpus: [{ index: 0, memoryTotal: 80 * G }] })) });
  days.forEach((d, k) => state.commit({ node: `n${k}`, gpus: [0], memoryPerGpu: 70 * G, model: `m${k}`, evict: [], score: 0 }, { id: `s${k}`, lastActivity: now - d * DAY }));
  return JSON.stringify(state.toJSON(), null, 2) + '\n';
}

const slotIds = (file: string) =>
  ts
    .restoreClusterState(readFileSync(file, 'utf8'))
    .listSlots()
    .map((s) => s.id);
const lastActivity = (file: string, id: string) =>
  ts
    .restoreClusterState(readFileSync(file, 'utf8'))
    .listSlots()
    .find((s) => s.id === id)!.lastActivity!;

describe('gpualloc state touch / gc', () => {
  it('a slot serving for eight days that touches its slot survives gc --older-than 7d; the one that stopped is removed and listed', async () => {
    await inTempDir('gpualloc-touch-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled([8, 8, 1]));
      const before = Date.now();
      const t = await cli(['state', 'touch', 's0', '--state', file]);
      expect(t.code, t.stderr).toBe(0);
      expect(t.stdout).toBe('touched slot s0 (idle 8d before)\n');
      expect(lastActivity(file, 's0')).toBeGreaterThanOrEqual(before);
      const list = (await cli(['state', 'list', '--state', file])).stdout.split('\n');
      expect(list[1].split(/\s{2,}/)).toEqual(['ID', 'NODE', 'GPUS', 'MEMORY/GPU', 'MODEL', 'IDLE', 'STALE']);
      expect(list.slice(3, 6).map((l) => l.split(/\s{2,}/)[5])).toEqual(['0s', '8d', '1d']);
      const gc = await cli(['state', 'gc', '--older-than', '7d', '--state', file]);
      expect(gc.code, gc.stderr).toBe(0);
      expect(gc.stdout).toBe(
        [
          `removed 1 slot idle for more than 7d from ${file}:`,
          'ID  NODE  GPUS  MEMORY/GPU  MODEL  IDLE  STALE',
          '--  ----  ----  ----------  -----  ----  -----',
          's1  n1    0     70 GiB      m1     8d    -',
          'kept 2',
          '',
        ].join('\n'),
      );
      expect(slotIds(file)).toEqual(['s0', 's2']);
    });
  });

  it('touch takes several slots; an unknown one changes nothing (exit 2); --json prints the touched slots', async () => {
    await inTempDir('gpualloc-touch-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled([3, 2]));
      const text = readFileSync(file, 'utf8');
      const bad = await cli(['state', 'touch', 's0', 'nope', '--state', file]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/slot "nope" is not in .*; nothing was changed/);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect((await cli(['state', 'touch', '--state', file])).code).toBe(2);
      const r = await cli(['state', 'touch', 's1', 's0', 's1', '--state', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const touched = JSON.parse(r.stdout).touched as Array<{ id: string; lastActivity: number }>;
      expect(touched.map((e) => e.id)).toEqual(['s1', 's0']);
      expect(touched.map((e) => e.lastActivity)).toEqual([lastActivity(file, 's1'), lastActivity(file, 's0')]);
      expect(Date.now() - lastActivity(file, 's0')).toBeLessThan(DAY);
    });
  });

  it('gc --dry-run lists what gc would remove and leaves the file as it was', async () => {
    await inTempDir('gpualloc-touch-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled([9, 2, 30]));
      const text = readFileSync(file, 'utf8');
      const dry = await cli(['state', 'gc', '--older-than', '7d', '--dry-run', '--state', file]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toBe(
        [
          `would remove 2 slots idle for more than 7d from ${file} (dry run: nothing was changed):`,
          'ID  NODE  GPUS  MEMORY/GPU  MODEL  IDLE  STALE',
          '--  ----  ----  ----------  -----  ----  -----',
          's0  n0    0     70 GiB      m0     9d    -',
          's2  n2    0     70 GiB      m2     30d   -',
          'would keep 1',
          '',
        ].join('\n'),
      );
      const json = JSON.parse((await cli(['state', 'gc', '--older-than', '7d', '--dry-run', '--state', file, '--json'])).stdout);
      expect([json.wouldRemove.map((e: { id: string }) => e.id), json.kept, json.dryRun]).toEqual([['s0', 's2'], 1, true]);
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect((await cli(['state', 'list', '--dry-run', '--state', file])).stderr).toMatch(/--dry-run is for state gc, not state list/);
      const real = JSON.parse((await cli(['state', 'gc', '--older-than', '7d', '--state', file, '--json'])).stdout);
      expect([real.removed.map((e: { id: string }) => e.id), real.kept]).toEqual([['s0', 's2'], 1]);
      expect(slotIds(file)).toEqual(['s1']);
    });
  });

  it('state stale SLOT --clear records activity: gc then keeps the live slot', async () => {
    await inTempDir('gpualloc-touch-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled([8]));
      expect((await cli(['state', 'stale', 's0', '--state', file])).code).toBe(0);
      const clear = await cli(['state', 'stale', 's0', '--clear', '--state', file, '--json']);
      expect(clear.code, clear.stderr).toBe(0);
      expect(JSON.parse(clear.stdout).slot).toMatchObject({ id: 's0', stale: false, lastActivity: lastActivity(file, 's0') });
      const gc = await cli(['state', 'gc', '--older-than', '7d', '--state', file]);
      expect(gc.stdout).toBe(`no slot idle for more than 7d in ${file}\nkept 1\n`);
      expect(slotIds(file)).toEqual(['s0']);
    });
  });
});
