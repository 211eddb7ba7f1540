// The placement kernels in TypeScript (placeholder until its issue lands).
import type { PlacementKernels } from '../placement.js';

/** The placement kernels in plain TypeScript. */
export function placementTsKernels(): PlacementKernels {
  return {};
}
