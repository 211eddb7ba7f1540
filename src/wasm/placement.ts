// Marshaling for the placement kernels: per-GPU memory as f64, GPU sets as u64 masks (two i32
// halves), the pair matrix loaded once per topology (one node) or passed with the nodes (cluster);
// the best candidates come back as columns the core writes, read through views (see resultViews).
// Views over core memory come from the core (heap32, heapF64), which re-makes them only after the
// memory grew or the core was re-instantiated.
import { type ClusterFound, type ClusterSearch, makeFound, type PlacementFound, type PlacementKernels, type PlacementSearch } from '../placement/index.js';
import type { WasmCore } from './core.js';

type PlacementExports = {
  memory: WebAssembly.Memory;
  placementSearch(
    gpus: number,
    free: number,
    total: number,
    sizes: number,
    shares: number,
    sizeCount: number,
    staleMasks: number,
    staleBytes: number,
    staleCount: number,
    useScores: number,
    pack: number,
    limit: number,
    budget: number,
    kept: number,
    evictStart: number,
    evictions: number,
    evictCap: number,
    scratch: number,
    result: number,
    columns: number,
  ): void;
  clusterSearch(
    count: number,
    info: number,
    bounds: number,
    free: number,
    total: number,
    staleMasks: number,
    staleBytes: number,
    matrices: number,
    sizes: number,
    shares: number,
    sizeCount: number,
    pack: number,
    limit: number,
    budget: number,
    kept: number,
    evictStart: number,
    evictions: number,
    evictCap: number,
    scratch: number,
    result: number,
    columns: number,
  ): void;
};

/** Bytes of the kept list per candidate: an 80-byte record and its i32 rank-order entry (see assembly/placement.ts). */
const KEPT = 84;
/** i32 per candidate in clusterSearch's info, f64 per candidate in its bounds (see assembly/placement.ts). */
const INFO = 8;
const FB = 4;
/** Bytes of the kernels' per-node scratch (7 × 64 f64). */
const SCRATCH = 448 * 8;

/** Bytes of the result columns per kept candidate (see writeColumns in assembly/placement.ts). */
const COLUMNS = 44;

/** `bytes` rounded up to a multiple of 16 (core.reserve's region alignment). */
function _a16(bytes: number): number {
  return (bytes + 15) & ~15;
}

/** The placement kernels over the WebAssembly core. */
export function placementWasmKernels(core: WasmCore): PlacementKernels {
  let evictCap = 64;
  // Views over the whole core memory (the core re-makes them after a grow or a restart).
  let I32: Int32Array = new Int32Array(0);
  let F64: Float64Array = new Float64Array(0);
  const views = (): void => {
    I32 = core.heap32();
    F64 = core.heapF64();
  };

  // Each kernel's result: views over the columns it writes, its eviction starts and its evictions.
  const placementResult = resultViews();
  const clusterResult = resultViews();

  return {
    placementSearch(s: PlacementSearch): PlacementFound {
      const N = s.gpus;
      const S = s.staleBytes.length;
      const sizeCount = s.sizes.length;
      const limit = s.limit;
      const m2 = s.pairScores;
      if (m2 !== null) core.ensurePairScores(m2, N);
      for (;;) {
        // The regions core.reserve would lay out (each rounded up to 16 bytes), in one block; free,
        // total, staleBytes and staleMasks lie one after another (8-byte alignment is all the
        // kernel's f64 and u64 reads need).
        const oFree = 0;
        const oTotal = oFree + N * 8;
        const oBytes = oTotal + N * 8;
        const oMasks = oBytes + S * 8;
        const oSizes = oFree + _a16((2 * N + 2 * S) * 8);
        const oShares = oSizes + _a16(sizeCount * 4);
        const oKept = oShares + _a16(sizeCount * 8);
        const oStart = oKept + _a16(limit * KEPT);
        const oEv = oStart + _a16((limit + 1) * 4);
        const oScratch = oEv + _a16(evictCap * 4);
        const oResult = oScratch + SCRATCH;
        const oColumns = oResult + 16;
        const base = core.reserveBlock(oColumns + limit * COLUMNS);
        const pFree = base + oFree;
        const pTotal = base + oTotal;
        const pSizes = base + oSizes;
        const pShares = base + oShares;
        const pMasks = base + oMasks;
        const pBytes = base + oBytes;
        const pKept = base + oKept;
        const pStart = base + oStart;
        const pEv = base + oEv;
        const pScratch = base + oScratch;
        const pResult = base + oResult;
        const pColumns = base + oColumns;
        views();
        const { free, total, sizes, shares, staleMasks, staleBytes } = s;
        // Element loops: these arrays hold at most 64 GPUs' or a few sizes' entries (set() costs more per call).
        // The search's arrays have N positions, S stale slots and sizeCount sizes (PlacementSearch).
        for (let p = 0, f = pFree >> 3, t = pTotal >> 3; p < N; p++) {
          F64[f + p] = free[p]!;
          F64[t + p] = total[p]!;
        }
        if (S > 64) {
          F64.set(staleBytes.subarray(0, S), pBytes >> 3);
          I32.set(staleMasks.subarray(0, 2 * S), pMasks >> 2);
        } else {
          for (let k = 0, f = pBytes >> 3; k < S; k++) F64[f + k] = staleBytes[k]!;
          for (let k = 0, i = pMasks >> 2; k < 2 * S; k++) I32[i + k] = staleMasks[k]!;
        }
        for (let k = 0, i = pSizes >> 2, f = pShares >> 3; k < sizeCount; k++) {
          I32[i + k] = sizes[k]!;
          F64[f + k] = shares[k]!;
        }
        const ex = core.exports as unknown as PlacementExports;
        // The kernel allocates nothing, so the views stay valid across the call. A try/catch of its
        // own, not core.call: a closure here would hold every variable above in a context per call.
        try {
          ex.placementSearch(
            N,
            pFree,
            pTotal,
            pSizes,
            pShares,
            sizeCount,
            pMasks,
            pBytes,
            S,
            m2 === null ? 0 : 1,
            s.pack ? 1 : 0,
            limit,
            s.budget,
            pKept,
            pStart,
            pEv,
            evictCap,
            pScratch,
            pResult,
            pColumns,
          );
        } catch (error) {
          throw core.trapped(error);
        }
        // The kernel wrote its result's header inside the reserved block.
        const r = pResult >> 2;
        const count = I32[r]!;
        const overflowSize = I32[r + 1]!;
        const need = I32[r + 2]!;
        if (need > evictCap) {
          while (evictCap < need) evictCap *= 2;
          continue;
        }
        return placementResult(I32, pColumns, pStart, pEv, limit, evictCap, count, overflowSize, -1);
      }
    },

    clusterSearch(s: ClusterSearch): ClusterFound {
      const C = s.count;
      const sizeCount = s.sizes.length;
      const limit = s.limit;
      // The search's per-candidate arrays have C entries (staleStart C + 1); offsets and stale ranges lie inside theirs (ClusterSearch).
      let G = 0;
      let M = 0;
      for (let i = 0; i < C; i++) {
        G += s.gpus[i]!;
        const m = s.matrices[i] as Int32Array | null; // i < C (a `!` would drop the null too)
        if (m !== null) M += m.length;
      }
      const s0 = s.staleStart[0]!;
      const S = s.staleStart[C]! - s0;
      for (;;) {
        const [pInfo, pBounds, pFree, pTotal, pMasks, pBytes, pMat, pSizes, pShares, pKept, pStart, pEv, pScratch, pResult, pColumns] = core.reserve([
          C * INFO * 4,
          C * FB * 8,
          G * 8,
          G * 8,
          S * 8,
          S * 8,
          M * 4,
          sizeCount * 4,
          sizeCount * 8,
          limit * KEPT,
          (limit + 1) * 4,
          evictCap * 4,
          SCRATCH,
          16,
          limit * COLUMNS,
        ]);
        views();
        // Each candidate's GPUs, slots and matrix go in packed, one after another (element loops:
        // a subarray per node costs more than copying its few GPUs).
        let g = 0;
        let m = 0;
        const info = pInfo >> 2;
        const fb = pBounds >> 3;
        const free = s.free;
        const total = s.total;
        const fFree = pFree >> 3;
        const fTotal = pTotal >> 3;
        for (let i = 0; i < C; i++) {
          const N = s.gpus[i]!;
          const at = s.offset[i]!;
          const staleFrom = s.staleStart[i]!;
          const staleTo = s.staleStart[i + 1]!;
          for (let p = 0; p < N; p++) F64[fFree + g + p] = free[at + p]!;
          // The kernel reads `total` only for nodes with stale slots (free <= total decides otherwise).
          if (staleTo > staleFrom) for (let p = 0; p < N; p++) F64[fTotal + g + p] = total[at + p]!;
          const mat = s.matrices[i] as Int32Array | null;
          const k = info + i * INFO;
          I32[k] = N;
          I32[k + 1] = g;
          I32[k + 2] = staleFrom - s0;
          I32[k + 3] = staleTo - staleFrom;
          I32[k + 4] = mat === null ? -1 : m;
          I32[k + 5] = s.rank[i]!;
          I32[k + 6] = s.bEv[i]!;
          I32[k + 7] = s.bN[i]!;
          const f = fb + i * FB;
          F64[f] = s.load[i]!;
          F64[f + 1] = s.bScore[i]!;
          F64[f + 2] = s.bMetric[i]!;
          if (mat !== null) {
            I32.set(mat, (pMat >> 2) + m);
            m += mat.length;
          }
          g += N;
        }
        for (let k = 0; k < S; k++) {
          I32[(pMasks >> 2) + 2 * k] = s.staleMasks[2 * (s0 + k)]!;
          I32[(pMasks >> 2) + 2 * k + 1] = s.staleMasks[2 * (s0 + k) + 1]!;
          F64[(pBytes >> 3) + k] = s.staleBytes[s0 + k]!;
        }
        for (let k = 0; k < sizeCount; k++) {
          I32[(pSizes >> 2) + k] = s.sizes[k]!;
          F64[(pShares >> 3) + k] = s.shares[k]!;
        }
        const ex = core.exports as unknown as PlacementExports;
        // The kernel allocates nothing, so the views stay valid across the call (a try/catch of its own, as in placementSearch).
        try {
          ex.clusterSearch(
            C,
            pInfo,
            pBounds,
            pFree,
            pTotal,
            pMasks,
            pBytes,
            pMat,
            pSizes,
            pShares,
            sizeCount,
            s.pack ? 1 : 0,
            limit,
            s.budget,
            pKept,
            pStart,
            pEv,
            evictCap,
            pScratch,
            pResult,
            pColumns,
          );
        } catch (error) {
          throw core.trapped(error);
        }
        // The kernel wrote its result's header inside the reserved block.
        const r = pResult >> 2;
        const count = I32[r]!;
        const overflowSize = I32[r + 1]!;
        const need = I32[r + 2]!;
        const overflowNode = I32[r + 3]!;
        if (need > evictCap) {
          while (evictCap < need) evictCap *= 2;
          continue;
        }
        return clusterResult(I32, pColumns, pStart, pEv, limit, evictCap, count, overflowSize, overflowNode);
      }
    },
  };
}

/**
 * A kernel's result as views over the core memory it was written to: the columns (writeColumns in
 * assembly/placement.ts), the eviction starts and the evictions. The views are made again only when
 * the layout changes (memory, block, limit, eviction room), so a repeated search reads its result
 * without a copy. They stay valid until the next call into the core. `heap`: the core's view over its
 * whole memory, which the core makes anew exactly when the memory changes (its identity stands for
 * the buffer's: reading `.buffer` on each call was a property load V8 did not inline).
 */
function resultViews(): (heap: Int32Array, pColumns: number, pStart: number, pEv: number, limit: number, evictCap: number, count: number, overflowSize: number, overflowNode: number) => ClusterFound {
  let o: ClusterFound | null = null;
  let lastHeap: Int32Array | null = null;
  let lastAt = -1;
  let lastLimit = -1;
  let lastCap = -1;
  return (heap, pColumns, pStart, pEv, limit, evictCap, count, overflowSize, overflowNode) => {
    if (o === null || heap !== lastHeap || pColumns !== lastAt || limit !== lastLimit || evictCap !== lastCap) {
      const buffer = heap.buffer;
      const pEvCount = pColumns + limit * 8;
      const pScore = pEvCount + limit * 4;
      const pBytes = pScore + limit * 4;
      o = makeFound(
        new Int32Array(buffer, pColumns, 2 * limit),
        new Int32Array(buffer, pEvCount, limit),
        new Float64Array(buffer, pBytes, limit),
        new Int32Array(buffer, pScore, limit),
        new Float64Array(buffer, pBytes + limit * 8, limit),
        new Float64Array(buffer, pBytes + limit * 16, limit),
        new Int32Array(buffer, pBytes + limit * 24, limit),
        new Int32Array(buffer, pStart, limit + 1),
        new Int32Array(buffer, pEv, evictCap),
      );
      lastHeap = heap;
      lastAt = pColumns;
      lastLimit = limit;
      lastCap = evictCap;
    }
    o.count = count;
    o.overflowSize = overflowSize;
    o.overflowNode = overflowNode;
    return o;
  };
}
