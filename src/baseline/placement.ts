// The placement kernels in TypeScript: the same enumeration, per-GPU validation, eviction and
// ranking as assembly/placement.ts, with GPU sets as two 32-bit halves. One node's search and a
// cluster plan's search over many nodes share one routine that merges into one kept list; scratch
// arrays live as long as the kernels and grow on demand (no allocation per node).
// Every index read is in range by construction (hence the `!`): positions below the node's GPU count
// (at most 64, the scratch arrays' length), kept records below count ≤ limit ≤ cap, stale slots and
// sizes inside the search's arrays (PlacementSearch, ClusterSearch). An update reads as `a[i] = a[i]! + v`
// rather than `a[i]! += v`, which bench/indexed-access.bench.ts's transformer does not take apart.

import { type ClusterFound, type ClusterSearch, compareMasks, makeFound, type PlacementFound, type PlacementKernels, type PlacementSearch } from '../placement/index.js';
import { binomial, popcount } from '../shared/bits.js';

/**
 * The kernels' reusable result: `prev` when it has room for `count` candidates, else new arrays for
 * at least that many (16 at least) keeping `prev`'s evictions (fill makes room for those). One is
 * kept per search kind and filled in place; both kinds have the node column (makeFound's one shape).
 */
function foundFor(prev: ClusterFound | null, count: number): ClusterFound {
  if (prev === null || prev.score.length < count) {
    const c = Math.max(16, count);
    return makeFound(
      new Int32Array(2 * c),
      new Int32Array(c),
      new Float64Array(c),
      new Int32Array(c),
      new Float64Array(c),
      new Float64Array(c),
      new Int32Array(c),
      new Int32Array(c + 1),
      prev === null ? new Int32Array(64) : prev.evictions,
    );
  }
  return prev;
}

function bitOf(lo: number, hi: number, p: number): number {
  return p < 32 ? (lo >>> p) & 1 : (hi >>> (p - 32)) & 1;
}

function shareOfSize(sizes: Int32Array, shares: Float64Array, n: number): number {
  for (let si = 0; si < sizes.length; si++) if (sizes[si] === n) return shares[si]!;
  return 0;
}

const NO_MASKS = new Int32Array(0);
const NO_BYTES = new Float64Array(0);

/** The placement kernels in plain TypeScript. */
export function placementTsKernels(): PlacementKernels {
  // Kept candidates of the current call, best first (capacity `cap`).
  let cap = 0;
  let kLo = new Int32Array(0);
  let kHi = new Int32Array(0);
  let kEv = new Int32Array(0);
  let kN = new Int32Array(0);
  let kScore = new Int32Array(0);
  let kCand = new Int32Array(0);
  let kRank = new Int32Array(0);
  let kBytes = new Float64Array(0);
  let kMin = new Float64Array(0);
  let kSum = new Float64Array(0);
  let kLoad = new Float64Array(0);
  let count = 0;
  let limit = 0;
  let pack = false;
  // Per-position scratch of one node (at most 64 GPUs).
  const potential = new Float64Array(64);
  const avail = new Float64Array(64);
  const eligible = new Int32Array(64);
  const fits = new Int32Array(64);
  const pick = new Int32Array(64);
  const chosen = new Int32Array(64);
  /** Bytes evicted by the last planEvictions call. */
  let evBytes = 0;
  /** clusterSearch's result arrays, reused from call to call (grown on demand). */
  let out: ClusterFound | null = null;

  function reset(l: number, p: boolean): void {
    if (l > cap) {
      cap = l;
      kLo = new Int32Array(l);
      kHi = new Int32Array(l);
      kEv = new Int32Array(l);
      kN = new Int32Array(l);
      kScore = new Int32Array(l);
      kCand = new Int32Array(l);
      kRank = new Int32Array(l);
      kBytes = new Float64Array(l);
      kMin = new Float64Array(l);
      kSum = new Float64Array(l);
      kLoad = new Float64Array(l);
    }
    count = 0;
    limit = l;
    pack = p;
  }

  /**
   * Plans evictions of the set chosen[0..n) for `share` into `avail`; writes evicted stale indices
   * to `out` from `at` when out is not null. Returns how many slots it evicts, or -1 when it cannot fit.
   */
  function planEvictions(n: number, share: number, free: Float64Array, fo: number, masks: Int32Array, bytesOf: Float64Array, so: number, S: number, out: Int32Array | null, at: number): number {
    let lackLo = 0;
    let lackHi = 0;
    for (let j = 0; j < n; j++) {
      const p = chosen[j]!;
      avail[p] = free[fo + p]!;
      if (avail[p]! < share) {
        if (p < 32) lackLo |= 1 << p;
        else lackHi |= 1 << (p - 32);
      }
    }
    evBytes = 0;
    let ev = 0;
    for (let k = 0; k < S && (lackLo | lackHi) !== 0; k++) {
      const slo = masks[2 * (so + k)]!;
      const shi = masks[2 * (so + k) + 1]!;
      const bytes = bytesOf[so + k]!;
      if (((slo & lackLo) | (shi & lackHi)) === 0 || bytes <= 0) continue;
      if (out !== null) out[at + ev] = k;
      ev++;
      evBytes += bytes * (popcount(slo) + popcount(shi));
      for (let j = 0; j < n; j++) {
        const p = chosen[j]!;
        if (!bitOf(slo, shi, p)) continue;
        avail[p] = avail[p]! + bytes;
        if (avail[p]! >= share) {
          if (p < 32) lackLo &= ~(1 << p);
          else lackHi &= ~(1 << (p - 32));
        }
      }
    }
    return (lackLo | lackHi) !== 0 ? -1 : ev;
  }

  /** True when kept record q ranks strictly before every option of a node bounded by (ev, 0 bytes, n, score, metric, load, rank). */
  function keptBeatsBound(q: number, ev: number, n: number, score: number, metric: number, load: number, rank: number): boolean {
    if (kEv[q] !== ev) return kEv[q]! < ev;
    if (kBytes[q]! > 0) return false;
    if (kN[q] !== n) return kN[q]! < n;
    if (kScore[q] !== score) return kScore[q]! > score;
    if (pack) {
      if (kSum[q] !== metric) return kSum[q]! < metric;
    } else if (kMin[q] !== metric) return kMin[q]! > metric;
    if (kLoad[q] !== load) return kLoad[q]! < load;
    return kRank[q]! < rank;
  }

  /**
   * Searches one node (GPUs at `fo` in free/total, evictable slots at `so`) and merges its
   * candidates into the kept list. Returns 0, or the size whose enumeration would pass the budget.
   */
  function searchNode(
    cand: number,
    N: number,
    free: Float64Array,
    total: Float64Array,
    fo: number,
    sizes: Int32Array,
    shares: Float64Array,
    masks: Int32Array,
    bytesOf: Float64Array,
    so: number,
    S: number,
    m2: Int32Array | null,
    load: number,
    rank: number,
    budget: number,
  ): number {
    for (let p = 0; p < N; p++) potential[p] = free[fo + p]!;
    for (let k = 0; k < S; k++) {
      const lo = masks[2 * (so + k)]!;
      const hi = masks[2 * (so + k) + 1]!;
      const b = bytesOf[so + k]!;
      for (let p = 0; p < N; p++) if (bitOf(lo, hi, p)) potential[p] = potential[p]! + b;
    }
    let enumerated = 0;
    for (let si = 0; si < sizes.length; si++) {
      const n = sizes[si]!;
      if (n > N) break;
      const share = shares[si]!;
      // Every later candidate has more GPUs than the worst kept one, which evicts nothing: none ranks before it.
      if (count === limit && kEv[limit - 1] === 0 && kN[limit - 1]! < n) break;
      let m = 0;
      let f = 0;
      for (let p = 0; p < N; p++) {
        if (total[fo + p]! >= share && potential[p]! >= share) {
          eligible[m++] = p;
          if (free[fo + p]! >= share) fits[f++] = p;
        }
      }
      if (m < n) continue;
      enumerated += binomial(m, n);
      if (enumerated > budget) return n;
      // Pass 0: the subsets of the GPUs that fit without eviction; pass 1: the subsets of the eligible
      // GPUs that need an eviction, skipped when the kept list already holds `limit` options that
      // evict nothing (none of them ranks before those). Each in lexicographic order (as the core).
      for (let pass = 0; pass < 2; pass++) {
        const list = pass === 0 ? fits : eligible;
        const len = pass === 0 ? f : m;
        if (len < n || (pass === 1 && count === limit && kEv[limit - 1] === 0)) continue;
        for (let j = 0; j < n; j++) pick[j] = j;
        for (;;) {
          let lo = 0;
          let hi = 0;
          let lacking = false;
          for (let j = 0; j < n; j++) {
            const p = list[pick[j]!]!;
            chosen[j] = p;
            if (p < 32) lo |= 1 << p;
            else hi |= 1 << (p - 32);
            if (free[fo + p]! < share) lacking = true;
          }
          // Pass 1 starts only while the list lacks `limit` eviction-free options, and what it adds
          // evicts: that stays so for the whole pass, so every subset that needs an eviction is tried.
          if (pass === 0 || lacking) {
            let ev = 0;
            if (lacking) ev = planEvictions(n, share, free, fo, masks, bytesOf, so, S, null, 0);
            else {
              evBytes = 0;
              for (let j = 0; j < n; j++) avail[chosen[j]!] = free[fo + chosen[j]!]!;
            }
            if (ev >= 0) {
              let score = 0;
              if (m2 !== null) for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) score += m2[chosen[a]! * N + chosen[b]!]!;
              let rMin = Infinity;
              let rSum = 0;
              for (let j = 0; j < n; j++) {
                const r = avail[chosen[j]!]! - share;
                if (r < rMin) rMin = r;
                rSum += r;
              }
              // Position among the kept: first kept entry this candidate beats.
              let at = count;
              while (at > 0) {
                const q = at - 1;
                let better: boolean;
                if (ev !== kEv[q]) better = ev < kEv[q]!;
                else if (evBytes !== kBytes[q]) better = evBytes < kBytes[q]!;
                else if (n !== kN[q]) better = n < kN[q]!;
                else if (score !== kScore[q]) better = score > kScore[q]!;
                else if (pack && rSum !== kSum[q]) better = rSum < kSum[q]!;
                else if (!pack && rMin !== kMin[q]) better = rMin > kMin[q]!;
                else if (load !== kLoad[q]) better = load < kLoad[q]!;
                else if (rank !== kRank[q]) better = rank < kRank[q]!;
                else better = compareMasks(lo, hi, kLo[q]!, kHi[q]!) < 0;
                if (!better) break;
                at = q;
              }
              if (at < limit) {
                const last = count < limit ? count : limit - 1;
                if (last > at) {
                  kLo.copyWithin(at + 1, at, last);
                  kHi.copyWithin(at + 1, at, last);
                  kEv.copyWithin(at + 1, at, last);
                  kN.copyWithin(at + 1, at, last);
                  kScore.copyWithin(at + 1, at, last);
                  kCand.copyWithin(at + 1, at, last);
                  kRank.copyWithin(at + 1, at, last);
                  kBytes.copyWithin(at + 1, at, last);
                  kMin.copyWithin(at + 1, at, last);
                  kSum.copyWithin(at + 1, at, last);
                  kLoad.copyWithin(at + 1, at, last);
                }
                kLo[at] = lo;
                kHi[at] = hi;
                kEv[at] = ev;
                kN[at] = n;
                kScore[at] = score;
                kCand[at] = cand;
                kRank[at] = rank;
                kBytes[at] = evBytes;
                kMin[at] = rMin;
                kSum[at] = rSum;
                kLoad[at] = load;
                if (count < limit) count++;
              }
            }
          }
          // Next n-combination of 0..len-1 in lexicographic order.
          let j = n - 1;
          while (j >= 0 && pick[j] === len - n + j) j--;
          if (j < 0) break;
          pick[j] = pick[j]! + 1;
          for (let t = j + 1; t < n; t++) pick[t] = pick[t - 1]! + 1;
        }
      }
    }
    return 0;
  }

  /** placementSearch's result arrays, reused from call to call (grown on demand). */
  let found: ClusterFound | null = null;

  /**
   * The kept list into `o` (valid until the next call; o has room for `count`, see foundFor);
   * `evictionsOf(c, out, at)` writes candidate c's evicted slots.
   */
  function fill<T extends PlacementFound>(o: T, overflowSize: number, evictionsOf: (c: number, out: Int32Array, at: number) => void): T {
    o.count = count;
    o.overflowSize = overflowSize;
    o.evictStart[0] = 0;
    for (let c = 0; c < count; c++) {
      o.masks[2 * c] = kLo[c]!;
      o.masks[2 * c + 1] = kHi[c]!;
      o.evictCount[c] = kEv[c]!;
      o.evictedBytes[c] = kBytes[c]!;
      o.score[c] = kScore[c]!;
      o.remainMin[c] = kMin[c]!;
      o.remainSum[c] = kSum[c]!;
      o.evictStart[c + 1] = o.evictStart[c]! + kEv[c]!;
    }
    const need = o.evictStart[count]!;
    if (o.evictions.length < need) o.evictions = new Int32Array(Math.max(need, 2 * o.evictions.length));
    for (let c = 0; c < count; c++) if (kEv[c]! > 0) evictionsOf(c, o.evictions, o.evictStart[c]!);
    return o;
  }

  /** Fills chosen[] with the positions of kept candidate c; returns how many. */
  function positionsOf(c: number, N: number): number {
    let n = 0;
    for (let p = 0; p < N; p++) if (bitOf(kLo[c]!, kHi[c]!, p)) chosen[n++] = p;
    return n;
  }

  return {
    placementSearch(s: PlacementSearch): PlacementFound {
      reset(s.limit, s.pack);
      const S = s.staleBytes.length;
      const overflow = searchNode(0, s.gpus, s.free, s.total, 0, s.sizes, s.shares, s.staleMasks, s.staleBytes, 0, S, s.pairScores, 0, 0, s.budget);
      if (overflow > 0) count = 0;
      found = foundFor(found, count);
      return fill(found, overflow, (c, out, at) => {
        const n = positionsOf(c, s.gpus);
        planEvictions(n, shareOfSize(s.sizes, s.shares, n), s.free, 0, s.staleMasks, s.staleBytes, 0, S, out, at);
      });
    },

    clusterSearch(s: ClusterSearch): ClusterFound {
      reset(s.limit, s.pack);
      let overflow = 0;
      let overflowNode = -1;
      const masks = s.staleMasks.length === 0 ? NO_MASKS : s.staleMasks;
      const bytesOf = s.staleBytes.length === 0 ? NO_BYTES : s.staleBytes;
      for (let i = 0; i < s.count; i++) {
        if (count === limit && keptBeatsBound(limit - 1, s.bEv[i]!, s.bN[i]!, s.bScore[i]!, s.bMetric[i]!, s.load[i]!, s.rank[i]!)) continue;
        const so = s.staleStart[i]!;
        const m2 = s.matrices[i] as Int32Array | null; // i < s.count (a `!` would drop the null too)
        const o = searchNode(i, s.gpus[i]!, s.free, s.total, s.offset[i]!, s.sizes, s.shares, masks, bytesOf, so, s.staleStart[i + 1]! - so, m2, s.load[i]!, s.rank[i]!, s.budget);
        if (o > 0) {
          overflow = o;
          overflowNode = i;
          break;
        }
      }
      if (overflow > 0) count = 0;
      // Into the reusable result (valid until the next call).
      out = foundFor(out, count);
      const o = fill(out, overflow, (c, evictions, at) => {
        const i = kCand[c]!;
        const n = positionsOf(c, s.gpus[i]!);
        const so = s.staleStart[i]!;
        planEvictions(n, shareOfSize(s.sizes, s.shares, n), s.free, s.offset[i]!, masks, bytesOf, so, s.staleStart[i + 1]! - so, evictions, at);
      });
      o.overflowNode = overflowNode;
      for (let c = 0; c < count; c++) o.node[c] = kCand[c]!;
      return o;
    },
  };
}
