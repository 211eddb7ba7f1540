// Marshaling for the aligned kernels: the pair matrix is loaded into the core once per topology
// (core.ensurePairScores); a request writes its GPU lists (besteffort) or masks (topology) into the
// core's fixed input/output block (alignedIO) and reads the chosen GPUs back from it. No scratch
// reservation, no view per call.
import type { AlignedKernels } from '../devices/aligned.js';
import type { WasmCore } from './core.js';

type AlignedExports = {
  alignedIO(): number;
  alignedBestEffort(available: number, n: number, required: number, r: number, size: number, out: number): number;
  alignedTopology(masks: number, size: number, exactSubsets: number, out: number): number;
};

// The block's layout (assembly/aligned.ts alIO), in bytes from its start.
const AVAILABLE = 0;
const REQUIRED = 256;
const MASKS = 512;
const OUT = 528;

/** The aligned kernels over the WebAssembly core. */
export function alignedWasmKernels(core: WasmCore): AlignedKernels {
  let io = 0;
  let ioGeneration = -1;
  const exportsOf = () => core.exports as unknown as AlignedExports;
  /** The block's address (asked once per core instance). */
  const block = (): number => {
    if (ioGeneration !== core.generation) {
      io = core.call(() => exportsOf().alignedIO());
      ioGeneration = core.generation;
    }
    return io;
  };
  /** The chosen GPUs the kernel wrote (memory may have grown during the call: a fresh heap view). */
  const result = (base: number, count: number): number[] => {
    const heap = core.heap32();
    const at = (base + OUT) >> 2;
    const out = new Array<number>(count);
    for (let k = 0; k < count; k++) out[k] = heap[at + k]!; // the kernel wrote count GPUs inside the block
    return out;
  };

  return {
    alignedBestEffort(matrix, gpus, available, required, size) {
      core.ensurePairScores(matrix, gpus);
      const base = block();
      const heap = core.heap32();
      const n = available.length;
      const r = required.length;
      // (A loop: cheaper than set() from a plain array of at most 64 items.)
      for (let k = 0, a = (base + AVAILABLE) >> 2; k < n; k++) heap[a + k] = available[k]!;
      for (let k = 0, q = (base + REQUIRED) >> 2; k < r; k++) heap[q + k] = required[k]!;
      let count: number;
      try {
        count = exportsOf().alignedBestEffort(base + AVAILABLE, n, base + REQUIRED, r, size, base + OUT);
      } catch (error) {
        throw core.trapped(error);
      }
      return result(base, count);
    },
    alignedTopology(matrix, gpus, available, required, size, exactSubsets) {
      core.ensurePairScores(matrix, gpus);
      const base = block();
      const heap = core.heap32();
      let a0 = 0;
      let a1 = 0;
      let r0 = 0;
      let r1 = 0;
      for (let k = 0; k < available.length; k++) {
        const g = available[k]!;
        if (g < 32) a0 |= 1 << g;
        else a1 |= 1 << (g - 32);
      }
      for (let k = 0; k < required.length; k++) {
        const g = required[k]!;
        if (g < 32) r0 |= 1 << g;
        else r1 |= 1 << (g - 32);
      }
      const m = (base + MASKS) >> 2;
      heap[m] = a0;
      heap[m + 1] = a1;
      heap[m + 2] = r0;
      heap[m + 3] = r1;
      let count: number;
      try {
        count = exportsOf().alignedTopology(base + MASKS, size, exactSubsets, base + OUT);
      } catch (error) {
        throw core.trapped(error);
      }
      return result(base, count);
    },
  };
}
