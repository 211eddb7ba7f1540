// Marshaling for the aligned kernels: the pair matrix is loaded into the core once per topology
// (and again only after a core restart or another load); a request passes positions or masks.
import type { AlignedKernels } from '../aligned.js';
import type { WasmCore } from './core.js';

type AlignedExports = {
  loadPairScores(ptr: number, n: number): number;
  pairScoreVersion(): number;
  alignedBestEffort(available: number, n: number, required: number, r: number, size: number, out: number): number;
  alignedTopology(masks: number, size: number, exactSubsets: number, out: number): number;
};

/** The aligned kernels over the WebAssembly core. */
export function alignedWasmKernels(core: WasmCore): AlignedKernels {
  let loadedMatrix: Int32Array | null = null;
  let loadedGeneration = -1;
  let loadedVersion = -1;

  const exportsOf = () => core.exports as unknown as AlignedExports;

  /** Makes `matrix` the core's pair matrix unless it already is. */
  const ensureMatrix = (matrix: Int32Array, gpus: number): void => {
    if (matrix === loadedMatrix && core.generation === loadedGeneration && core.call(() => exportsOf().pairScoreVersion()) === loadedVersion) return;
    const [ptr] = core.reserve([matrix.length * 4]);
    core.i32(ptr, matrix.length).set(matrix);
    loadedVersion = core.call(() => exportsOf().loadPairScores(ptr, gpus));
    loadedMatrix = matrix;
    loadedGeneration = core.generation;
  };

  return {
    alignedBestEffort(matrix, gpus, available, required, size) {
      ensureMatrix(matrix, gpus);
      const n = available.length;
      // The DP's memo table is the core's own (grown once, reused across calls).
      const [pAvail, pReq, pOut] = core.reserve([n * 4, required.length * 4, 64 * 4]);
      core.i32(pAvail, n).set(available);
      core.i32(pReq, required.length).set(required);
      const count = core.call(() => exportsOf().alignedBestEffort(pAvail, n, pReq, required.length, size, pOut));
      return core.i32(pOut, count).slice();
    },
    alignedTopology(matrix, gpus, available, required, size, exactSubsets) {
      ensureMatrix(matrix, gpus);
      const [pMasks, pOut] = core.reserve([16, 64 * 4]);
      const masks = core.i32(pMasks, 4);
      masks.fill(0);
      for (const g of available) masks[g >>> 5] |= 1 << (g & 31);
      for (const g of required) masks[2 + (g >>> 5)] |= 1 << (g & 31);
      const count = core.call(() => exportsOf().alignedTopology(pMasks, size, exactSubsets, pOut));
      return core.i32(pOut, count).slice();
    },
  };
}
