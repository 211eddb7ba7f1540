// The simulation runs on a ClusterState whose GPUs have FleetNode.gpuMemory bytes; shares are milli
// and charged floor(milli × gpuMemory / 1000) bytes, so the result (every event, both curves) is the
// same for any GPU size. Both backends, random clusters and workloads.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICIES } from '../../src/fleet/policies/index.js';
import type { FleetNode, FleetPod } from '../../src/fleet/types.js';
import { engines } from '../support/engines.js';

const nodeArb = fc.record({ cpu: fc.integer({ min: 0, max: 64000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 18 }), gpus: fc.integer({ min: 0, max: 8 }), model: fc.constantFrom('A', 'B') });
const podArb = fc.oneof(
  fc.record({ cpu: fc.integer({ min: 0, max: 16000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 15 }), gpus: fc.constant(0) }),
  fc.record({ cpu: fc.integer({ min: 0, max: 16000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 15 }), gpus: fc.constant(1), milli: fc.integer({ min: 1, max: 1000 }) }),
  fc.record({
    cpu: fc.integer({ min: 0, max: 16000 }),
    memoryMiB: fc.integer({ min: 0, max: 1 << 15 }),
    gpus: fc.integer({ min: 1, max: 4 }),
    milli: fc.constant(1000),
    models: fc.subarray(['A', 'B']),
  }),
);

describe('fleet simulation: the GPU memory size does not matter', async () => {
  const { wasm, ts } = await engines();
  it('1 MiB, 16 GiB (the default) and an odd 80 GB GPU give identical runs, on both backends', () => {
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 1, maxLength: 8 }),
        fc.array(podArb, { minLength: 1, maxLength: 80 }),
        fc.constantFrom(...POLICIES.map((p) => p.name)),
        fc.integer({ min: 0, max: 1000 }),
        (rawNodes, rawPods, policy, seed) => {
          const nodes: FleetNode[] = rawNodes.map((n, i) => ({ id: `node-${i}`, ...n }));
          const pods: FleetPod[] = rawPods.map((p, i) => ({ id: `pod-${i}`, ...p }));
          const request = (gpuMemory?: number) => ({ nodes: gpuMemory === undefined ? nodes : nodes.map((n) => ({ ...n, gpuMemory })), pods, policy, seed, events: true, fragmentation: true });
          for (const engine of [wasm, ts]) {
            const base = engine.simulateFleet(request());
            expect(engine.simulateFleet(request(2 ** 20))).toStrictEqual(base);
            expect(engine.simulateFleet(request(80_000_000_007))).toStrictEqual(base);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('shares that fill a GPU exactly (300 + 700, 4 × 250, 1 + 999) all fit, whatever the GPU size', () => {
    for (const shares of [
      [300, 700],
      [250, 250, 250, 250],
      [1, 999],
    ]) {
      const pods: FleetPod[] = shares.map((milli, i) => ({ id: `p${i}`, cpu: 0, memoryMiB: 0, gpus: 1, milli }));
      for (const gpuMemory of [2 ** 20, 16 * 2 ** 30, 80_000_000_007]) {
        for (const engine of [wasm, ts]) {
          const run = engine.simulateFleet({ nodes: [{ id: 'n', cpu: 1000, memoryMiB: 1024, gpus: 1, model: 'A', gpuMemory }], pods, policy: 'bestfit', tune: 1, events: true });
          expect([run.failed, run.events!.at(-1)!.used]).toEqual([0, 1000]);
        }
      }
    }
  });

  it('refuses a gpuMemory below 1 MiB, naming the field and the value', () => {
    expect(() => wasm.simulateFleet({ nodes: [{ id: 'n', cpu: 1, memoryMiB: 1, gpus: 1, model: 'A', gpuMemory: 1000 }], pods: [{ id: 'p', cpu: 1, memoryMiB: 1, gpus: 1 }] })).toThrow(
      /request\.nodes\[0\]\.gpuMemory.*1000/,
    );
  });
});
