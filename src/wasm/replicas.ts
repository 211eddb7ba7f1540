// Marshaling for the replica kernels: candidate and GPU integer arrays go in, picked candidate indices come back.
import type { ReplicaKernels } from '../devices/replicas.js';
import type { WasmCore } from './core.js';

type ReplicaExports = {
  pickReplicas(
    policy: number,
    candidates: number,
    candidateGpu: number,
    candidateRank: number,
    gpus: number,
    gpuAllocated: number,
    gpuKeyRank: number,
    count: number,
    out: number,
    scratch: number,
  ): number;
};

/** The replica kernels over the WebAssembly core. */
export function replicaWasmKernels(core: WasmCore): ReplicaKernels {
  return {
    pickReplicas(policy, candidateGpu, candidateRank, gpuAllocated, gpuKeyRank, count): Int32Array {
      const n = candidateGpu.length;
      const g = gpuAllocated.length;
      const picks = Math.max(0, Math.min(count, n));
      // Scratch layout: see replicaScratchBytes in assembly/replicas.ts.
      const [pGpu, pRank, pAllocated, pKeyRank, pOut, pScratch] = core.reserve([n * 4, n * 4, g * 4, g * 4, picks * 4, (5 * g + 1 + 2 * n) * 4]);
      const heap = core.heap32();
      heap.set(candidateGpu, pGpu >> 2);
      heap.set(candidateRank, pRank >> 2);
      heap.set(gpuAllocated, pAllocated >> 2);
      heap.set(gpuKeyRank, pKeyRank >> 2);
      const exports = core.exports as unknown as ReplicaExports;
      const made = core.call(() => exports.pickReplicas(policy, n, pGpu, pRank, g, pAllocated, pKeyRank, picks, pOut, pScratch));
      return core.heap32().slice(pOut >> 2, (pOut >> 2) + made);
    },
  };
}
