// The pure-TypeScript implementation of Kernels: the benchmark peer and the test oracle.
import type { Kernels } from '../kernels.js';
import { alignedTsKernels } from './aligned.js';
import { fleetTsKernels } from './fleet.js';
import { sortTsKernels } from './natural-sort.js';
import { placementTsKernels } from './placement.js';
import { replicaTsKernels } from './replicas.js';

/** Kernels in plain TypeScript. */
export function createTsKernels(): Kernels {
  return {
    backend: 'ts',
    memoryPages: () => 0,
    ...sortTsKernels(),
    ...replicaTsKernels(),
    ...alignedTsKernels(),
    ...placementTsKernels(),
    ...fleetTsKernels(),
  };
}
