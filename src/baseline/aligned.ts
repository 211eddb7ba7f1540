// The aligned kernels in TypeScript (placeholder until its issue lands).
import type { AlignedKernels } from '../aligned.js';

/** The aligned kernels in plain TypeScript. */
export function alignedTsKernels(): AlignedKernels {
  return {};
}
