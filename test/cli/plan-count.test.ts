// `plan` says how many options exist in all, also past the 10,000 it may list: each node's sets of
// GPUs none of which is rejected, counted from the rejections of a one-option plan per size. The
// count is checked against the engine's own enumeration wherever that one is complete.
import { describe, expect, it } from 'vitest';
import { countOptions } from '../../src/cli/lib/plan-sizes.js';
import type { ClusterPlanRequest } from '../../src/cluster/state.js';
import { cli } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { ts } = await engines();
const G = 2 ** 30;

describe('the option count', () => {
  it('dgx2, 8 GiB: showing 10000 of 14827 (16 + 120 + 1820 + 12870 + 1 sets of 1, 2, 4, 8, 16 GPUs)', async () => {
    const r = await cli(['plan', '--preset', 'dgx2', '--memory', '8GiB', '--limit', '10000']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('showing 10000 of 14827 options for 8 GiB on dgx2:');
    const json = JSON.parse((await cli(['plan', '--preset', 'dgx2', '--memory', '8GiB', '--limit', '3', '--json'])).stdout) as { optionCount: number; options: unknown[] };
    expect([json.options.length, json.optionCount]).toEqual([3, 14827]);
  });

  it('equals the enumeration on 150 random states (used memory, slots, stale slots, other models, no-evict)', () => {
    let seed = 12345;
    let listedInAll = 0;
    let partly = 0;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let trial = 0; trial < 150; trial++) {
      const nodes = Array.from({ length: 1 + rand(3) }, (_, k) => ({
        id: `n${k}`,
        gpus: Array.from({ length: 2 + rand(7) }, (_, index) => ({ index, memoryTotal: (16 + 16 * rand(5)) * G, ...(rand(4) === 0 ? { memoryUsed: rand(8) * G } : {}) })),
      }));
      const state = ts.createClusterState({ nodes });
      for (let s = 0; s < rand(6); s++) {
        const plan = state.plan({ memory: (1 + rand(20)) * G, model: `m${rand(3)}`, allowEviction: false });
        const option = plan.options[rand(Math.max(1, Math.min(plan.options.length, 5)))];
        if (option === undefined) continue;
        const id = state.commit(option);
        if (rand(2) === 0) state.markStale(id, true);
      }
      const request: Omit<ClusterPlanRequest, 'tensorParallelSizes'> = {
        memory: (1 + rand(24)) * G,
        ...(rand(2) === 0 ? { model: `m${rand(3)}` } : {}),
        ...(rand(4) === 0 ? { allowEviction: false } : {}),
      };
      for (const size of [1, 2, 4, 8]) {
        const listed = state.plan({ ...request, tensorParallelSizes: [size], limit: 10_000 }).options.length;
        listedInAll += listed;
        if (listed > 0 && listed < nodes.reduce((sum, n) => sum + (n.gpus.length >= size ? Math.round(Math.exp(lnChoose(n.gpus.length, size))) : 0), 0)) partly++;
        expect(countOptions(ts, state, { ...request, tensorParallelSizes: [size] }), `trial ${trial}, size ${size}`).toBe(listed);
      }
    }
    // Not a trivial agreement: many options, and many plans where some GPUs were rejected.
    expect(listedInAll).toBeGreaterThan(500);
    expect(partly).toBeGreaterThan(30);
  });
});

function lnChoose(n: number, k: number): number {
  let v = 0;
  for (let i = 0; i < k; i++) v += Math.log(n - i) - Math.log(i + 1);
  return v;
}
