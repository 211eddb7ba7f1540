// Realistic cluster workloads (issue 19): every node one of the preset machines with its NVLink /
// PCIe topology, 30 % of GPUs partly used by other processes, 5 % of nodes holding a stale slot,
// requests that accept several tensor-parallel sizes. Seeded: the same seed gives the same input.
import { type ClusterNode, nodeFromInventory } from '../src/cluster/node.js';
import type { ClusterPlanRequest } from '../src/cluster/state.js';
import { getPreset } from '../src/hardware/presets.js';

const GIB = 2 ** 30;

/** Machine types of the realistic cluster and their share of nodes (a fleet has a handful). */
export const MACHINE_MIX: ReadonlyArray<{ preset: string; weight: number }> = [
  { preset: 'dgx-h100', weight: 30 },
  { preset: 'dgx-a100', weight: 30 },
  { preset: 'dgx1-volta', weight: 15 },
  { preset: '8x-l40s-pcie', weight: 20 },
  { preset: '4x-rtx8000', weight: 5 },
];

/** Share of GPUs partly used by processes outside gpualloc's slots. */
export const USED_GPU_SHARE = 0.3;
/** Share of nodes holding one stale slot. */
export const STALE_NODE_SHARE = 0.05;

/** Small deterministic generator (xorshift32). */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    let x = this.s;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}

/**
 * `count` realistic nodes `node-1` …: machine types by MACHINE_MIX, each with its preset topology;
 * USED_GPU_SHARE of GPUs with 10-60 % of their memory in use by other processes; STALE_NODE_SHARE of
 * nodes with one stale slot (1 or 2 GPUs, a quarter of a GPU each, an old lastActivity).
 */
export function realisticNodes(count: number, seed = 19): ClusterNode[] {
  const rng = new Rng(seed);
  const templates = MACHINE_MIX.map((m) => nodeFromInventory(getPreset(m.preset)));
  const totalWeight = MACHINE_MIX.reduce((a, m) => a + m.weight, 0);
  const out: ClusterNode[] = new Array(count);
  for (let k = 0; k < count; k++) {
    let r = rng.next() * totalWeight;
    let t = 0;
    while (r >= MACHINE_MIX[t]!.weight) r -= MACHINE_MIX[t++]!.weight;
    const template = templates[t]!;
    const id = `node-${k + 1}`;
    const gpus = template.gpus.map((g) =>
      rng.next() < USED_GPU_SHARE ? { index: g.index, memoryTotal: g.memoryTotal, memoryUsed: Math.floor((g.memoryTotal * rng.int(10, 60)) / 100) } : { index: g.index, memoryTotal: g.memoryTotal },
    );
    // Each node its own topology object, as discovered nodes carry it.
    const topo = template.topology!;
    const node: ClusterNode = { id, gpus, topology: { gpus: topo.gpus, links: topo.links.map((l) => ({ ...l })) } };
    if (rng.next() < STALE_NODE_SHARE) {
      const first = rng.int(0, gpus.length - 2);
      const span = rng.next() < 0.5 ? [gpus[first]!.index] : [gpus[first]!.index, gpus[first + 1]!.index];
      const room = Math.min(...span.map((i) => gpus.find((g) => g.index === i)!).map((g) => g.memoryTotal - (g.memoryUsed ?? 0)));
      node.slots = [{ id: `stale-${k + 1}`, model: `old-${rng.int(0, 9)}`, gpus: span, memoryPerGpu: Math.floor(room / 4), lastActivity: rng.int(0, 1_000_000), stale: true }];
    }
    out[k] = node;
  }
  return out;
}

/** TP sets the realistic requests accept, by model size (a model too large for one GPU does not ask for TP 1). */
export const TP_SETS: ReadonlyArray<{ upToGiB: number; sets: number[][] }> = [
  {
    upToGiB: 40,
    sets: [
      [1, 2, 4, 8],
      [1, 2],
      [1, 2, 4, 8],
    ],
  },
  {
    upToGiB: 100,
    sets: [
      [1, 2, 4, 8],
      [2, 4, 8],
      [2, 4],
    ],
  },
  {
    upToGiB: 200,
    sets: [
      [2, 4, 8],
      [4, 8],
    ],
  },
  { upToGiB: Infinity, sets: [[8]] },
];

/**
 * `count` realistic requests: model sizes from 7B to 180B parameters at 16-bit weights plus KV cache
 * (about 13 to 360 GiB), each accepting a TP set that suits its size (TP_SETS).
 */
export function realisticRequests(count: number, seed = 91): ClusterPlanRequest[] {
  const rng = new Rng(seed);
  const sizes = [16, 16, 16, 30, 30, 48, 80, 150, 150, 300];
  const out: ClusterPlanRequest[] = new Array(count);
  for (let k = 0; k < count; k++) {
    const memory = Math.round(sizes[rng.int(0, sizes.length - 1)]! * (0.8 + 0.4 * rng.next()) * GIB);
    const sets = TP_SETS.find((t) => memory <= t.upToGiB * GIB)!.sets;
    out[k] = { model: `model-${rng.int(0, 199)}`, memory, tensorParallelSizes: sets[rng.int(0, sets.length - 1)] };
  }
  return out;
}

/**
 * `nodes` with slots already placed (the start of the churn run): on each node, slots of one or two
 * GPUs (a model's share, 8-40 GiB a GPU) until about `fill` of the node's free memory is allocated.
 * Returns copies of the nodes and every slot ID in a shuffled (seeded) release order.
 */
export function filledNodes(nodes: ClusterNode[], fill: number, seed = 5): { nodes: ClusterNode[]; order: Array<{ id: string; bytes: number }> } {
  const rng = new Rng(seed);
  const order: Array<{ id: string; bytes: number }> = [];
  const out = nodes.map((node) => {
    const free = node.gpus.map((g) => g.memoryTotal - (g.memoryUsed ?? 0) - (node.slots ?? []).filter((s) => s.gpus.includes(g.index)).reduce((a, s) => a + s.memoryPerGpu, 0));
    const slots = [...(node.slots ?? [])];
    const target = free.map((f) => f * (1 - fill));
    for (let tries = 0; tries < 64; tries++) {
      const p = rng.int(0, free.length - 1);
      const two = rng.next() < 0.4 && p + 1 < free.length;
      const per = rng.int(8, 40) * GIB;
      const span = two ? [p, p + 1] : [p];
      if (span.some((q) => free[q]! - per < target[q]!)) continue;
      for (const q of span) free[q]! -= per;
      const id = `${node.id}-s${slots.length}`;
      slots.push({ id, model: `model-${rng.int(0, 199)}`, gpus: span.map((q) => node.gpus[q]!.index), memoryPerGpu: per, lastActivity: rng.int(0, 1_000_000) });
      order.push({ id, bytes: per * span.length });
    }
    return { ...node, slots };
  });
  for (let k = order.length - 1; k > 0; k--) {
    const j = rng.int(0, k);
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return { nodes: out, order };
}
