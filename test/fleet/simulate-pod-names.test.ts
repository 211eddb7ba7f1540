// simulateFleet places each pod with state.commit. A pod's name is the user's: a workload holding both
// `a` and `a-tuned-0` (the name tuning gives a clone of `a`) must simulate like any other, not stop
// with DUPLICATE_SLOT when both are placed. Both backends, same result.
import { describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

describe('simulateFleet with pod names that look like tuned clones', () => {
  const request = {
    nodes: [{ id: 'n0', cpu: 64000, memoryMiB: 262144, gpus: 8, model: 'V100' }],
    pods: [
      { id: 'a', cpu: 1000, memoryMiB: 1024, gpus: 1, milli: 500 },
      { id: 'a-tuned-0', cpu: 1000, memoryMiB: 1024, gpus: 1, milli: 500 },
    ],
    policy: 'bestfit' as const,
    tune: 1,
    events: true,
  };

  // Tuning draws `a` as its first clone on some of these seeds, naming it `a-tuned-0`.
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: places every pod while there is room, on both backends alike', (seed) => {
    const runs = [wasm, ts].map((engine) => engine.simulateFleet({ ...request, seed }));
    for (const run of runs) {
      // Tuned to the 8 GPUs: 16 pods of 500 milli, which all fit.
      expect(run.failed).toBe(0);
      expect(run.pods).toBe(16);
      expect(run.events!.filter((e) => e.node !== null).length).toBe(16);
      expect(run.events!.map((e) => e.pod)).toContain('a-tuned-0');
    }
    expect(runs[0]).toEqual(runs[1]);
  });
});
