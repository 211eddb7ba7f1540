// Model placement: enumerate every allowed-size GPU subset (in lexicographic order, over the GPUs
// that can take the share), validate each chosen GPU (free + evicted >= share), plan stale-slot evictions,
// score by topology, and keep the best `limit` by the ranking key of src/placement/index.ts.
// One call searches one node (placementSearch) or every candidate node of a cluster plan
// (clusterSearch, merging the best `limit` across nodes with the node tie-break in the core).
import { binomial, lexBefore } from './bits';
import { pairRow } from './topology';

// Kept-candidate record layout (bytes): mask u64 @0, ev i32 @8, n i32 @12, score i32 @16,
// candidate i32 @20, bytes f64 @24, min f64 @32, sum f64 @40, load f64 @48, rank i32 @56, pad @60,
// planned evictions u64 @64 (bit k: stale slot k; 0 when planned slot by slot), pad @72.
// The kept region holds `limit` records, then the rank order: i32 per rank, the record at that rank
// (see keptAt). A candidate that enters moves the order's tail up one entry, not its records.
const REC: usize = 80;

// Per-candidate record of clusterSearch's `info` (i32 × 8): gpus, free/total offset (items),
// stale offset (items), stale count, matrix offset (items, -1 without topology), node rank,
// bound evictions, bound GPU count. `bounds` (f64 × 4): load, bound score, bound metric, unused.
const INFO: i32 = 8;
const FB: i32 = 4;

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

// The subset enumeration's state (searchNode): chosen indices into the eligible list, and the index
// and GPU masks of each prefix of them.
const plPick: usize = memory.data(64 * 4, 16);
// Set scores of each prefix of the picks, and each GPU's pair scores to the picks up to each depth
// (64 i32 per depth; reads past `gpus` in a row are never used).
const plScore: usize = memory.data(64 * 4, 16);
const plGains: usize = memory.data(64 * 64 * 4, 16);
// The eligible GPUs that fit without eviction (searchNode's first pass).
const plFits: usize = memory.data(64 * 4, 16);
const plIdx: usize = memory.data(64 * 8, 16);
const plGpu: usize = memory.data(64 * 8, 16);

/** Bytes evicted by the last evictionPlan call. */
let lastEvictedBytes: f64 = 0;

/**
 * Pass 1's eviction plans from bit sets over the stale list (at most 64 evictable slots), into the
 * caller's scratch (64 u64 / u64 / f64 each): `touch`, the stale slots touching each position;
 * `own`, each eligible position's own eviction plan for `share`: the stale slots touching it, in
 * order, while its free memory plus what they free stays under the share (0 for a position that
 * fits); `weight`, each slot's bytes times its GPU count. evictionPlan's plan for a set is exactly
 * the union of its members' own plans: a slot is evicted while some chosen GPU it touches lacks room,
 * and a GPU that lacks room at slot k has had every earlier slot touching it evicted, so its memory
 * there is what its own plan reached at k. Bytes are added in the same order as evictionPlan adds them.
 */
function ownPlans(gpus: i32, share: f64, free: usize, staleMasks: usize, staleBytes: usize, staleCount: i32, touch: usize, own: usize, weight: usize): void {
  for (let p = 0; p < gpus; p++) store<u64>(touch + (<usize>p << 3), 0);
  for (let k = 0; k < staleCount; k++) {
    let sm = maskAt(staleMasks, k);
    const bytes = f64At(staleBytes, k);
    store<f64>(weight + (<usize>k << 3), bytes * <f64>(<i32>popcnt(sm)));
    while (sm != 0) {
      const p = <i32>ctz(sm);
      sm &= sm - 1;
      const at = touch + (<usize>p << 3);
      store<u64>(at, load<u64>(at) | ((<u64>1) << k));
    }
  }
  for (let p = 0; p < gpus; p++) {
    let a = f64At(free, p);
    let plan: u64 = 0;
    let rest = load<u64>(touch + (<usize>p << 3));
    while (a < share && rest != 0) {
      const k = <i32>ctz(rest);
      rest &= rest - 1;
      const bytes = f64At(staleBytes, k);
      if (bytes <= 0) continue;
      plan |= (<u64>1) << k;
      a += bytes;
    }
    store<u64>(own + (<usize>p << 3), plan);
  }
}

/**
 * Plans evictions of `chosen` for `share` into `avail` (f64 per position); writes evicted stale
 * indices to `out` when out != 0. Returns how many slots it evicts, or -1 when the set cannot fit,
 * or when the plan is already behind (maxEv, maxBytes): more than maxEv evictions, or maxEv of them
 * and more than maxBytes (evictions and bytes only grow as the plan goes on; pass maxEv = -1 for no bound).
 */
function evictionPlan(chosen: u64, share: f64, free: usize, staleMasks: usize, staleBytes: usize, staleCount: i32, avail: usize, out: usize, maxEv: i32 = -1, maxBytes: f64 = 0): i32 {
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
    if (maxEv >= 0 && (ev > maxEv || (ev == maxEv && bytesOut > maxBytes))) return -1;
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

/**
 * True when candidate (ev, bytes, n, score, min, sum, load, rank, mask) ranks before the kept
 * record at `r`: the key of src/placement/index.ts, then the node tie-break (load, rank), then indices.
 */
// @ts-ignore: decorator
@inline function ranksBefore(ev: i32, bytes: f64, n: i32, score: i32, rMin: f64, rSum: f64, nodeLoad: f64, rank: i32, mask: u64, pack: bool, r: usize): bool {
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
  const kLoad = load<f64>(r, 48);
  if (nodeLoad != kLoad) return nodeLoad < kLoad;
  const kRank = load<i32>(r, 56);
  if (rank != kRank) return rank < kRank;
  return lexBefore<u64>(mask, load<u64>(r));
}

/** True when the kept record at `r` ranks strictly before every option a node bounded by (ev, n, score, metric, load, rank) can have. */
function recordBeatsBound(r: usize, ev: i32, n: i32, score: f64, metric: f64, nodeLoad: f64, rank: i32, pack: bool): bool {
  const kEv = load<i32>(r, 8);
  if (kEv != ev) return kEv < ev;
  if (load<f64>(r, 24) > 0) return false; // the bound evicts nothing more than 0 bytes
  const kN = load<i32>(r, 12);
  if (kN != n) return kN < n;
  const kScore = <f64>load<i32>(r, 16);
  if (kScore != score) return kScore > score;
  if (pack) {
    const kSum = load<f64>(r, 40);
    if (kSum != metric) return kSum < metric;
  } else {
    const kMin = load<f64>(r, 32);
    if (kMin != metric) return kMin > metric;
  }
  const kLoad = load<f64>(r, 48);
  if (kLoad != nodeLoad) return kLoad < nodeLoad;
  return load<i32>(r, 56) < rank;
}

// The kept list of the current call: `keptCount` records of REC bytes at `kept`, in any order, and
// at `keptOrder` (right after `keptLimit` records) the record of each rank, best first.
let kept: usize = 0;
let keptOrder: usize = 0;
let keptCount: i32 = 0;
let keptLimit: i32 = 0;
let packMode: bool = false;

/**
 * The record at rank `k` (0: best) of the kept list at `kb` with rank order `ko` (searchNode passes
 * them from locals: a module global is loaded again at every use, 2-5% of a DGX-2 search).
 */
// @ts-ignore: decorator
@inline function keptIn(kb: usize, ko: usize, k: i32): usize {
  return kb + <usize>i32At(ko, k) * REC;
}

/** The kept record at rank `k` of the current call's list. */
// @ts-ignore: decorator
@inline function keptAt(k: i32): usize {
  return keptIn(kept, keptOrder, k);
}

/**
 * The record the ranking bar is read from: the last of a full list; a record of the region (its
 * data unused, every read guarded by count == limit) before the list is full.
 */
// @ts-ignore: decorator
@inline function lastKeptIn(kb: usize, ko: usize, count: i32, limit: i32): usize {
  return count == limit ? keptIn(kb, ko, limit - 1) : kb;
}

/** Starts a call's kept list of `limit` records at `keptOut` (the rank order after them). */
function startKept(keptOut: usize, limit: i32, pack: i32): void {
  kept = keptOut;
  keptOrder = keptOut + <usize>limit * REC;
  keptCount = 0;
  keptLimit = limit;
  packMode = pack != 0;
}

/**
 * Searches one node and merges its candidates into the kept list. Sizes ascending (those above
 * `gpus` are skipped); matrix = 0 scores every set 0. `scratch` holds 7 × 64 f64. Returns 0, or the
 * size whose enumeration would pass the budget.
 */
function searchNode(
  cand: i32, gpus: i32, free: usize, total: usize, sizes: usize, shares: usize, sizeCount: i32,
  staleMasks: usize, staleBytes: usize, staleCount: i32, matrix: usize, nodeLoad: f64, rank: i32, budget: f64, scratch: usize,
): i32 {
  const potential = scratch;
  const avail = scratch + 64 * 8;
  const eligible = scratch + 128 * 8; // i32 × 64
  // Pass 1's bit-set plans (see ownPlans), and the smallest free memory among picks 0..j (the
  // prefix) per j: 64 entries each. Locals, not module globals: a global is loaded again at every use.
  const lTouch = scratch + 192 * 8;
  const lOwn = scratch + 256 * 8;
  const lWeight = scratch + 320 * 8;
  const lMin = scratch + 384 * 8;
  const isPack = packMode;
  const limit = keptLimit;
  const kb = kept;
  const ko = keptOrder;
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
  let count = keptCount;
  let enumerated: f64 = 0;
  let overflow: i32 = 0;
  let lastRec = lastKeptIn(kb, ko, count, limit);
  for (let si = 0; si < sizeCount; si++) {
    const n = i32At(sizes, si);
    if (n > gpus) break;
    const share = f64At(shares, si);
    // Every later candidate has more GPUs than the worst kept one, which evicts nothing: none ranks before it.
    if (count == limit && load<i32>(lastRec, 8) == 0 && load<i32>(lastRec, 12) < n) break;
    let m: i32 = 0;
    // The eligible GPUs; those that fit without eviction also in fits, and as indices into the
    // eligible list in freeIdx (a subset of indices that lacks room is known from its index mask).
    let f: i32 = 0;
    let freeIdx: u64 = 0;
    for (let p = 0; p < gpus; p++) {
      if (f64At(total, p) >= share && f64At(potential, p) >= share) {
        store<i32>(eligible + (<usize>m << 2), p);
        if (f64At(free, p) >= share) {
          freeIdx |= (<u64>1) << m;
          store<i32>(plFits + (<usize>f << 2), p);
          f++;
        }
        m++;
      }
    }
    if (m < n) continue;
    enumerated += binomial(m, n);
    if (enumerated > budget) {
      overflow = n;
      break;
    }
    // Two passes over the n-subsets, each in lexicographic order of indices into its list (the
    // TypeScript twin's order: both backends visit the same subsets and plan the same evictions).
    // Pass 0: the subsets of the GPUs that fit without eviction. Pass 1: the subsets of the eligible
    // GPUs that need an eviction; none of them ranks before an option that evicts nothing, so the
    // pass is skipped when the kept list already holds `limit` of those. plPick[j]: the j-th chosen
    // index; plIdx[j] / plGpu[j]: the index and GPU masks of picks 0..j, brought up to date from the
    // first pick that changed.
    for (let pass = 0; pass < 2; pass++) {
      const list = pass == 0 ? plFits : eligible;
      const len = pass == 0 ? f : m;
      if (len < n || (pass == 1 && count == limit && load<i32>(lastRec, 8) == 0)) continue;
      // Pass 1 with at most 64 evictable slots plans from bit sets (ownPlans), else slot by slot.
      const bitPlans = pass == 1 && staleCount <= 64;
      if (bitPlans) ownPlans(gpus, share, free, staleMasks, staleBytes, staleCount, lTouch, lOwn, lWeight);
      for (let j = 0; j < n; j++) store<i32>(plPick + (<usize>j << 2), j);
      let from = 0;
      while (true) {
        // Picks from..n-2 (the prefix), brought up to date; the last pick runs in the loop below.
        let pIdx: u64 = from == 0 ? 0 : load<u64>(plIdx + (<usize>(from - 1) << 3));
        let pGpu: u64 = from == 0 ? 0 : load<u64>(plGpu + (<usize>(from - 1) << 3));
        let pScore: i32 = from == 0 || matrix == 0 ? 0 : i32At(plScore, from - 1);
        let pMin: f64 = from == 0 ? Infinity : f64At(lMin, from - 1);
        for (let j = from; j < n - 1; j++) {
          const e = load<i32>(plPick + (<usize>j << 2));
          const g = i32At(list, e);
          pIdx |= (<u64>1) << e;
          pGpu |= (<u64>1) << g;
          pMin = min(pMin, f64At(free, g));
          store<u64>(plIdx + (<usize>j << 3), pIdx);
          store<u64>(plGpu + (<usize>j << 3), pGpu);
          store<f64>(lMin + (<usize>j << 3), pMin);
          if (matrix != 0) {
            // The set score, incrementally: plGains row j - 1 holds each GPU's pair scores to picks
            // 0..j-1; row j adds g's matrix row to it (v128, four GPUs per add) for the next pick.
            const prev = plGains + (<usize>(j - 1) << 8);
            if (j > 0) pScore += load<i32>(prev + (<usize>g << 2));
            store<i32>(plScore + (<usize>j << 2), pScore);
            const row = matrix + (<usize>(g * gpus) << 2);
            const to = plGains + (<usize>j << 8);
            for (let w = 0; w < gpus; w += 4) {
              const o = <usize>w << 2;
              v128.store(to + o, j > 0 ? i32x4.add(v128.load(prev + o), v128.load(row + o)) : v128.load(row + o));
            }
          }
        }
        // The last pick, from its current index to the end of the list: each set is the prefix plus
        // one GPU, its score the prefix's plus that GPU's pair scores to the prefix (plGains row n - 2).
        const gains = n > 1 && matrix != 0 ? plGains + (<usize>(n - 2) << 8) : 0;
        // Pass 0 with `limit` kept: a set scoring under `bar` is behind the last kept one, and so is
        // one scoring `bar` whose spread metric is under barMin (see scoreBar).
        let bar = pass == 0 ? scoreBar(count, limit, lastRec, n) : i32.MIN_VALUE;
        let barMin = load<f64>(lastRec, 32);
        for (let e = load<i32>(plPick + (<usize>(n - 1) << 2)); e < len; e++) {
          const g = i32At(list, e);
          const cScore = gains != 0 ? pScore + load<i32>(gains + (<usize>g << 2)) : pScore;
          if (bar != i32.MIN_VALUE) {
            if (cScore < bar) continue;
            // Without eviction the smallest memory left is the smallest free memory less the share
            // (rounding is monotonic, so the minimum commutes with the subtraction).
            if (cScore == bar && !isPack && min(pMin, f64At(free, g)) - share < barMin) continue;
          }
          const cIdx = pIdx | ((<u64>1) << e);
          const cGpu = pGpu | ((<u64>1) << g);
          // Pass 0 lists only GPUs that fit; pass 1 leaves out the subsets pass 0 saw. Pass 1 starts
          // only while the list lacks `limit` eviction-free options, and what it adds evicts: that
          // stays so for the whole pass, so every subset that needs an eviction is tried.
          const lacking = pass == 1 && (cIdx & ~freeIdx) != 0;
          if (pass == 0 || lacking) {
            const mask = cGpu;
            let ev: i32 = 0;
            let bytes: f64 = 0;
            let planned: u64 = 0;
            if (lacking) {
              if (bitPlans) {
                // The set's plan is the union of its members' own plans; its bytes are summed (in
                // slot order, as evictionPlan does) only when the count leaves it in the running.
                let rest = mask;
                while (rest != 0) {
                  const p = <i32>ctz(rest);
                  rest &= rest - 1;
                  planned |= load<u64>(lOwn + (<usize>p << 3));
                }
                ev = <i32>popcnt(planned);
                if (count == limit && ev > load<i32>(lastRec, 8)) ev = -1;
                else {
                  let e = planned;
                  while (e != 0) {
                    const k = <i32>ctz(e);
                    e &= e - 1;
                    bytes += f64At(lWeight, k);
                  }
                }
              } else {
                // With `limit` kept, a plan that passes the last kept one's evictions (or matches them
                // with more bytes) cannot enter: it stops there.
                const full = count == limit;
                ev = evictionPlan(mask, share, free, staleMasks, staleBytes, staleCount, avail, 0, full ? load<i32>(lastRec, 8) : -1, full ? load<f64>(lastRec, 24) : 0);
                bytes = lastEvictedBytes;
              }
            }
            const score = cScore;
            // With `limit` kept, a candidate already behind the last kept one on (evictions, evicted
            // bytes, GPUs, score) cannot enter: its free-memory metric is not worked out (the result is
            // the same; most subsets of a large search end here).
            let behind = ev < 0;
            if (!behind && count == limit) {
              const kEv = load<i32>(lastRec, 8);
              if (ev != kEv) behind = ev > kEv;
              else {
                const kBytes = load<f64>(lastRec, 24);
                if (bytes != kBytes) behind = bytes > kBytes;
                else {
                  const kN = load<i32>(lastRec, 12);
                  behind = n != kN ? n > kN : score < load<i32>(lastRec, 16);
                }
              }
            }
            if (!behind) {
              // The memory left on each chosen GPU: without eviction (pass 0) its free memory less the
              // share; with a bit-set plan, free plus the planned slots touching it (in slot order),
              // less the share; with a plan made slot by slot, what evictionPlan left in avail.
              const fromBits = lacking && bitPlans;
              const left = lacking && !bitPlans ? avail : free;
              let rMin: f64 = Infinity;
              let rSum: f64 = 0;
              let rest = mask;
              while (rest != 0) {
                const p = <i32>ctz(rest);
                rest &= rest - 1;
                let a = f64At(left, p);
                if (fromBits) {
                  let e = planned & load<u64>(lTouch + (<usize>p << 3));
                  while (e != 0) {
                    const k = <i32>ctz(e);
                    e &= e - 1;
                    a += f64At(staleBytes, k);
                  }
                }
                const r = a - share;
                if (r < rMin) rMin = r;
                rSum += r;
              }
              // Its place: the kept records it ranks before are a tail of the sorted list (the key is a
              // total order), found by bisection; the last record first, as most candidates lose to it.
              let at = count;
              if (at > 0 && ranksBefore(ev, bytes, n, score, rMin, rSum, nodeLoad, rank, mask, isPack, keptIn(kb, ko, at - 1))) {
                let lo = 0;
                let hi = at - 1;
                while (lo < hi) {
                  const mid = (lo + hi) >>> 1;
                  if (ranksBefore(ev, bytes, n, score, rMin, rSum, nodeLoad, rank, mask, isPack, keptIn(kb, ko, mid))) hi = mid;
                  else lo = mid + 1;
                }
                at = lo;
              }
              if (at < limit) {
                // A new record while the list fills, else the last one's (it drops out); ranks at..last-1 move down one.
                const slot = count < limit ? count : i32At(ko, limit - 1);
                const last = count < limit ? count : limit - 1;
                for (let k = last; k > at; k--) store<i32>(ko + (<usize>k << 2), i32At(ko, k - 1));
                store<i32>(ko + (<usize>at << 2), slot);
                const r = kb + <usize>slot * REC;
                store<u64>(r, mask);
                store<i32>(r, ev, 8);
                store<i32>(r, n, 12);
                store<i32>(r, score, 16);
                store<i32>(r, cand, 20);
                store<f64>(r, bytes, 24);
                store<f64>(r, rMin, 32);
                store<f64>(r, rSum, 40);
                store<f64>(r, nodeLoad, 48);
                store<i32>(r, rank, 56);
                store<u64>(r, planned, 64);
                if (count < limit) count++;
                lastRec = lastKeptIn(kb, ko, count, limit);
                if (pass == 0) {
                  bar = scoreBar(count, limit, lastRec, n);
                  barMin = load<f64>(lastRec, 32);
                }
              }
            }
          }
        }
        // The next combination of the prefix (the last pick restarts right after the prefix's last).
        let j = n - 2;
        while (j >= 0 && load<i32>(plPick + (<usize>j << 2)) == len - n + j) j--;
        if (j < 0) break;
        const v = load<i32>(plPick + (<usize>j << 2)) + 1;
        for (let t = j; t < n; t++) store<i32>(plPick + (<usize>t << 2), v + t - j);
        from = j;
      }
    }
  }
  keptCount = count;
  return overflow;
}

/**
 * The lowest score an eviction-free set of n GPUs needs to rank before the last of `count` kept
 * records: that record's score when the list is full and it evicts nothing and has n GPUs (a set
 * scoring less is behind it on the ranking key before the free-memory metric); else i32.MIN_VALUE
 * (no bar). A full list whose last record evicts nothing with fewer GPUs ends the size's search
 * before this is asked.
 */
// @ts-ignore: decorator
@inline function scoreBar(count: i32, limit: i32, lastRec: usize, n: i32): i32 {
  if (count < limit || load<i32>(lastRec, 8) != 0 || load<f64>(lastRec, 24) != 0 || load<i32>(lastRec, 12) != n) return i32.MIN_VALUE;
  return load<i32>(lastRec, 16);
}

/** ceil-share of size n from the (sizes, shares) table. */
function shareOfSize(sizes: usize, shares: usize, sizeCount: i32, n: i32): f64 {
  for (let si = 0; si < sizeCount; si++) if (i32At(sizes, si) == n) return f64At(shares, si);
  return 0;
}

/**
 * Every candidate node of a cluster plan in one call. `info` (INFO i32 per candidate) and `bounds`
 * (FB f64 per candidate) describe each node (see INFO); `free`/`total` (f64), `staleMasks` (u64),
 * `staleBytes` (f64) and `matrices` (i32) are indexed by the offsets in `info`; `total` is only read
 * for candidates with stale slots (free <= total always holds in a cluster state). A candidate whose
 * bound ranks after the `limit` kept records is skipped (pass candidates best bound first).
 * Outputs as placementSearch, each record naming its candidate (offset 20), evictions as indices
 * into that candidate's stale list. `result` (4 i32): kept count, overflow size, evictions needed,
 * candidate that overflowed.
 */
export function clusterSearch(
  count: i32, info: usize, bounds: usize, free: usize, total: usize, staleMasks: usize, staleBytes: usize, matrices: usize,
  sizes: usize, shares: usize, sizeCount: i32, pack: i32, limit: i32, budget: f64,
  keptOut: usize, evictStart: usize, evictions: usize, evictCap: i32, scratch: usize, result: usize, columns: usize,
): void {
  startKept(keptOut, limit, pack);
  let overflow: i32 = 0;
  let overflowCand: i32 = -1;
  for (let i = 0; i < count; i++) {
    const rec = info + <usize>(i * INFO) * 4;
    const fb = bounds + <usize>(i * FB) * 8;
    const nodeLoad = load<f64>(fb);
    const rank = load<i32>(rec, 20);
    if (keptCount == limit && recordBeatsBound(keptAt(limit - 1), load<i32>(rec, 24), load<i32>(rec, 28), load<f64>(fb, 8), load<f64>(fb, 16), nodeLoad, rank, packMode)) continue;
    const gpus = load<i32>(rec);
    const off = <usize>load<i32>(rec, 4) << 3;
    const staleOff = <usize>load<i32>(rec, 8);
    const mOff = load<i32>(rec, 16);
    const staleCount = load<i32>(rec, 12);
    // Without stale slots, free <= total decides eligibility alone: the caller need not copy `total`.
    const o = searchNode(
      i, gpus, free + off, staleCount == 0 ? free + off : total + off, sizes, shares, sizeCount,
      staleMasks + (staleOff << 3), staleBytes + (staleOff << 3), staleCount,
      mOff < 0 ? 0 : matrices + (<usize>mOff << 2), nodeLoad, rank, budget, scratch,
    );
    if (o > 0) {
      overflow = o;
      overflowCand = i;
      break;
    }
  }
  writeOutput(overflow, info, free, staleMasks, staleBytes, 0, sizes, shares, sizeCount, limit, evictStart, evictions, evictCap, scratch, result, columns);
  store<i32>(result, overflowCand, 12);
}

/**
 * The kept list into a search's outputs, best first: each option's first eviction index (prefix
 * sums) and the result header (count, overflow size, evictions needed; nothing is kept after an
 * overflow), then, when they fit `evictCap`, the evictions (a record's bit-set plan, else its plan
 * made again slot by slot) and the columns. `info`: clusterSearch's per-candidate records, which
 * locate each record's node in `free`, `staleMasks` and `staleBytes`; 0 for one node's search
 * (offset 0, `staleCount` slots).
 */
function writeOutput(
  overflow: i32, info: usize, free: usize, staleMasks: usize, staleBytes: usize, staleCount: i32, sizes: usize, shares: usize, sizeCount: i32,
  limit: i32, evictStart: usize, evictions: usize, evictCap: i32, scratch: usize, result: usize, columns: usize,
): void {
  if (overflow > 0) keptCount = 0;
  const count = keptCount;
  if (writeCounts(count, evictStart, overflow, result) > evictCap) return;
  const avail = scratch + 64 * 8;
  for (let k = 0; k < count; k++) {
    const r = keptAt(k);
    if (load<i32>(r, 8) == 0) continue;
    const out = evictions + (<usize>i32At(evictStart, k) << 2);
    if (writePlanned(load<u64>(r, 64), out)) continue;
    let off: usize = 0;
    let staleOff: usize = 0;
    let stale = staleCount;
    if (info != 0) {
      const rec = info + <usize>(load<i32>(r, 20) * INFO) * 4;
      off = <usize>load<i32>(rec, 4) << 3;
      staleOff = <usize>load<i32>(rec, 8) << 3;
      stale = load<i32>(rec, 12);
    }
    const share = shareOfSize(sizes, shares, sizeCount, load<i32>(r, 12));
    evictionPlan(load<u64>(r), share, free + off, staleMasks + staleOff, staleBytes + staleOff, stale, avail, out);
  }
  writeColumns(count, limit, columns);
}

/**
 * Writes the stale indices of a record's planned evictions (bit set, see REC) to `out`, lowest
 * first (evictionPlan's order); false when the record was planned slot by slot (planned = 0).
 */
function writePlanned(planned: u64, out: usize): bool {
  if (planned == 0) return false;
  let e = planned;
  let j: usize = 0;
  while (e != 0) {
    store<i32>(out + (j << 2), <i32>ctz(e));
    e &= e - 1;
    j++;
  }
  return true;
}

/** Writes each kept option's first eviction index (prefix sums) and the result header; returns the evictions needed. */
function writeCounts(count: i32, evictStart: usize, overflow: i32, result: usize): i32 {
  let need: i32 = 0;
  store<i32>(evictStart, 0);
  for (let k = 0; k < count; k++) {
    need += load<i32>(keptAt(k), 8);
    store<i32>(evictStart + (<usize>(k + 1) << 2), need);
  }
  store<i32>(result, count);
  store<i32>(result, overflow, 4);
  store<i32>(result, need, 8);
  return need;
}

/**
 * One node's search. Inputs: `free`, `total` (f64 per position), `sizes` (i32, ascending) with
 * `shares` (f64), `staleMasks` (u64 per evictable slot, in eviction order) and `staleBytes` (f64),
 * the pair matrix already loaded (when useScores != 0). Outputs: `kept` (limit records of REC bytes and
 * their rank order, limit i32: the kept list's working space), `evictStart` (limit + 1 i32) and `evictions` (evictCap i32), and the kept records again
 * as columns at `columns` (limit × 44 bytes, see writeColumns). `scratch` holds 7 × 64 f64.
 * `result` (3 i32): kept count, overflow size (0 or the size that passed the budget), evictions needed.
 */
export function placementSearch(
  gpus: i32, free: usize, total: usize, sizes: usize, shares: usize, sizeCount: i32,
  staleMasks: usize, staleBytes: usize, staleCount: i32,
  useScores: i32, pack: i32, limit: i32, budget: f64,
  keptOut: usize, evictStart: usize, evictions: usize, evictCap: i32, scratch: usize, result: usize, columns: usize,
): void {
  startKept(keptOut, limit, pack);
  const overflow = searchNode(0, gpus, free, total, sizes, shares, sizeCount, staleMasks, staleBytes, staleCount, useScores != 0 ? pairRow(0) : 0, 0, 0, budget, scratch);
  writeOutput(overflow, 0, free, staleMasks, staleBytes, staleCount, sizes, shares, sizeCount, limit, evictStart, evictions, evictCap, scratch, result, columns);
}

/**
 * The kept records as the columns of a ClusterFound, at `columns` (8-byte aligned), each `limit`
 * entries long, one after another: masks (u64, as two i32 halves), evictCount (i32), score (i32),
 * evictedBytes, remainMin, remainSum (f64), node (i32: the candidate, 0 for placementSearch);
 * limit × 44 bytes. The caller reads them through views, without a copy.
 */
function writeColumns(count: i32, limit: i32, columns: usize): void {
  const L = <usize>limit;
  const cEv = columns + L * 8;
  const cScore = cEv + L * 4;
  const cBytes = cScore + L * 4;
  const cMin = cBytes + L * 8;
  const cSum = cMin + L * 8;
  const cNode = cSum + L * 8;
  for (let k = 0; k < count; k++) {
    const r = keptAt(k);
    const o4 = <usize>k << 2;
    const o8 = <usize>k << 3;
    store<u64>(columns + o8, load<u64>(r));
    store<i32>(cEv + o4, load<i32>(r, 8));
    store<i32>(cScore + o4, load<i32>(r, 16));
    store<f64>(cBytes + o8, load<f64>(r, 24));
    store<f64>(cMin + o8, load<f64>(r, 32));
    store<f64>(cSum + o8, load<f64>(r, 40));
    store<i32>(cNode + o4, load<i32>(r, 20));
  }
}
