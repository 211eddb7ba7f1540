// allocateAligned: whole GPUs picked by topology (issue 4; placeholder).
import type { Kernels } from './kernels.js';
import type { Reason } from './errors.js';
import type { Topology } from './topology.js';

/** besteffort: go-gpuallocator's BestEffort, exactly; topology: the default, see the README. */
export type AlignedPolicy = 'besteffort' | 'topology';

/** Request of allocateAligned (see DESIGN.md). */
export type AlignedRequest = { topology: Topology; available: number[]; required?: number[]; size: number; policy?: AlignedPolicy };

/** Result of allocateAligned. */
export type AlignedResult = { devices: number[]; score: number; reason?: Reason };

/** Kernels this capability needs. */
export interface AlignedKernels {}

/** Picks `size` whole GPUs. */
export function allocateAligned(_kernels: Kernels, _request: AlignedRequest): AlignedResult {
  throw new Error('allocateAligned: not built yet (issue 4)');
}
