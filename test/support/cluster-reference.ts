// The brute-force cluster plan the cluster tests compare against: every node planned alone
// (planPlacement, no limit), merged by the documented cross-node key, top `limit`.

import type { ClusterPlanRequest, ClusterStateJSON } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import type { PlacementOption } from '../../src/placement/index.js';
import { compareNatural } from '../../src/shared/natural-order.js';

/** Every node of `json` planned alone, merged: fewer evictions, evicted bytes, GPUs, higher score, policy metric, lower load ((memoryTotal − free) / memoryTotal), node ID, lowest indices. */
export function referencePlan(engine: Engine, json: ClusterStateJSON, req: ClusterPlanRequest): PlacementOption[] {
  type Row = { o: PlacementOption; ev: number; bytes: number; min: number; sum: number; load: number };
  const rows: Row[] = [];
  for (const node of json.nodes) {
    const total = node.gpus.reduce((a, g) => a + g.memoryTotal, 0);
    const alloc = node.slots.reduce((a, s) => a + s.memoryPerGpu * s.gpus.length, 0) + node.gpus.reduce((a, g) => a + (g.memoryUsed ?? 0), 0);
    const { topology: _t, maxNodes: _m, attentionHeads: _h, ...one } = req;
    const p = engine.planPlacement({ ...one, gpus: node.gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), limit: 10_000 });
    const capacityOf = new Map(node.gpus.map((g) => [g.index, g.memoryTotal - (g.memoryUsed ?? 0)]));
    for (const o of p.options) {
      const kept = node.slots.filter((s) => !o.evict.includes(s.id));
      const rem = o.gpus.map((g) => capacityOf.get(g)! - kept.filter((s) => s.gpus.includes(g)).reduce((a, s) => a + s.memoryPerGpu, 0) - o.memoryPerGpu);
      const bytes = node.slots.filter((s) => o.evict.includes(s.id)).reduce((a, s) => a + s.memoryPerGpu * s.gpus.length, 0);
      rows.push({ o: { node: node.id, ...o }, ev: o.evict.length, bytes, min: Math.min(...rem), sum: rem.reduce((a, b) => a + b, 0), load: total > 0 ? alloc / total : 0 });
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
  return rows.slice(0, req.limit ?? 16).map((r) => r.o);
}
