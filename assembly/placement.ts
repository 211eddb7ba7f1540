// Model placement: enumerate every allowed-size GPU subset (Gosper's hack over the GPUs that can
// take the share), validate each chosen GPU (free + evicted >= share), plan stale-slot evictions,
// score by topology, and keep the best `limit` by the ranking key of src/placement.ts.
import { maskScore } from './topology';

// Kept-candidate record layout (bytes): lo i32, hi i32, ev i32, n i32, score i32, pad, bytes f64, min f64, sum f64.
const REC: usize = 48;

// @ts-ignore: decorator
@inline function f64At(base: usize, k: i32): f64 {
  return load<f64>(base + (<usize>k << 3));
}

// @ts-ignore: decorator
@inline function i32At(base: usize, k: i32): i32 {
  return load<i32>(base + (<usize>k << 2));
}

// @ts-ignore: decorator
@inline function maskAt(masks: usize, k: i32): u64 {
  return load<u64>(masks + (<usize>k << 3));
}

/** Bytes evicted by the last evictionPlan call. */
let lastEvictedBytes: f64 = 0;

/**
 * Plans evictions of `chosen` for `share` into `avail` (f64 per position); writes evicted stale
 * indices to `out` when out != 0. Returns how many slots it evicts, or -1 when the set cannot fit.
 */
function evictionPlan(chosen: u64, share: f64, free: usize, staleMasks: usize, staleBytes: usize, staleCount: i32, avail: usize, out: usize): i32 {
  let lacking: u64 = 0;
  let rest = chosen;
  while (rest != 0) {
    const p = <i32>ctz(rest);
    rest &= rest - 1;
    const a = f64At(free, p);
    store<f64>(avail + (<usize>p << 3), a);
    if (a < share) lacking |= (<u64>1) << p;
  }
  let bytesOut: f64 = 0;
  let ev: i32 = 0;
  for (let k = 0; k < staleCount && lacking != 0; k++) {
    const sm = maskAt(staleMasks, k);
    const bytes = f64At(staleBytes, k);
    if ((sm & lacking) == 0 || bytes <= 0) continue;
    if (out != 0) store<i32>(out + (<usize>ev << 2), k);
    ev++;
    bytesOut += bytes * <f64>(<i32>popcnt(sm));
    let hit = sm & chosen;
    while (hit != 0) {
      const p = <i32>ctz(hit);
      hit &= hit - 1;
      const a = f64At(avail, p) + bytes;
      store<f64>(avail + (<usize>p << 3), a);
      if (a >= share) lacking &= ~((<u64>1) << p);
    }
  }
  lastEvictedBytes = bytesOut;
  return lacking != 0 ? -1 : ev;
}

/** True when candidate (ev, bytes, n, score, min, sum, mask) ranks before the kept record at `r`. */
// @ts-ignore: decorator
@inline function ranksBefore(ev: i32, bytes: f64, n: i32, score: i32, rMin: f64, rSum: f64, mask: u64, pack: bool, r: usize): bool {
  const kEv = load<i32>(r, 8);
  if (ev != kEv) return ev < kEv;
  const kBytes = load<f64>(r, 24);
  if (bytes != kBytes) return bytes < kBytes;
  const kN = load<i32>(r, 12);
  if (n != kN) return n < kN;
  const kScore = load<i32>(r, 16);
  if (score != kScore) return score > kScore;
  if (pack) {
    const kSum = load<f64>(r, 40);
    if (rSum != kSum) return rSum < kSum;
  } else {
    const kMin = load<f64>(r, 32);
    if (rMin != kMin) return rMin > kMin;
  }
  const x = mask ^ load<u64>(r);
  return (mask & x & (~x + 1)) != 0;
}

/** Binomial coefficient as a float (only compared against the budget). */
function choose(m: i32, n: i32): f64 {
  let c: f64 = 1;
  for (let k = 0; k < n; k++) c = (c * <f64>(m - k)) / <f64>(k + 1);
  return c;
}

/**
 * One node's search. Inputs: `free`, `total` (f64 per position), `sizes` (i32, ascending) with
 * `shares` (f64), `staleMasks` (u64 per evictable slot, in eviction order) and `staleBytes` (f64),
 * the pair matrix already loaded (when useScores != 0). Outputs: `kept` (limit records of REC bytes,
 * best first), `evictStart` (limit + 1 i32) and `evictions` (evictCap i32). `scratch` holds 3 × 64 f64.
 * `result` (3 i32): kept count, overflow size (0 or the size that passed the budget), evictions needed.
 */
export function placementSearch(
  gpus: i32, free: usize, total: usize, sizes: usize, shares: usize, sizeCount: i32,
  staleMasks: usize, staleBytes: usize, staleCount: i32,
  useScores: i32, pack: i32, limit: i32, budget: f64,
  kept: usize, evictStart: usize, evictions: usize, evictCap: i32, scratch: usize, result: usize,
): void {
  const potential = scratch;
  const avail = scratch + 64 * 8;
  const eligible = scratch + 128 * 8; // i32 × 64
  const isPack = pack != 0;
  for (let p = 0; p < gpus; p++) store<f64>(potential + (<usize>p << 3), f64At(free, p));
  for (let k = 0; k < staleCount; k++) {
    let sm = maskAt(staleMasks, k);
    const bytes = f64At(staleBytes, k);
    while (sm != 0) {
      const p = <i32>ctz(sm);
      sm &= sm - 1;
      store<f64>(potential + (<usize>p << 3), f64At(potential, p) + bytes);
    }
  }
  let count: i32 = 0;
  let enumerated: f64 = 0;
  let overflow: i32 = 0;
  const lastRec = kept + <usize>(limit - 1) * REC;
  for (let si = 0; si < sizeCount; si++) {
    const n = i32At(sizes, si);
    const share = f64At(shares, si);
    if (count == limit && load<i32>(lastRec, 8) == 0) break;
    let m: i32 = 0;
    let freeMask: u64 = 0; // eligible GPUs that fit without eviction
    for (let p = 0; p < gpus; p++) {
      if (f64At(total, p) >= share && f64At(potential, p) >= share) {
        store<i32>(eligible + (<usize>m << 2), p);
        m++;
        if (f64At(free, p) >= share) freeMask |= (<u64>1) << p;
      }
    }
    if (m < n) continue;
    enumerated += choose(m, n);
    if (enumerated > budget) {
      overflow = n;
      break;
    }
    const dense = m == gpus;
    // Gosper's hack over m bits: every n-subset of the eligible GPUs.
    let c: u64 = n == 64 ? <u64>-1 : ((<u64>1) << n) - 1;
    const stop: u64 = m == 64 ? 0 : (<u64>1) << m;
    while (true) {
      let mask: u64;
      if (dense) mask = c;
      else {
        mask = 0;
        let bits = c;
        while (bits != 0) {
          const j = <i32>ctz(bits);
          bits &= bits - 1;
          mask |= (<u64>1) << i32At(eligible, j);
        }
      }
      const lacking = (mask & ~freeMask) != 0;
      if (!(lacking && count == limit && load<i32>(lastRec, 8) == 0)) {
        let ev: i32 = 0;
        let bytes: f64 = 0;
        if (lacking) {
          ev = evictionPlan(mask, share, free, staleMasks, staleBytes, staleCount, avail, 0);
          bytes = lastEvictedBytes;
        } else {
          let rest = mask;
          while (rest != 0) {
            const p = <i32>ctz(rest);
            rest &= rest - 1;
            store<f64>(avail + (<usize>p << 3), f64At(free, p));
          }
        }
        if (ev >= 0) {
          const score = useScores != 0 ? maskScore(mask) : 0;
          let rMin: f64 = Infinity;
          let rSum: f64 = 0;
          let rest = mask;
          while (rest != 0) {
            const p = <i32>ctz(rest);
            rest &= rest - 1;
            const r = f64At(avail, p) - share;
            if (r < rMin) rMin = r;
            rSum += r;
          }
          let at = count;
          while (at > 0) {
            if (!ranksBefore(ev, bytes, n, score, rMin, rSum, mask, isPack, kept + <usize>(at - 1) * REC)) break;
            at--;
          }
          if (at < limit) {
            const last = count < limit ? count : limit - 1;
            if (last > at) memory.copy(kept + <usize>(at + 1) * REC, kept + <usize>at * REC, <usize>(last - at) * REC);
            const r = kept + <usize>at * REC;
            store<u64>(r, mask);
            store<i32>(r, ev, 8);
            store<i32>(r, n, 12);
            store<i32>(r, score, 16);
            store<f64>(r, bytes, 24);
            store<f64>(r, rMin, 32);
            store<f64>(r, rSum, 40);
            if (count < limit) count++;
          }
        }
      }
      // Gosper: next larger integer with the same number of set bits.
      const low = c & (~c + 1);
      const ripple = c + low;
      if (ripple == 0 || ripple >= stop && stop != 0) break;
      c = (((ripple ^ c) >> 2) / low) | ripple;
      if (stop != 0 && c >= stop) break;
    }
  }
  if (overflow > 0) count = 0;
  let need: i32 = 0;
  store<i32>(evictStart, 0);
  for (let k = 0; k < count; k++) {
    need += load<i32>(kept + <usize>k * REC, 8);
    store<i32>(evictStart + (<usize>(k + 1) << 2), need);
  }
  store<i32>(result, count);
  store<i32>(result, overflow, 4);
  store<i32>(result, need, 8);
  if (need > evictCap) return;
  for (let k = 0; k < count; k++) {
    const r = kept + <usize>k * REC;
    if (load<i32>(r, 8) == 0) continue;
    const n = load<i32>(r, 12);
    let share: f64 = 0;
    for (let si = 0; si < sizeCount; si++) if (i32At(sizes, si) == n) share = f64At(shares, si);
    evictionPlan(load<u64>(r), share, free, staleMasks, staleBytes, staleCount, avail, evictions + (<usize>i32At(evictStart, k) << 2));
  }
}
