// allocateReplicas: which replicas / MIG slices / plain devices a container gets (issue 3; placeholder).
import type { Kernels } from './kernels.js';
import type { Reason } from './errors.js';

/** Greedy policies of NVIDIA's device plugin. */
export type ReplicaPolicy = 'distributed' | 'packed' | 'spread';

/** Request of allocateReplicas (see DESIGN.md). */
export type ReplicaRequest = {
  devices: string[];
  available: string[];
  required?: string[];
  size: number;
  policy?: ReplicaPolicy;
  parents?: Record<string, string>;
};

/** Result of allocateReplicas: chosen IDs, or [] with a reason. */
export type ReplicaResult = { devices: string[]; reason?: Reason };

/** Kernels this capability needs. */
export interface ReplicaKernels {}

/** Picks `size` devices. */
export function allocateReplicas(_kernels: Kernels, _request: ReplicaRequest): ReplicaResult {
  throw new Error('allocateReplicas: not built yet (issue 3)');
}
