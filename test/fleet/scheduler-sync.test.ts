// Property: on random nodes (GPU sizes equal or mixed, memory used by other processes, models placed
// by memory before any pod, CPU and host memory tracked or not, a GPU model or none) and random pods,
// after every commit and release the scheduler's view of each node equals what toJSON() says (free
// milli per GPU from free bytes, CPU and host memory left); a pod it cannot place fits nowhere by
// that recomputation; and the wasm and ts backends make identical choices.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterStateJSON } from '../../src/cluster/state.js';
import { POLICIES } from '../../src/fleet/policies/index.js';
import type { FleetPod } from '../../src/fleet/types.js';
import { engines } from '../support/engines.js';

const G = 2 ** 30;
const MIB = 2 ** 20;
const MAX = 0x7fffffff;
const MODELS = ['A', 'B'];

type View = { cpu: number; memoryMiB: number; gpus: number[] };

/** The view of every node, recomputed from the state file's data alone. */
function expected(json: ClusterStateJSON): View[] {
  return json.nodes.map((n) => {
    const slots = n.slots;
    const cpuHeld = slots.reduce((a, s) => a + (s.cpu ?? 0), 0);
    const memHeld = slots.reduce((a, s) => a + (s.hostMemory ?? 0), 0);
    const uniform = n.gpus.every((g) => g.memoryTotal === n.gpus[0].memoryTotal);
    const gpus = !uniform
      ? []
      : n.gpus.map((g) => {
          const free = g.memoryTotal - (g.memoryUsed ?? 0) - slots.filter((s) => s.gpus.includes(g.index)).reduce((a, s) => a + s.memoryPerGpu, 0);
          return free <= 0 ? 0 : Number((BigInt(free) * 1000n) / BigInt(g.memoryTotal));
        });
    return {
      cpu: n.cpu === undefined ? MAX : n.cpu - cpuHeld,
      memoryMiB: n.hostMemory === undefined ? MAX : Math.floor((n.hostMemory - memHeld) / MIB),
      gpus,
    };
  });
}

/** Whether `pod` fits node k of `json` by the recomputed view. */
function fitsSomewhere(json: ClusterStateJSON, views: View[], pod: FleetPod): boolean {
  const milli = pod.gpus === 0 ? 0 : (pod.milli ?? 1000);
  return views.some((v, k) => {
    if (v.cpu < pod.cpu || v.memoryMiB < pod.memoryMiB) return false;
    if (milli === 0) return true;
    const model = json.nodes[k].gpuModel;
    if ((pod.models ?? []).length > 0 && (model === undefined || !pod.models!.includes(model))) return false;
    if (pod.gpus === 1) return v.gpus.some((g) => g >= milli);
    return v.gpus.filter((g) => g === 1000).length >= pod.gpus;
  });
}

const gpuArb = fc.record({ size: fc.constantFrom(16 * G, 24 * G, 1_000_003), used: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 * G })) });
const nodeArb = fc.record({
  gpus: fc.array(gpuArb, { minLength: 0, maxLength: 4 }),
  mixed: fc.boolean(),
  cpu: fc.option(fc.integer({ min: 0, max: 32000 }), { nil: undefined }),
  hostMemory: fc.option(fc.integer({ min: 0, max: 64 * G }), { nil: undefined }),
  gpuModel: fc.option(fc.constantFrom(...MODELS), { nil: undefined }),
  model: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: undefined }),
});
const podArb = fc.oneof(
  fc.record({ cpu: fc.integer({ min: 0, max: 8000 }), memoryMiB: fc.integer({ min: 0, max: 8192 }), gpus: fc.constant(0) }),
  fc.record({
    cpu: fc.integer({ min: 0, max: 4000 }),
    memoryMiB: fc.integer({ min: 0, max: 4096 }),
    gpus: fc.constant(1),
    milli: fc.integer({ min: 1, max: 1000 }),
    models: fc.subarray([...MODELS, 'Z']),
  }),
  fc.record({ cpu: fc.integer({ min: 0, max: 8000 }), memoryMiB: fc.integer({ min: 0, max: 8192 }), gpus: fc.integer({ min: 1, max: 3 }), milli: fc.constant(1000), models: fc.subarray(MODELS) }),
);

describe('the pod scheduler stays in sync with the state', async () => {
  const { wasm, ts } = await engines();
  it('view = recomputation from toJSON after every change; unplaced pods fit nowhere; wasm = ts', () => {
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 1, maxLength: 5 }),
        fc.array(fc.tuple(podArb, fc.nat(20)), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(...POLICIES.map((p) => p.name)),
        (rawNodes, steps, policy) => {
          const nodes = rawNodes.map((n, i) => {
            // A mixed node: its first GPU is a size the others are not.
            const gpus = n.gpus.map((g, index) => {
              const memoryTotal = n.mixed && index === 0 && n.gpus.length > 1 ? g.size + 1 : n.gpus[0].size;
              return g.used > 0 ? { index, memoryTotal, memoryUsed: Math.min(g.used, memoryTotal) } : { index, memoryTotal };
            });
            const node: Record<string, unknown> = { id: `node-${i}`, gpus };
            for (const key of ['cpu', 'hostMemory', 'gpuModel'] as const) if (n[key] !== undefined) node[key] = n[key];
            return node;
          });
          const pods: FleetPod[] = steps.map(([p], i) => ({ id: `pod-${i}`, ...p }));
          const sides = [wasm, ts].map((engine) => {
            const state = engine.createClusterState({ nodes } as never);
            // Models placed by memory before any pod: a per-mille of a GPU's free memory, where there is one.
            rawNodes.forEach((n, i) => {
              if (n.model === undefined || n.gpus.length === 0) return;
              const option = state.plan({ memory: Math.max(1, Math.floor(((16 * G - 4 * G) * n.model) / 1000) % (8 * G)), tensorParallelSizes: [1] }).options.find((o) => o.node === `node-${i}`);
              if (option !== undefined) state.commit(option, { id: `model-${i}` });
            });
            return { state, pods: state.podScheduler({ policy, typical: pods }) };
          });
          try {
            for (let i = 0; i < pods.length; i++) {
              const plans = sides.map((s) => s.pods.plan(pods[i]));
              expect(plans[0]).toEqual(plans[1]);
              const json = sides[0].state.toJSON();
              if (plans[0].options.length === 0) {
                expect(plans[0].reason?.code).toBe('NO_NODE_FITS');
                expect(fitsSomewhere(json, expected(json), pods[i])).toBe(false);
              } else {
                for (const s of sides) s.state.commit(plans[0].options[0], { id: pods[i].id });
              }
              // Now and then a release: a pod or a model placed by memory.
              const release = steps[i][1];
              const slots = sides[0].state.listSlots();
              if (release < 4 && slots.length > 0) for (const s of sides) s.state.release(slots[release % slots.length].id);
              const after = sides[0].state.toJSON();
              expect(sides[1].state.toJSON()).toEqual(after);
              const want = expected(after);
              for (const s of sides) expect(after.nodes.map((n) => s.pods.view(n.id))).toEqual(want);
            }
          } finally {
            for (const s of sides) s.pods.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
