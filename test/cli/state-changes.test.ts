// `gpualloc state release SLOT | stale SLOT | gc --older-than D`: each change lands in the file (the
// next plan sees the freed memory or the evictable slot), under FILE.lock, through an atomic write;
// gc drops exactly the slots idle for longer than the duration and keeps those without activity.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAge, parseDuration } from '../../src/cli/commands/state.js';
import { cli, inTempDir } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;
const MIN = 60_000;

/** One 80 GiB GPU per node, each filled by one slot of the given age (minutes; null: no activity). */
function filled(now: number, ages: Array<number | null>): string {
  const state = ts.createClusterState({ nodes: ages.map((_, k) => ({ id: `n${k}`, gpus: [{ index: 0, memoryTotal: 80 * G }] })) });
  ages.forEach((age, k) =>
    state.commit({ node: `n${k}`, gpus: [0], memoryPerGpu: 70 * G, model: `m${k}`, evict: [], score: 0 }, { id: `s${k}`, ...(age === null ? {} : { lastActivity: now - age * MIN }) }),
  );
  return JSON.stringify(state.toJSON(), null, 2);
}

const ids = (file: string) =>
  ts
    .restoreClusterState(readFileSync(file, 'utf8'))
    .listSlots()
    .map((s) => s.id);

describe('gpualloc state release / stale / gc', () => {
  it('release frees the slot: the file loses it and the next plan fits where it was', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled(Date.now(), [5, 5]));
      expect((await cli(['plan', '--memory', '60GiB', '--no-evict', '--state', file])).code).toBe(1);
      const r = await cli(['state', 'release', 's1', '--state', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).released).toMatchObject({ id: 's1', node: 'n1', gpus: [0], memoryPerGpu: 70 * G });
      expect(ids(file)).toEqual(['s0']);
      const plan = JSON.parse((await cli(['plan', '--memory', '60GiB', '--no-evict', '--state', file, '--json'])).stdout);
      expect(plan.options.map((o: { node: string }) => o.node)).toEqual(['n1']);
      // Written atomically under the lock: only the state and its lock file are left.
      expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.lock']);
      expect((await cli(['state', 'release', 's1', '--state', file])).code).toBe(2);
    });
  });

  it('stale makes a slot evictable by another model; --clear undoes it', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled(Date.now(), [5]));
      const plan = async () => JSON.parse((await cli(['plan', '--memory', '60GiB', '--model', 'other', '--state', file, '--json'])).stdout);
      expect((await plan()).options).toEqual([]);
      const r = await cli(['state', 'stale', 's0', '--state', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).slot).toMatchObject({ id: 's0', stale: true });
      expect((await plan()).options[0].evict).toEqual(['s0']);
      expect((await cli(['state', 'stale', 's0', '--clear', '--state', file])).stdout).toBe('slot s0 is no longer stale; activity recorded (gc counts its idle time from now)\n');
      expect((await plan()).options).toEqual([]);
    });
  });

  it('gc --older-than drops exactly the slots idle longer than the duration and keeps those with no activity', async () => {
    await inTempDir('gpualloc-state-', async (dir) => {
      const file = join(dir, 'state.json');
      writeFileSync(file, filled(Date.now(), [10, 59, 61, 24 * 60, null]));
      const r = await cli(['state', 'gc', '--older-than', '1h', '--state', file, '--json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.removed.map((e: { id: string }) => e.id)).toEqual(['s2', 's3']);
      expect(out.kept).toBe(3);
      expect(ids(file)).toEqual(['s0', 's1', 's4']);
      const again = await cli(['state', 'gc', '--older-than', '1h', '--state', file]);
      expect(again.stdout).toBe(`no slot idle for more than 1h in ${file}\nkept 3 (1 with no recorded activity)\n`);
      const text = readFileSync(file, 'utf8');
      for (const bad of ['5', '1 hour', '-1h', '']) {
        const b = await cli(['state', 'gc', '--older-than', bad, '--state', file]);
        expect(b.code, bad).toBe(2);
        expect(b.stderr).toMatch(/--older-than/);
      }
      expect((await cli(['state', 'gc', '--state', file])).stderr).toMatch(/--older-than DURATION is required/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    });
  });

  it('durations and ages: units add up, a bare number asks for a unit', () => {
    expect(parseDuration('90s', '--older-than')).toBe(90_000);
    expect(parseDuration('1h30m', '--older-than')).toBe(90 * MIN);
    expect(parseDuration('7d', '--older-than')).toBe(7 * 24 * 60 * MIN);
    expect(parseDuration('1.5h', '--older-than')).toBe(90 * MIN);
    expect(parseDuration('250ms', '--older-than')).toBe(250);
    expect(() => parseDuration('12', '--older-than')).toThrow(/has no unit; write it as 12s, 12m, 12h or 12d/);
    expect(() => parseDuration('12y', '--older-than')).toThrow(/expected a duration/);
    expect([0, 59_999, 60_000, 3 * 60 * MIN + 5 * MIN, 26 * 60 * MIN].map(formatAge)).toEqual(['0s', '59s', '1m', '3h 5m', '1d 2h']);
  });
});
