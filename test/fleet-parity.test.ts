// Both backends give the same run (every event, both curves) on random clusters and workloads,
// under every policy.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engines } from './engines.js';
import { POLICIES } from '../src/fleet/policies/index.js';
import type { FleetNode, FleetPod } from '../src/fleet/types.js';

const MODELS = ['A', 'B', 'C'];
const nodeArb = fc.record({
  cpu: fc.integer({ min: 0, max: 128000 }),
  memory: fc.integer({ min: 0, max: 1 << 20 }),
  gpus: fc.integer({ min: 0, max: 8 }),
  model: fc.constantFrom(...MODELS),
});
const podArb = fc.oneof(
  fc.record({ cpu: fc.integer({ min: 0, max: 64000 }), memory: fc.integer({ min: 0, max: 1 << 17 }), gpus: fc.constant(0), milli: fc.constant(0), models: fc.constant([] as string[]) }),
  fc.record({ cpu: fc.integer({ min: 0, max: 32000 }), memory: fc.integer({ min: 0, max: 1 << 17 }), gpus: fc.constant(1), milli: fc.integer({ min: 1, max: 1000 }), models: fc.subarray([...MODELS, 'Z']) }),
  fc.record({ cpu: fc.integer({ min: 0, max: 64000 }), memory: fc.integer({ min: 0, max: 1 << 17 }), gpus: fc.integer({ min: 1, max: 8 }), milli: fc.constant(1000), models: fc.subarray(MODELS) }),
);

describe('fleet parity: wasm and ts give identical runs', async () => {
  const { wasm, ts } = await engines();
  it('on random clusters, workloads, seeds and policies', () => {
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 1, maxLength: 12 }),
        fc.array(podArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(...POLICIES.map((p) => p.name)),
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0.2, max: 2, noNaN: true }),
        (rawNodes, rawPods, policy, seed, tune) => {
          const nodes: FleetNode[] = rawNodes.map((n, i) => ({ id: `node-${i}`, ...n }));
          const pods: FleetPod[] = rawPods.map((p, i) => ({ id: `pod-${String(i).padStart(3, '0')}`, ...p }));
          const request = { nodes, pods, policy, seed, tune, events: true, fragmentation: true };
          expect(wasm.simulateFleet(request)).toStrictEqual(ts.simulateFleet(request));
        },
      ),
      { numRuns: 300 },
    );
  });
});
