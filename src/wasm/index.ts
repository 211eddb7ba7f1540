// The WebAssembly implementation of Kernels: one marshaling module per capability.
import type { Kernels } from '../kernels.js';
import { alignedWasmKernels } from './aligned.js';
import type { WasmCore } from './core.js';
import { fleetWasmKernels } from './fleet.js';
import { sortWasmKernels } from './natural-sort.js';
import { placementWasmKernels } from './placement.js';
import { replicaWasmKernels } from './replicas.js';

/** Kernels backed by one instance of the WebAssembly core. */
export function createWasmKernels(core: WasmCore): Kernels {
  return {
    backend: 'wasm',
    memoryPages: () => core.pages(),
    ...sortWasmKernels(core),
    ...replicaWasmKernels(core),
    ...alignedWasmKernels(core),
    ...placementWasmKernels(core),
    ...fleetWasmKernels(core),
  };
}
