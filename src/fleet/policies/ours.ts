// Ours ('fgd-close', the default): FGD with two changes, both measured on every openb variant (README,
// "Fleet simulation"; the same seeds give paired comparisons):
// - a GPU-sharing pod whose placement leaves its GPU with a dead hole (less free milli than `dead`,
//   the 1st percentile of the share sizes in the workload) wins over every placement that does not:
//   such a hole can only take the rarest shares, so closing it loses nothing, while the GPU that
//   would have been opened elsewhere stays whole;
// - a CPU-only pod, among nodes of equal FGD score, goes to the node with the least free GPU milli:
//   CPU on nodes whose GPUs are taken is of no use to GPU pods, CPU next to free GPUs is;
// - a whole-GPU pod, among nodes of equal FGD score, goes to the node left with the least CPU per
//   wholly free GPU (+1): nodes whose CPU is scarce for their free GPUs are used while whole-GPU pods
//   still fit there, and nodes with CPU to match their GPUs stay so; except on nodes whose GPU model a
//   model-constrained typical pod asks for: those come after the others, by rank, since packing
//   unconstrained pods onto them takes the GPUs the constrained pods need (gpuspec33: 87.31 against
//   FGD's 87.86 without this exception).
// Everything else (scores, GPU choice, the random node rank on a tie) is FGD's.
import { P_OURS } from '../layout.js';
import type { FleetPolicy } from './types.js';

export const ours: FleetPolicy = { name: 'fgd-close', id: P_OURS, gpuChoice: 'score', summary: 'FGD, with ties broken by resource fit: shares that close a GPU first, CPU-only pods next to taken GPUs, whole GPUs where CPU per free GPU is least (default)' };

/** The dead-hole size: the smallest share s (milli) with at least 1 % of the sharing pods at or below s; 0 without sharing pods. */
export function deadHole(pods: readonly { gpus: number; milli: number }[]): number {
  const shares = pods.filter((p) => p.gpus === 1 && p.milli > 0 && p.milli < 1000).map((p) => p.milli).sort((a, b) => a - b);
  if (shares.length === 0) return 0;
  return shares[Math.ceil(0.01 * shares.length) - 1];
}
