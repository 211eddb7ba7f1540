// ClusterState and GPUs in MIG mode (NodeGpu.mig): its plans, through the free-memory and stale-slot
// indexes, equal the merge of every node planned alone by planPlacement (which leaves MIG GPUs out),
// before and after commits and releases; allowMig plans equal those of the state without the flags;
// the flag survives toJSON and restore, and a state without MIG GPUs writes no `mig` key.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeFromInventory } from '../../src/cluster/node.js';
import type { ClusterNode, ClusterPlanRequest, ClusterStateJSON } from '../../src/cluster/state.js';
import { getPreset } from '../../src/hardware/presets.js';
import type { NodeGpu, Slot } from '../../src/placement/index.js';
import { referencePlan } from '../support/cluster-reference.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

/** A node of n GPUs, some in MIG mode; slots anywhere (a state may hold them on a GPU put in MIG mode later); one machine type in two. */
const arbNode = (id: string) =>
  fc.integer({ min: 1, max: 8 }).chain((n) =>
    fc
      .record({
        totals: fc.array(fc.constantFrom(40, 80), { minLength: n, maxLength: n }),
        mig: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
        slots: fc.array(
          fc.record({
            gpus: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 2 }),
            mem: fc.integer({ min: 1, max: 30 }),
            stale: fc.boolean(),
            model: fc.constantFrom('a', 'b'),
            last: fc.integer({ min: 0, max: 3 }),
          }),
          { maxLength: 4 },
        ),
        nvswitch: fc.boolean(),
      })
      .map((r): ClusterNode => {
        const used = new Array<number>(n).fill(0);
        const slots: Slot[] = [];
        r.slots.forEach((s, k) => {
          if (s.gpus.some((g) => used[g] + s.mem > r.totals[g])) return;
          for (const g of s.gpus) used[g] += s.mem;
          slots.push({ id: `${id}-s${k}`, gpus: s.gpus, memoryPerGpu: s.mem * G, stale: s.stale, model: s.model, lastActivity: s.last });
        });
        const gpus: NodeGpu[] = r.totals.map((t, index) => (r.mig[index] ? { index, memoryTotal: t * G, mig: true } : { index, memoryTotal: t * G }));
        const node: ClusterNode = { id, gpus, slots };
        if (r.nvswitch && n > 1) {
          const links = [];
          for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) links.push({ a, b, nvlink: 12 });
          node.topology = { gpus: n, links };
        }
        return node;
      }),
  );

const arbCluster = fc.integer({ min: 1, max: 6 }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, j) => arbNode(`n${j}`))));
const arbRequest: fc.Arbitrary<ClusterPlanRequest> = fc.record({
  memory: fc.integer({ min: 1, max: 300 }).map((x) => x * G),
  model: fc.constantFrom('a', 'b'),
  policy: fc.constantFrom<'spread' | 'pack'>('spread', 'pack'),
  limit: fc.integer({ min: 1, max: 12 }),
  allowEviction: fc.boolean(),
  allowMig: fc.boolean(),
});

/** The state's JSON without any `mig` flag. */
function withoutMig(json: ClusterStateJSON): ClusterStateJSON {
  return { ...json, nodes: json.nodes.map((n) => ({ ...n, gpus: n.gpus.map(({ mig: _m, ...g }) => g) })) };
}

describe('ClusterState.plan with GPUs in MIG mode', () => {
  it('equals the merge of every node planned alone, before and after commits and releases; allowMig equals the state without the flags', () => {
    fc.assert(
      fc.property(arbCluster, arbRequest, arbRequest, (nodes, req, second) => {
        for (const engine of [wasm, ts]) {
          const state = engine.createClusterState({ nodes });
          const check = (r: ClusterPlanRequest) => {
            const json = state.toJSON();
            const got = state.plan({ ...r, maxNodes: 1 }).options;
            const ref = r.allowMig === true ? referencePlan(ts, withoutMig(json), { ...r, allowMig: false }) : referencePlan(ts, json, r);
            expect(got).toEqual(ref);
            if (r.allowMig === true) expect(got).toEqual(engine.restoreClusterState(withoutMig(json)).plan({ ...r, allowMig: false, maxNodes: 1 }).options);
            return got;
          };
          const first = check(req);
          // Commit the best option (it may sit on a MIG GPU when allowed), release a slot, plan again.
          if (first.length > 0) state.commit(first[0], { id: 'new' });
          const slots = state.listSlots();
          if (slots.length > 1) state.release(slots[0].id);
          check(second);
          check({ ...second, allowMig: !second.allowMig });
        }
      }),
      { numRuns: 250 },
    );
  });

  it('keeps the flag through toJSON and restore; no `mig` key without MIG GPUs', () => {
    const inv = getPreset('dgx-a100-mig');
    const state = ts.createClusterState(inv);
    const json = state.toJSON();
    expect(json.nodes[0].gpus.filter((g) => g.mig === true).map((g) => g.index)).toEqual([0, 1, 2, 3, 4]);
    expect(ts.restoreClusterState(JSON.parse(JSON.stringify(json))).toJSON()).toEqual(json);
    expect(JSON.stringify(ts.createClusterState(getPreset('dgx-a100')).toJSON())).not.toContain('"mig"');
    expect(nodeFromInventory(inv).gpus.map((g) => g.mig === true)).toEqual([true, true, true, true, true, false, false, false]);
    expect(() => ts.restoreClusterState({ ...json, nodes: [{ ...json.nodes[0], gpus: [{ index: 0, memoryTotal: G, mig: 'yes' }] }] })).toThrow(/gpus\[0\]\.mig/);
  });

  it('a plan that finds nothing names each MIG GPU of each node and counts them in its reason', () => {
    for (const engine of [wasm, ts]) {
      const state = engine.createClusterState({
        nodes: [
          {
            id: 'a',
            gpus: [
              { index: 0, memoryTotal: 80 * G, mig: true },
              { index: 1, memoryTotal: 80 * G },
            ],
          },
          {
            id: 'b',
            gpus: [
              { index: 3, memoryTotal: 80 * G, mig: true },
              { index: 4, memoryTotal: 40 * G },
            ],
          },
        ],
      });
      const plan = state.plan({ memory: 100 * G, tensorParallelSizes: [2] });
      expect(plan.options).toEqual([]);
      expect(plan.rejected.filter((r) => r.code === 'MIG_MODE').map((r) => r.message)).toEqual([
        'GPU 0 on node a is in MIG mode (its slices are allocated with gpualloc replicas)',
        'GPU 3 on node b is in MIG mode (its slices are allocated with gpualloc replicas)',
      ]);
      expect(plan.reason?.message).toMatch(/2 of them in MIG mode/);
      const allowed = state.plan({ memory: 100 * G, tensorParallelSizes: [2], allowMig: true });
      expect(allowed.options.map((o) => [o.node, o.gpus])).toEqual([['a', [0, 1]]]);
      // Committed on a MIG GPU by choice: the state holds it like any slot.
      state.commit(allowed.options[0], { id: 'x' });
      expect(
        state
          .usage()
          .filter((u) => u.allocated > 0)
          .map((u) => [u.node, u.gpu]),
      ).toEqual([
        ['a', 0],
        ['a', 1],
      ]);
    }
  });
});
