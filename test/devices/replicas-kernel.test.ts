// pickReplicas on raw integer inputs: wasm = ts, including shapes allocateReplicas never sends
// (GPUs without candidates, count above the candidates), and a hand-checked small case.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPLICA_POLICY_CODE } from '../../src/devices/replicas.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

/** A random permutation of 0..n-1 from a list of sort keys. */
const permutation = (keys: number[]) =>
  Int32Array.from(
    keys
      .map((k, i) => [k, i] as const)
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([, i]) => i),
  );

const input = fc.integer({ min: 1, max: 12 }).chain((gpus) =>
  fc.record({
    policy: fc.constantFrom(0, 1, 2),
    candidateGpu: fc.array(fc.integer({ min: 0, max: gpus - 1 }), { maxLength: 40 }),
    gpuAllocated: fc.array(fc.integer({ min: 0, max: 6 }), { minLength: gpus, maxLength: gpus }),
    keyOrder: fc.array(fc.nat(), { minLength: gpus, maxLength: gpus }),
    rankSeed: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
    count: fc.integer({ min: 0, max: 50 }),
  }),
);

describe('pickReplicas kernel', () => {
  it('wasm and ts agree on random integer inputs', () => {
    fc.assert(
      fc.property(input, ({ policy, candidateGpu, gpuAllocated, keyOrder, rankSeed, count }) => {
        const gpu = Int32Array.from(candidateGpu);
        const rank = permutation(rankSeed.slice(0, gpu.length));
        const allocated = Int32Array.from(gpuAllocated);
        const keyRank = permutation(keyOrder);
        const a = wasm.kernels.pickReplicas(policy, gpu, rank, allocated, keyRank, count);
        const b = ts.kernels.pickReplicas(policy, gpu, rank, allocated, keyRank, count);
        expect(Array.from(a)).toEqual(Array.from(b));
        expect(a.length).toBe(Math.min(count, gpu.length));
        expect(new Set(a).size).toBe(a.length);
        expect(Array.from(allocated)).toEqual(gpuAllocated);
      }),
      { numRuns: 500 },
    );
  });

  it('follows the documented order on a hand-checked case', () => {
    // GPU 0: candidates 0 (rank 3), 1 (rank 0); GPU 1: candidate 2 (rank 1); GPU 2: none; GPU 3: candidate 3 (rank 2).
    const gpu = Int32Array.of(0, 0, 1, 3);
    const rank = Int32Array.of(3, 0, 1, 2);
    const allocated = Int32Array.of(1, 0, 9, 1);
    const keyRank = Int32Array.of(2, 3, 0, 1); // key order: GPU 2, GPU 3, GPU 0, GPU 1
    for (const e of [wasm, ts]) {
      // distributed: GPU 1 (allocated 0) → 2; then GPU 3 and GPU 0 at 1, unpicked, key order GPU 3 → 3; then GPU 0 → 1, 0.
      expect(Array.from(e.kernels.pickReplicas(REPLICA_POLICY_CODE.distributed, gpu, rank, allocated, keyRank, 9))).toEqual([2, 3, 1, 0]);
      // pack: GPU 3 and GPU 0 tie at 1, key order GPU 3 → 3; then GPU 0 (1) beats GPU 1 (0) → 1, 0; then 2.
      expect(Array.from(e.kernels.pickReplicas(REPLICA_POLICY_CODE.pack, gpu, rank, allocated, keyRank, 4))).toEqual([3, 1, 0, 2]);
      // spread: GPU 1 (0 allocated) → 2; GPU 3 → 3; GPU 0 → 1; GPU 0 again → 0.
      expect(Array.from(e.kernels.pickReplicas(REPLICA_POLICY_CODE.spread, gpu, rank, allocated, keyRank, 2))).toEqual([2, 3]);
    }
  });
});
