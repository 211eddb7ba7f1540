// ClusterState.plan (with its node pruning) equals a plain merge of every node's planPlacement.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterNode, ClusterPlanRequest } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import type { PlacementOption, Slot } from '../../src/placement/index.js';
import { compareNatural } from '../../src/shared/natural-order.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const arbNode = (id: string) =>
  fc.integer({ min: 1, max: 6 }).chain((n) =>
    fc
      .record({
        totals: fc.array(fc.constantFrom(24, 40, 80), { minLength: n, maxLength: n }),
        inUse: fc.array(fc.constantFrom(0, 0, 0, 5, 20), { minLength: n, maxLength: n }),
        slots: fc.array(
          fc.record({
            gpus: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 3 }),
            mem: fc.integer({ min: 1, max: 40 }),
            stale: fc.boolean(),
            model: fc.constantFrom('a', 'b'),
            last: fc.integer({ min: 0, max: 3 }),
          }),
          { maxLength: 5 },
        ),
        topo: fc.boolean(),
      })
      .map((r): ClusterNode => {
        const used = r.inUse.slice();
        const slots: Slot[] = [];
        r.slots.forEach((s, k) => {
          if (s.gpus.some((g) => used[g] + s.mem > r.totals[g])) return;
          for (const g of s.gpus) used[g] += s.mem;
          slots.push({ id: `${id}-s${k}`, gpus: s.gpus, memoryPerGpu: s.mem * G, stale: s.stale, model: s.model, lastActivity: s.last });
        });
        // Used memory (processes outside the slots) on some GPUs, as discovered nodes carry it.
        const node: ClusterNode = { id, gpus: r.totals.map((t, index) => (r.inUse[index] > 0 ? { index, memoryTotal: t * G, memoryUsed: r.inUse[index] * G } : { index, memoryTotal: t * G })), slots };
        if (r.topo && n > 1) node.topology = { gpus: n, links: [{ a: 0, b: 1, nvlink: 2 }] };
        return node;
      }),
  );

const arbCluster = fc.integer({ min: 1, max: 6 }).chain((k) => fc.tuple(...Array.from({ length: k }, (_, j) => arbNode(`n${(j * 7) % 10}${j}`))));
const arbRequest: fc.Arbitrary<ClusterPlanRequest> = fc.record({
  memory: fc.integer({ min: 1, max: 160 }).map((x) => x * G),
  model: fc.constantFrom('a', 'b'),
  policy: fc.constantFrom<'spread' | 'pack'>('spread', 'pack'),
  limit: fc.integer({ min: 1, max: 12 }),
  allowEviction: fc.boolean(),
});

function reference(engine: Engine, nodes: ClusterNode[], req: Omit<ClusterPlanRequest, 'topology' | 'maxNodes' | 'attentionHeads'>): PlacementOption[] {
  type Row = { o: PlacementOption; ev: number; bytes: number; min: number; sum: number; load: number };
  const rows: Row[] = [];
  for (const node of nodes) {
    const total = node.gpus.reduce((a, g) => a + g.memoryTotal, 0);
    const alloc = (node.slots ?? []).reduce((a, s) => a + s.memoryPerGpu * s.gpus.length, 0) + node.gpus.reduce((a, g) => a + (g.memoryUsed ?? 0), 0);
    const p = engine.planPlacement({ ...req, gpus: node.gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), limit: 10_000 });
    for (const o of p.options) {
      const kept = (node.slots ?? []).filter((s) => !o.evict.includes(s.id));
      const rem = o.gpus.map((g) => node.gpus[g].memoryTotal - (node.gpus[g].memoryUsed ?? 0) - kept.filter((s) => s.gpus.includes(g)).reduce((a, s) => a + s.memoryPerGpu, 0) - o.memoryPerGpu);
      const bytes = (node.slots ?? []).filter((s) => o.evict.includes(s.id)).reduce((a, s) => a + s.memoryPerGpu * s.gpus.length, 0);
      rows.push({ o: { node: node.id, ...o }, ev: o.evict.length, bytes, min: Math.min(...rem), sum: rem.reduce((a, b) => a + b, 0), load: alloc / total });
    }
  }
  const pack = req.policy === 'pack';
  rows.sort(
    (a, b) =>
      a.ev - b.ev ||
      a.bytes - b.bytes ||
      a.o.gpus.length - b.o.gpus.length ||
      b.o.score - a.o.score ||
      (pack ? a.sum - b.sum : b.min - a.min) ||
      a.load - b.load ||
      compareNatural(a.o.node!, b.o.node!) ||
      a.o.gpus.map((g, k) => g - b.o.gpus[k]).find((d) => d !== 0)!,
  );
  return rows.slice(0, req.limit).map((r) => r.o);
}

describe('ClusterState.plan', () => {
  it('equals the merge of every node planned alone (node pruning never drops a better option)', () => {
    fc.assert(
      fc.property(arbCluster, arbRequest, (nodes, req) => {
        const expected = reference(ts, nodes, req);
        for (const e of [wasm, ts]) {
          const state = e.createClusterState({ nodes });
          const got = state.plan({ ...req, maxNodes: 1 }).options;
          expect(got.map((o) => ({ ...o }))).toEqual(expected.map((o) => ({ node: o.node, ...o })));
        }
      }),
      { numRuns: 300 },
    );
  });
});
