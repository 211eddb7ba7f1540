// Ours ('fgd-close', the default before fgd-node): FGD with these changes, each measured on every openb variant (README,
// "Fleet simulation"; the same seeds give paired comparisons):
// - a GPU-sharing pod's placement is *clean* when it opens a wholly free GPU, or leaves its GPU with
//   a dead hole (less free milli than `dead`, the 1st percentile of the share sizes in the workload:
//   such a hole can only take the rarest shares, so closing it loses nothing), or leaves a remainder
//   that combinations of the typical shares fill as closely as they fill a whole GPU (FGD's measure
//   only asks whether one typical pod fits; 530 = 370 + 160 is fillable, 210 is not). A clean
//   placement wins over every placement that is not, so shares stop leaving holes on partly used
//   GPUs that no mix of the workload's shares can use; FGD's score ranks the placements within each
//   group (table: cleanRemainders, written into the layout by TS and read by both kernels);
// - a CPU-only pod, among nodes of equal FGD score, goes to the node with the least free GPU milli:
//   CPU on nodes whose GPUs are taken is of no use to GPU pods, CPU next to free GPUs is;
// - a whole-GPU pod, among nodes of equal FGD score, goes to the node left with the least CPU per
//   wholly free GPU (+1): nodes whose CPU is scarce for their free GPUs are used while whole-GPU pods
//   still fit there, and nodes with CPU to match their GPUs stay so; except on nodes whose GPU model a
//   model-constrained typical pod asks for: those come after the others, by rank, since packing
//   unconstrained pods onto them takes the GPUs the constrained pods need (gpuspec33: 87.31 against
//   FGD's 87.86 without this exception).
// Everything else (scores, GPU choice, the random node rank on a tie) is FGD's.
// Index reads carry `!`: the fill tables span 0..1000 milli.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const ours: FleetPolicy = {
  ...POLICY_REGISTRY['fgd-close'],
  gpuChoice: 'score',
  summary: 'FGD, with shares kept off placements that leave holes no mix of typical shares can fill, CPU-only pods next to taken GPUs, whole GPUs where CPU per free GPU is least',
};

/** The dead-hole size: the smallest share s (milli) with at least 1 % of the sharing pods at or below s; 0 without sharing pods. */
export function deadHole(pods: readonly { gpus: number; milli: number }[]): number {
  const shares = pods
    .filter((p) => p.gpus === 1 && p.milli > 0 && p.milli < 1000)
    .map((p) => p.milli)
    .sort((a, b) => a - b);
  if (shares.length === 0) return 0;
  return shares[Math.ceil(0.01 * shares.length) - 1]!; // 0 ≤ ⌈0.01·n⌉ − 1 < n for n ≥ 1
}

/** Milli a multiset of `sizes` can take out of r (at most r), for r = 0..1000 (unbounded knapsack). */
function bestFills(sizes: readonly number[]): Int32Array {
  const fill = new Int32Array(1001);
  for (let r = 1; r <= 1000; r++) {
    let best = fill[r - 1]!;
    for (const m of sizes) if (m <= r && fill[r - m]! + m > best) best = fill[r - m]! + m;
    fill[r] = best;
  }
  return fill;
}

/**
 * The clean-remainder table of the default policy, indexed by the free milli r (0..999) a share
 * leaves on a partly used GPU: 1 when r < `dead`, or when the typical GPU-sharing pods (any number of
 * each size) fill r to within what they leave of a whole GPU (r − fill(r) ≤ 1000 − fill(1000));
 * else 0. The typical sizes, not constants, decide: on openb 1000 is filled exactly (470 + 370 + 160),
 * so "within" means exactly there, while a workload of 300-milli shares alone leaves 100 of every GPU
 * and its remainders 700, 400 and 100 are all clean.
 */
export function cleanRemainders(typical: readonly { gpus: number; milli: number }[], dead: number): Int32Array {
  const sizes = [...new Set(typical.filter((t) => t.gpus === 1 && t.milli > 0 && t.milli < 1000).map((t) => t.milli))];
  const fill = bestFills(sizes);
  const slack = 1000 - fill[1000]!;
  const clean = new Int32Array(1000);
  for (let r = 0; r < 1000; r++) clean[r] = r < dead || r - fill[r]! <= slack ? 1 : 0;
  return clean;
}
