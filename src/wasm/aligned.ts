// Marshaling for the aligned kernels (placeholder until its issue lands).
import type { AlignedKernels } from '../aligned.js';
import type { WasmCore } from './core.js';

/** The aligned kernels over the WebAssembly core. */
export function alignedWasmKernels(_core: WasmCore): AlignedKernels {
  return {};
}
