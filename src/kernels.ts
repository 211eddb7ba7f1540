// The Kernels interface: every numeric kernel the capabilities call. Two implementations exist,
// the WebAssembly core (src/wasm/) and the pure-TypeScript baseline (src/baseline/); both must
// return identical results for identical inputs.

import type { AlignedKernels } from './devices/aligned.js';
import type { SortKernels } from './devices/natural-sort.js';
import type { ReplicaKernels } from './devices/replicas.js';
import type { FleetKernels } from './fleet/index.js';
import type { PlacementKernels } from './placement/index.js';

/** Which implementation of the kernels an engine uses. */
export type Backend = 'wasm' | 'ts';

/** Every kernel, over flat typed arrays. */
export interface Kernels extends SortKernels, ReplicaKernels, AlignedKernels, PlacementKernels, FleetKernels {
  /** Which implementation this is. */
  readonly backend: Backend;
  /** WebAssembly memory in 64 KiB pages (0 for the TypeScript baseline). */
  memoryPages(): number;
}
