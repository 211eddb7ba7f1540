// The fragmentation sum the kernels keep as nodes change (the change added, summed afresh every N
// refreshes) stays the fresh sum over the nodes to within rounding, commit after commit and release
// after release, and both backends keep the very same value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FleetPod } from '../../src/fleet/types.js';
import { engines } from '../support/engines.js';

const G = 2 ** 30;

describe('the kept fragmentation sum', async () => {
  const { wasm, ts } = await engines();
  it("equals the sum of the nodes' fragmentation to 1e-12 of it, the same on both backends", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.record({ milli: fc.constantFrom(110, 250, 470, 550, 810, 1000), gpus: fc.constantFrom(1, 1, 1, 2), release: fc.nat(9) }), { minLength: 1, maxLength: 80 }),
        (gpus, steps) => {
          const nodes = gpus.map((g, i) => ({ id: `n${i}`, cpu: 64000, hostMemory: 256 * G, gpuModel: 'T4', gpus: Array.from({ length: g }, (_, index) => ({ index, memoryTotal: 16 * G })) }));
          const pods: FleetPod[] = steps.map((s, i) => ({ id: `p${i}`, cpu: 1000, memoryMiB: 1024, gpus: s.gpus, milli: s.gpus > 1 ? 1000 : s.milli }));
          const sides = [wasm, ts].map((engine) => {
            const state = engine.createClusterState({ nodes });
            return { state, pods: state.podScheduler({ policy: 'fgd', typical: pods }) };
          });
          try {
            for (let i = 0; i < pods.length; i++) {
              const plan = sides[0].pods.plan(pods[i]);
              if (plan.options.length > 0) for (const s of sides) s.state.commit(plan.options[0], { id: pods[i].id });
              const slots = sides[0].state.listSlots();
              if (steps[i].release < 2 && slots.length > 0) for (const s of sides) s.state.release(slots[0].id);
              const kept = sides.map((s) => s.pods.fragmentation());
              expect(kept[1]).toBe(kept[0]);
              const fresh = nodes.reduce((a, n) => a + sides[0].pods.nodeFragmentation(n.id), 0);
              expect(Math.abs(kept[0] - fresh)).toBeLessThanOrEqual(1e-12 * Math.max(1, fresh));
            }
          } finally {
            for (const s of sides) s.pods.close();
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
