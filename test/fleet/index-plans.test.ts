// Property: through state.podScheduler, the pod index and the scan plan every pod alike (node, GPUs,
// and for a pod that fits nowhere the reason, whose counts the index keeps per declared threshold
// while the scan counts them afresh), commit after commit and release after release, under every policy and on both backends:
// on clusters of a few node kinds repeated (so scores tie and the rank decides), CPU and host memory
// tracked or not, GPU models or none; with pods whose memory is a declared shape's, above it (the
// descent skips subtrees without the memory) or below every declared one, whose shape has no class
// (the scan answers), and which list GPU models.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICIES } from '../../src/fleet/policies/index.js';
import type { FleetPod } from '../../src/fleet/types.js';
import { engines } from '../support/engines.js';

const G = 2 ** 30;
const MODELS = ['A', 'B'];

const kindArb = fc.record({
  gpus: fc.integer({ min: 0, max: 4 }),
  cpu: fc.option(fc.constantFrom(4000, 8000, 16000, 32000), { nil: undefined }),
  hostMemory: fc.option(
    fc.constantFrom(2, 4, 8, 32).map((g) => g * G),
    { nil: undefined },
  ),
  gpuModel: fc.option(fc.constantFrom(...MODELS), { nil: undefined }),
});
const shapeArb = fc.oneof(
  fc.record({ cpu: fc.constantFrom(0, 1000, 2000), memoryMiB: fc.constantFrom(0, 512, 2048), gpus: fc.constant(0), milli: fc.constant(0) }),
  fc.record({ cpu: fc.constantFrom(500, 1000, 4000), memoryMiB: fc.constantFrom(256, 1024, 4096), gpus: fc.constant(1), milli: fc.constantFrom(250, 400, 500, 700, 1000) }),
  fc.record({ cpu: fc.constantFrom(1000, 4000), memoryMiB: fc.constantFrom(1024, 8192), gpus: fc.integer({ min: 2, max: 4 }), milli: fc.constant(1000) }),
);
/** A pod: a shape of the workload, its memory as declared, raised, or lowered, maybe a model list. */
const stepArb = fc.record({
  shape: fc.nat(50),
  memory: fc.constantFrom('same', 'more', 'less'),
  models: fc.oneof(fc.constant([] as string[]), fc.subarray([...MODELS, 'Z'], { minLength: 1 })),
  release: fc.nat(12),
});

describe('the pod index plans as the scan does (state.podScheduler, commits and releases)', async () => {
  const { wasm, ts } = await engines();
  it('every policy, both backends', () => {
    fc.assert(
      fc.property(
        fc.array(kindArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(2), { minLength: 1, maxLength: 16 }),
        fc.array(shapeArb, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.array(stepArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom(...POLICIES.map((p) => p.name)),
        fc.integer({ min: 0, max: 1000 }),
        (kinds, layout, shapes, someShapes, steps, policy, seed) => {
          const nodes = layout.map((k, i) => {
            const kind = kinds[k % kinds.length];
            const node: Record<string, unknown> = { id: `node-${String(i).padStart(2, '0')}`, gpus: Array.from({ length: kind.gpus }, (_, index) => ({ index, memoryTotal: 16 * G })) };
            for (const key of ['cpu', 'hostMemory', 'gpuModel'] as const) if (kind[key] !== undefined) node[key] = kind[key];
            return node;
          });
          const workload: FleetPod[] = shapes.map((s, i) => ({ id: `w${i}`, ...s }));
          // The score classes and trees: every shape of the workload, or only the first (the others scan).
          const options = { policy, typical: workload, seed, ...(someShapes ? { shapes: workload.slice(0, 1) } : {}) };
          const pods: FleetPod[] = steps.map((st, i) => {
            const s = shapes[st.shape % shapes.length];
            const memoryMiB = st.memory === 'same' ? s.memoryMiB : st.memory === 'more' ? s.memoryMiB + 700 : Math.max(0, s.memoryMiB - 100);
            return { id: `p${i}`, ...s, memoryMiB, ...(s.gpus > 0 && st.models.length > 0 ? { models: st.models } : {}) };
          });
          for (const engine of [wasm, ts]) {
            const sides = (['index', 'scan'] as const).map((search) => {
              const state = engine.createClusterState({ nodes } as never);
              return { state, pods: state.podScheduler({ ...options, search }) };
            });
            try {
              for (let i = 0; i < pods.length; i++) {
                const [index, scan] = sides.map((s) => s.pods.plan(pods[i]));
                expect(index).toEqual(scan);
                if (scan.options.length > 0) {
                  for (const s of sides) s.state.commit(scan.options[0], { id: pods[i].id });
                }
                const slots = sides[1].state.listSlots();
                if (steps[i].release < 3 && slots.length > 0) for (const s of sides) s.state.release(slots[steps[i].release % slots.length].id);
              }
              expect(sides[0].state.toJSON()).toEqual(sides[1].state.toJSON());
            } finally {
              for (const s of sides) s.pods.close();
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
