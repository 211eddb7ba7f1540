// Marshaling for the placement kernel: per-GPU memory as f64, GPU sets as u64 masks (two i32
// halves), the pair matrix loaded once per topology; the best candidates come back as records.
import type { PlacementFound, PlacementKernels, PlacementSearch } from '../placement.js';
import type { WasmCore } from './core.js';

type PlacementExports = {
  placementSearch(
    gpus: number, free: number, total: number, sizes: number, shares: number, sizeCount: number,
    staleMasks: number, staleBytes: number, staleCount: number,
    useScores: number, pack: number, limit: number, budget: number,
    kept: number, evictStart: number, evictions: number, evictCap: number, scratch: number, result: number,
  ): void;
  loadPairScores(ptr: number, n: number): number;
  pairScoreVersion(): number;
};

/** Kept-candidate record size in bytes (see assembly/placement.ts). */
const REC = 48;

/** The placement kernels over the WebAssembly core. */
export function placementWasmKernels(core: WasmCore): PlacementKernels {
  // The matrix last loaded by this module, and the core generation and load version it went in with.
  let loadedMatrix: Int32Array | null = null;
  let loadedGeneration = -1;
  let loadedVersion = -1;
  let evictCap = 64;

  return {
    placementSearch(s: PlacementSearch): PlacementFound {
      const N = s.gpus;
      const S = s.staleBytes.length;
      const sizeCount = s.sizes.length;
      const limit = s.limit;
      const exports = core.exports as unknown as PlacementExports;
      const m2 = s.pairScores;
      if (m2 !== null && (m2 !== loadedMatrix || loadedGeneration !== core.generation || exports.pairScoreVersion() !== loadedVersion)) {
        const [pm] = core.reserve([N * N * 4]);
        core.i32(pm, N * N).set(m2);
        loadedVersion = core.call(() => (core.exports as unknown as PlacementExports).loadPairScores(pm, N));
        loadedMatrix = m2;
        loadedGeneration = core.generation;
      }
      for (;;) {
        const [pFree, pTotal, pSizes, pShares, pMasks, pBytes, pKept, pStart, pEv, pScratch, pResult] = core.reserve([
          N * 8, N * 8, sizeCount * 4, sizeCount * 8, S * 8, S * 8, limit * REC, (limit + 1) * 4, evictCap * 4, 192 * 8, 16,
        ]);
        core.f64(pFree, N).set(s.free);
        core.f64(pTotal, N).set(s.total);
        core.i32(pSizes, sizeCount).set(s.sizes);
        core.f64(pShares, sizeCount).set(s.shares);
        core.i32(pMasks, 2 * S).set(s.staleMasks);
        core.f64(pBytes, S).set(s.staleBytes);
        const ex = core.exports as unknown as PlacementExports;
        core.call(() => ex.placementSearch(N, pFree, pTotal, pSizes, pShares, sizeCount, pMasks, pBytes, S, m2 === null ? 0 : 1, s.pack ? 1 : 0, limit, s.budget, pKept, pStart, pEv, evictCap, pScratch, pResult));
        const result = core.i32(pResult, 3);
        const count = result[0];
        const overflowSize = result[1];
        const need = result[2];
        if (need > evictCap) {
          while (evictCap < need) evictCap *= 2;
          continue;
        }
        const rec = core.i32(pKept, (count * REC) >> 2);
        const recF = core.f64(pKept, (count * REC) >> 3);
        const masks = new Int32Array(2 * count);
        const evictCount = new Int32Array(count);
        const score = new Int32Array(count);
        const evictedBytes = new Float64Array(count);
        const remainMin = new Float64Array(count);
        const remainSum = new Float64Array(count);
        for (let c = 0; c < count; c++) {
          const i = c * (REC >> 2);
          const f = c * (REC >> 3);
          masks[2 * c] = rec[i];
          masks[2 * c + 1] = rec[i + 1];
          evictCount[c] = rec[i + 2];
          score[c] = rec[i + 4];
          evictedBytes[c] = recF[f + 3];
          remainMin[c] = recF[f + 4];
          remainSum[c] = recF[f + 5];
        }
        return {
          count,
          masks,
          evictCount,
          evictedBytes,
          score,
          remainMin,
          remainSum,
          evictStart: core.i32(pStart, count + 1).slice(),
          evictions: core.i32(pEv, need).slice(),
          overflowSize,
        };
      }
    },
  };
}
