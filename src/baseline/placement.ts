// The placement kernels in TypeScript: the same enumeration, per-GPU validation, eviction and
// ranking as assembly/placement.ts, with GPU sets as two 32-bit halves.
import type { PlacementFound, PlacementKernels, PlacementSearch } from '../placement.js';

function bitOf(lo: number, hi: number, p: number): number {
  return p < 32 ? (lo >>> p) & 1 : (hi >>> (p - 32)) & 1;
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Binomial coefficient as a float (only compared against the budget). */
function choose(m: number, n: number): number {
  let c = 1;
  for (let k = 0; k < n; k++) c = (c * (m - k)) / (k + 1);
  return c;
}

/** The placement kernels in plain TypeScript. */
export function placementTsKernels(): PlacementKernels {
  return {
    placementSearch(s: PlacementSearch): PlacementFound {
      const N = s.gpus;
      const S = s.staleBytes.length;
      const limit = s.limit;
      const potential = new Float64Array(N);
      for (let p = 0; p < N; p++) potential[p] = s.free[p];
      for (let k = 0; k < S; k++) {
        const lo = s.staleMasks[2 * k];
        const hi = s.staleMasks[2 * k + 1];
        for (let p = 0; p < N; p++) if (bitOf(lo, hi, p)) potential[p] += s.staleBytes[k];
      }
      // Kept candidates, best first.
      const kLo = new Int32Array(limit);
      const kHi = new Int32Array(limit);
      const kEv = new Int32Array(limit);
      const kBytes = new Float64Array(limit);
      const kN = new Int32Array(limit);
      const kScore = new Int32Array(limit);
      const kMin = new Float64Array(limit);
      const kSum = new Float64Array(limit);
      let count = 0;
      const avail = new Float64Array(N);
      const eligible = new Int32Array(N);
      const pick = new Int32Array(N);
      const chosen = new Int32Array(N);
      const pack = s.pack;
      const m2 = s.pairScores;
      let enumerated = 0;
      let overflowSize = 0;

      // Plans evictions of the set (chosen[0..n)) for `share`; returns -1 when it cannot fit.
      let evBytes = 0;
      const planEvictions = (n: number, lo: number, hi: number, share: number, out: Int32Array | null, at: number): number => {
        let lackLo = 0;
        let lackHi = 0;
        for (let j = 0; j < n; j++) {
          const p = chosen[j];
          avail[p] = s.free[p];
          if (avail[p] < share) {
            if (p < 32) lackLo |= 1 << p;
            else lackHi |= 1 << (p - 32);
          }
        }
        evBytes = 0;
        let ev = 0;
        for (let k = 0; k < S && (lackLo | lackHi) !== 0; k++) {
          const slo = s.staleMasks[2 * k];
          const shi = s.staleMasks[2 * k + 1];
          const bytes = s.staleBytes[k];
          if (((slo & lackLo) | (shi & lackHi)) === 0 || bytes <= 0) continue;
          if (out !== null) out[at + ev] = k;
          ev++;
          evBytes += bytes * (popcount(slo) + popcount(shi));
          for (let j = 0; j < n; j++) {
            const p = chosen[j];
            if (!bitOf(slo, shi, p)) continue;
            avail[p] += bytes;
            if (avail[p] >= share) {
              if (p < 32) lackLo &= ~(1 << p);
              else lackHi &= ~(1 << (p - 32));
            }
          }
        }
        return (lackLo | lackHi) !== 0 ? -1 : ev;
      };

      for (let si = 0; si < s.sizes.length; si++) {
        const n = s.sizes[si];
        const share = s.shares[si];
        if (count === limit && kEv[limit - 1] === 0) break; // every later candidate ranks after the kept ones
        let m = 0;
        for (let p = 0; p < N; p++) if (s.total[p] >= share && potential[p] >= share) eligible[m++] = p;
        if (m < n) continue;
        enumerated += choose(m, n);
        if (enumerated > s.budget) {
          overflowSize = n;
          break;
        }
        for (let j = 0; j < n; j++) pick[j] = j;
        for (;;) {
          let lo = 0;
          let hi = 0;
          let lacking = false;
          for (let j = 0; j < n; j++) {
            const p = eligible[pick[j]];
            chosen[j] = p;
            if (p < 32) lo |= 1 << p;
            else hi |= 1 << (p - 32);
            if (s.free[p] < share) lacking = true;
          }
          const full = count === limit;
          if (!(lacking && full && kEv[limit - 1] === 0)) {
            const ev = lacking ? planEvictions(n, lo, hi, share, null, 0) : 0;
            if (!lacking) {
              evBytes = 0;
              for (let j = 0; j < n; j++) avail[chosen[j]] = s.free[chosen[j]];
            }
            if (ev >= 0) {
              let score = 0;
              if (m2 !== null) for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) score += m2[chosen[a] * N + chosen[b]];
              let rMin = Infinity;
              let rSum = 0;
              for (let j = 0; j < n; j++) {
                const r = avail[chosen[j]] - share;
                if (r < rMin) rMin = r;
                rSum += r;
              }
              // Position among the kept: first kept entry this candidate beats.
              let at = count;
              while (at > 0) {
                const q = at - 1;
                let better: boolean;
                if (ev !== kEv[q]) better = ev < kEv[q];
                else if (evBytes !== kBytes[q]) better = evBytes < kBytes[q];
                else if (n !== kN[q]) better = n < kN[q];
                else if (score !== kScore[q]) better = score > kScore[q];
                else if (pack && rSum !== kSum[q]) better = rSum < kSum[q];
                else if (!pack && rMin !== kMin[q]) better = rMin > kMin[q];
                else {
                  let x = lo ^ kLo[q];
                  if (x !== 0) better = (lo & x & -x) !== 0;
                  else {
                    x = hi ^ kHi[q];
                    better = (hi & x & -x) !== 0;
                  }
                }
                if (!better) break;
                at = q;
              }
              if (at < limit) {
                const last = count < limit ? count : limit - 1;
                for (let q = last; q > at; q--) {
                  kLo[q] = kLo[q - 1];
                  kHi[q] = kHi[q - 1];
                  kEv[q] = kEv[q - 1];
                  kBytes[q] = kBytes[q - 1];
                  kN[q] = kN[q - 1];
                  kScore[q] = kScore[q - 1];
                  kMin[q] = kMin[q - 1];
                  kSum[q] = kSum[q - 1];
                }
                kLo[at] = lo;
                kHi[at] = hi;
                kEv[at] = ev;
                kBytes[at] = evBytes;
                kN[at] = n;
                kScore[at] = score;
                kMin[at] = rMin;
                kSum[at] = rSum;
                if (count < limit) count++;
              }
            }
          }
          // Next n-combination of 0..m-1 in lexicographic order.
          let j = n - 1;
          while (j >= 0 && pick[j] === m - n + j) j--;
          if (j < 0) break;
          pick[j]++;
          for (let t = j + 1; t < n; t++) pick[t] = pick[t - 1] + 1;
        }
      }
      if (overflowSize > 0) count = 0;
      const evictStart = new Int32Array(count + 1);
      for (let c = 0; c < count; c++) evictStart[c + 1] = evictStart[c] + kEv[c];
      const evictions = new Int32Array(evictStart[count]);
      const share = (n: number): number => {
        for (let si = 0; si < s.sizes.length; si++) if (s.sizes[si] === n) return s.shares[si];
        return 0;
      };
      for (let c = 0; c < count; c++) {
        if (kEv[c] === 0) continue;
        let n = 0;
        for (let p = 0; p < N; p++) if (bitOf(kLo[c], kHi[c], p)) chosen[n++] = p;
        planEvictions(n, kLo[c], kHi[c], share(n), evictions, evictStart[c]);
      }
      const masks = new Int32Array(2 * count);
      for (let c = 0; c < count; c++) {
        masks[2 * c] = kLo[c];
        masks[2 * c + 1] = kHi[c];
      }
      return {
        count,
        masks,
        evictCount: kEv.slice(0, count),
        evictedBytes: kBytes.slice(0, count),
        score: kScore.slice(0, count),
        remainMin: kMin.slice(0, count),
        remainSum: kSum.slice(0, count),
        evictStart,
        evictions,
        overflowSize,
      };
    },
  };
}
