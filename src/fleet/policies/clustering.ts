// GpuClustering (plugin/gpu_clustering_score.go): pods of one kind (sharing, or k whole GPUs) go
// together. A node's kinds are the tags of the GPU pods on it (tag 0: sharing, tag k: k whole GPUs).
// Index reads carry `!`: the kernel arrays are read at the layout's offsets.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const clustering: FleetPolicy = { ...POLICY_REGISTRY.clustering, gpuChoice: 'best', summary: 'pods of the same kind (share, k whole GPUs) together' };

/** The affinity tag of a GPU pod: 0 for a share of one GPU, else its GPU count; -1 for a CPU-only pod. */
export function podTag(num: number, milli: number): number {
  if (num === 0 || milli === 0) return -1;
  return num === 1 && milli < 1000 ? 0 : num;
}

/**
 * b = ⌊25·(8000−G)/8000⌋ plus 75 (the node holds only this tag), 50 (this tag and others),
 * 25 (no GPU pod) or 0 (other tags only); 0 for a CPU-only pod.
 * `tags[at + t]` counts the GPU pods of tag t on the node (t = 0..maxTag).
 */
export function clusteringScore(freeMilli: number, tags: Int32Array, at: number, maxTag: number, tag: number): number {
  if (tag < 0) return 0;
  const b = Math.trunc((25 * (8000 - freeMilli)) / 8000);
  let total = 0;
  for (let t = 0; t <= maxTag; t++) total += tags[at + t]!;
  if (total === 0) return b + 25;
  const mine = tags[at + tag];
  if (mine === 0) return b;
  return mine === total ? b + 75 : b + 50;
}
