// ClusterState.plan (node index + one kernel call over the candidate nodes) equals a brute-force
// merge of every node's planPlacement, on random clusters after random commit / release / markStale
// sequences, on both backends.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterNode, ClusterPlanRequest } from '../../src/cluster/state.js';
import { referencePlan } from '../support/cluster-reference.js';
import { engines } from '../support/engines.js';
import { arbClusterOf, arbOpOf, arbRequestOf, checkOpsAgainstReference, lcg } from '../support/oracle/cluster-ops.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const reference = referencePlan;

const arbNode = (id: string) =>
  fc
    .record({
      width: fc.integer({ min: 1, max: 8 }),
      total: fc.constantFrom(16, 40, 80),
      topo: fc.integer({ min: 0, max: 5 }),
      inUse: fc.constantFrom(0, 0, 3, 12),
    })
    .map((r): ClusterNode => {
      // Used memory (processes outside the slots) on the even GPUs of some nodes.
      const node: ClusterNode = {
        id,
        gpus: Array.from({ length: r.width }, (_, index) => (r.inUse > 0 && index % 2 === 0 ? { index, memoryTotal: r.total * G, memoryUsed: r.inUse * G } : { index, memoryTotal: r.total * G })),
      };
      if (r.topo === 0 && r.width > 1) node.topology = { gpus: r.width, links: [{ a: 0, b: r.width - 1, nvlink: 2 }] };
      return node;
    });

const arbCluster = arbClusterOf(arbNode, 24);
const arbRequest = arbRequestOf(200, ['spread', 'pack', 'spread'], fc.uniqueArray(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 3 }));
const arbOp = arbOpOf(arbRequest, { commit: 5, release: 2, stale: 1 });

describe('ClusterState.plan with its node index', () => {
  it('equals the brute-force merge of per-node plans after random commit / release / markStale sequences (wasm and ts)', () => {
    fc.assert(
      fc.property(arbCluster, fc.array(arbOp, { minLength: 1, maxLength: 25 }), fc.array(arbRequest, { minLength: 1, maxLength: 3 }), (nodes, ops, probes) => {
        const states = checkOpsAgainstReference(wasm, ts, nodes, ops, probes);
        for (const req of probes) {
          const expected = reference(ts, states[1].toJSON(), req);
          for (const state of states) expect(state.plan({ ...req, maxNodes: 1 }).options).toEqual(expected);
        }
      }),
      { numRuns: 120 },
    );
  });

  it('a 300-node cluster filled by the best option each time matches the brute-force merge at every step (spread, default limit)', () => {
    const nodes: ClusterNode[] = Array.from({ length: 300 }, (_, k) => ({
      id: `n${k + 1}`,
      gpus: Array.from({ length: 1 + (k % 8) }, (_, index) => ({ index, memoryTotal: (k % 3 === 0 ? 40 : 80) * G })),
    }));
    const states = [wasm.createClusterState({ nodes }), ts.createClusterState({ nodes })];
    const rand = lcg(7);
    for (let t = 0; t < 120; t++) {
      const tp = [1, 1, 1, 2, 2, 4, 8][rand(7)];
      const req: ClusterPlanRequest = { memory: (4 + rand(72)) * tp * G, model: `m${rand(5)}`, tensorParallelSizes: [tp] };
      const plans = states.map((s) => s.plan({ ...req, maxNodes: 1 }).options);
      if (t % 10 === 0) expect(plans[1]).toEqual(reference(ts, states[1].toJSON(), req));
      expect(plans[0]).toEqual(plans[1]);
      if (plans[0].length > 0) for (const s of states) s.commit(plans[0][0]);
      if (t % 7 === 3) {
        const slots = states[1].listSlots();
        const id = slots[rand(slots.length)].id;
        for (const s of states) s.release(id);
      }
    }
  });
});
