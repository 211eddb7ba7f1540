// Marshaling for the replicas kernels (placeholder until its issue lands).
import type { ReplicaKernels } from '../replicas.js';
import type { WasmCore } from './core.js';

/** The replicas kernels over the WebAssembly core. */
export function replicaWasmKernels(_core: WasmCore): ReplicaKernels {
  return {};
}
