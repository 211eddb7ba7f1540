// The brute-force plan across nodes the multi-node tests compare against: every set of 2 ..
// maxNodes nodes, every tensor-parallel size that divides each of their GPU counts, each node's
// part its best one-node option at that size (planPlacement, no eviction), ranked by the documented
// key (docs/multi-node.md): fewer nodes, fewer distinct values of each preferred label, fewer GPUs,
// then the parts worst first by the one-node ranking.

import type { ClusterStateJSON } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { compareNatural } from '../../src/shared/natural-order.js';

export type SpanOracleRequest = { memory: number; sizes?: number[]; pack: boolean; maxNodes: number; required?: string; preferred: string[] };

/** One option of the oracle: its parts (nodes in natural order), sizes and score. */
export type OracleOption = { parts: Array<{ node: string; gpus: number[]; memoryPerGpu: number }>; tensorParallel: number; pipelineParallel: number; score: number };

const share = (memory: number, n: number): number => Math.ceil(memory / n);

export function referenceSpans(engine: Engine, json: ClusterStateJSON, req: SpanOracleRequest): OracleOption[] {
  const nodes = json.nodes;
  const widest = Math.max(0, ...nodes.map((n) => n.gpus.length));
  const sizes = req.sizes ?? Array.from({ length: widest }, (_, k) => k + 1);
  type Part = { node: string; gpus: number[]; score: number; min: number; sum: number; load: number };
  const rows: Array<{ o: OracleOption; key: number[] }> = [];
  for (let P = 2; P <= Math.min(req.maxNodes, nodes.length); P++) {
    for (const t of sizes) {
      const s = share(req.memory, t * P);
      // Each node's best part at (t, s), if any.
      const parts = new Map<string, Part>();
      for (const node of nodes) {
        if (node.gpus.length < t || node.gpus.length % t !== 0) continue;
        if (req.required !== undefined && node.labels?.[req.required] === undefined) continue;
        const p = engine.planPlacement({
          gpus: node.gpus,
          slots: node.slots,
          ...(node.topology ? { topology: node.topology } : {}),
          memory: s * t,
          tensorParallelSizes: [t],
          allowEviction: false,
          limit: 1,
          policy: req.pack ? 'pack' : 'spread',
        });
        if (p.options.length === 0) continue;
        const o = p.options[0];
        const free = (g: number) => {
          const gpu = node.gpus.find((x) => x.index === g)!;
          return gpu.memoryTotal - (gpu.memoryUsed ?? 0) - node.slots.filter((sl) => sl.gpus.includes(g)).reduce((a, sl) => a + sl.memoryPerGpu, 0);
        };
        const rem = o.gpus.map((g) => free(g) - s);
        const total = node.gpus.reduce((a, g) => a + g.memoryTotal, 0);
        const alloc = node.gpus.reduce((a, g) => a + g.memoryTotal - free(g.index), 0);
        parts.set(node.id, { node: node.id, gpus: o.gpus, score: o.score, min: Math.min(...rem), sum: rem.reduce((a, b) => a + b, 0), load: total > 0 ? alloc / total : 0 });
      }
      const list = [...parts.values()];
      // Every part ranked by the one-node key: score, metric, load, node ID.
      const ranked = [...list].sort((a, b) => b.score - a.score || (req.pack ? a.sum - b.sum : b.min - a.min) || a.load - b.load || compareNatural(a.node, b.node));
      const rankOf = new Map(ranked.map((p, r) => [p.node, r]));
      const choose = (from: number, chosen: Part[]): void => {
        if (chosen.length === P) {
          if (req.required !== undefined) {
            const v = new Set(chosen.map((p) => nodes.find((n) => n.id === p.node)!.labels![req.required!]));
            if (v.size !== 1) return;
          }
          const distinct = req.preferred.map((key) => new Set(chosen.map((p) => nodes.find((n) => n.id === p.node)!.labels?.[key] ?? `\u0000${p.node}`)).size);
          const worst = chosen.map((p) => rankOf.get(p.node)!).sort((a, b) => b - a);
          const sorted = [...chosen].sort((a, b) => compareNatural(a.node, b.node));
          rows.push({
            o: { parts: sorted.map((p) => ({ node: p.node, gpus: p.gpus, memoryPerGpu: s })), tensorParallel: t, pipelineParallel: P, score: chosen.reduce((a, p) => a + p.score, 0) },
            key: [P, ...distinct, t, ...worst],
          });
          return;
        }
        for (let i = from; i < list.length; i++) choose(i + 1, [...chosen, list[i]]);
      };
      choose(0, []);
    }
  }
  rows.sort((a, b) => {
    for (let j = 0; j < Math.min(a.key.length, b.key.length); j++) if (a.key[j] !== b.key[j]) return a.key[j] - b.key[j];
    return a.key.length - b.key.length;
  });
  return rows.map((r) => r.o);
}
