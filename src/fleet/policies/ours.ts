// Ours ('fgd-close', the default): FGD, except that a GPU-sharing pod whose placement leaves its GPU
// with a dead hole (less free milli than `dead`, the 1st percentile of the share sizes in the
// workload) wins over every placement that does not. Such a hole can only take the rarest shares,
// so closing it costs nothing that FGD's typical-pod measure would notice, while a GPU kept open
// for the pod elsewhere stays usable. Between placements of the same kind FGD's score decides (and
// the random node rank on a tie), and FGD picks the GPU as before. Measured against FGD on every
// openb variant in the README ("Fleet simulation"); the same seeds give paired comparisons.
import { P_OURS } from '../layout.js';
import type { FleetPolicy } from './types.js';

export const ours: FleetPolicy = { name: 'fgd-close', id: P_OURS, gpuChoice: 'score', summary: 'FGD, but a share that closes a GPU (leaves a dead hole) first (default)' };

/** The dead-hole size: the smallest share s (milli) with at least 1 % of the sharing pods at or below s; 0 without sharing pods. */
export function deadHole(pods: readonly { gpus: number; milli: number }[]): number {
  const shares = pods.filter((p) => p.gpus === 1 && p.milli > 0 && p.milli < 1000).map((p) => p.milli).sort((a, b) => a - b);
  if (shares.length === 0) return 0;
  return shares[Math.ceil(0.01 * shares.length) - 1];
}
