// Marshaling for the placement kernels (placeholder until its issue lands).
import type { PlacementKernels } from '../placement.js';
import type { WasmCore } from './core.js';

/** The placement kernels over the WebAssembly core. */
export function placementWasmKernels(_core: WasmCore): PlacementKernels {
  return {};
}
