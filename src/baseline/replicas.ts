// The replicas kernels in TypeScript (placeholder until its issue lands).
import type { ReplicaKernels } from '../replicas.js';

/** The replicas kernels in plain TypeScript. */
export function replicaTsKernels(): ReplicaKernels {
  return {};
}
