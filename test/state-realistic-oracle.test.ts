// ClusterState.plan on realistic clusters (every node a preset machine with its NVLink / PCIe
// topology, used memory on some GPUs, stale slots, requests accepting several TP sizes) equals the
// brute-force merge of every node planned alone, on both backends, after random commit / release /
// markStale sequences: the topology-class index never drops a better option.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from './engines.js';
import { referencePlan } from './cluster-reference.js';
import { getPreset } from '../src/presets.js';
import { nodeFromInventory, type ClusterNode } from '../src/cluster/node.js';
import type { ClusterPlanRequest, ClusterState } from '../src/cluster/state.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
// dgx2 (16 GPUs) last: drawn less often, its brute-force plans are the slow part.
const MACHINES = ['dgx1-pascal', 'dgx1-volta', '4x-rtx8000', 'dgx-a100', 'dgx-h100', '8x-l40s-pcie', 'dgx1-volta', 'dgx-a100', 'dgx2'];

const arbNode = (id: string) => fc.record({
  machine: fc.integer({ min: 0, max: MACHINES.length - 1 }),
  used: fc.array(fc.constantFrom(0, 0, 0, 2, 9), { minLength: 16, maxLength: 16 }),
  bare: fc.integer({ min: 0, max: 9 }),
}).map((r): ClusterNode => {
  const node = nodeFromInventory(getPreset(MACHINES[r.machine]), { id });
  node.gpus = node.gpus.map((g, p) => (r.used[p] > 0 ? { ...g, memoryUsed: r.used[p] * G } : g));
  if (r.bare === 0) delete node.topology; // a few nodes without topology data
  return node;
});

const arbCluster = fc.integer({ min: 1, max: 14 }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, j) => arbNode(`node-${(j * 7) % 13}-${j}`))));

const arbRequest: fc.Arbitrary<ClusterPlanRequest> = fc.record({
  memory: fc.integer({ min: 1, max: 300 }).map((x) => x * G),
  model: fc.constantFrom('a', 'b', 'c'),
  policy: fc.constantFrom<'spread' | 'pack'>('spread', 'spread', 'spread', 'pack'),
  limit: fc.integer({ min: 1, max: 20 }),
  allowEviction: fc.boolean(),
  tensorParallelSizes: fc.option(fc.constantFrom([1, 2, 4, 8], [2, 4], [4, 8], [2], [8], [1, 2], [3, 5]), { nil: undefined }),
}).map((r) => {
  const out: ClusterPlanRequest = { memory: r.memory, model: r.model, policy: r.policy, limit: r.limit, allowEviction: r.allowEviction };
  if (r.tensorParallelSizes !== undefined) out.tensorParallelSizes = r.tensorParallelSizes;
  return out;
});

type Op = { kind: 'commit'; req: ClusterPlanRequest; pick: number; stale: boolean } | { kind: 'release'; pick: number } | { kind: 'stale'; pick: number; stale: boolean };
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('commit' as const), req: arbRequest, pick: fc.nat(), stale: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('stale' as const), pick: fc.nat(), stale: fc.boolean() }) },
);

function apply(state: ClusterState, op: Op, at: number): void {
  if (op.kind === 'commit') {
    const options = state.plan(op.req).options;
    if (options.length === 0) return;
    const id = state.commit(options[op.pick % options.length], { lastActivity: at });
    if (op.stale) state.markStale(id);
    return;
  }
  const slots = state.listSlots();
  if (slots.length === 0) return;
  const id = slots[op.pick % slots.length].id;
  if (op.kind === 'release') state.release(id);
  else state.markStale(id, op.stale);
}

describe('ClusterState.plan on realistic clusters', () => {
  it('equals the brute-force merge over preset machines with used memory and stale slots (wasm and ts)', () => {
    fc.assert(fc.property(arbCluster, fc.array(arbOp, { minLength: 1, maxLength: 16 }), fc.array(arbRequest, { minLength: 1, maxLength: 3 }), (nodes, ops, probes) => {
      const states = [wasm.createClusterState({ nodes }), ts.createClusterState({ nodes })];
      ops.forEach((op, t) => {
        for (const state of states) apply(state, op, t);
        expect(states[0].toJSON()).toEqual(states[1].toJSON());
        const req = op.kind === 'commit' ? op.req : probes[t % probes.length];
        const expected = referencePlan(ts, states[1].toJSON(), req);
        for (const state of states) expect(state.plan(req).options).toEqual(expected);
      });
    }), { numRuns: 40 });
  }, 120_000);

  it('many identical machines, half filled: the plan equals the brute-force merge at every step', () => {
    // 120 nodes of three machine types; every decision is checked against the full merge.
    const nodes: ClusterNode[] = Array.from({ length: 120 }, (_, k) => nodeFromInventory(getPreset(['dgx1-volta', 'dgx-a100', '8x-l40s-pcie'][k % 3]), { id: `n${k + 1}` }));
    const states = [wasm.createClusterState({ nodes }), ts.createClusterState({ nodes })];
    let seed = 11;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let t = 0; t < 150; t++) {
      const sizes = [[1, 2, 4, 8], [2, 4], [4, 8], [2]][rand(4)];
      const req: ClusterPlanRequest = { memory: (4 + rand(150)) * G, model: `m${rand(5)}`, tensorParallelSizes: sizes };
      const plans = states.map((s) => s.plan(req).options);
      if (t % 5 === 0) expect(plans[1]).toEqual(referencePlan(ts, states[1].toJSON(), req));
      expect(plans[0]).toEqual(plans[1]);
      if (plans[0].length > 0) {
        const option = plans[0][rand(plans[0].length)];
        for (const s of states) s.commit(option);
      }
      if (t % 6 === 5) {
        const slots = states[1].listSlots();
        const id = slots[rand(slots.length)].id;
        const release = rand(2) === 0;
        for (const s of states) (release ? s.release(id) : s.markStale(id));
      }
    }
  });
});
