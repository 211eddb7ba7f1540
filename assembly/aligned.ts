// Topology-aware picks of whole GPUs over the pair-score matrix loaded by loadPairScores
// (topology.ts). Two searches, each mirrored step for step by src/baseline/aligned.ts:
//  - alignedBestEffort: go-gpuallocator's BestEffort without enumerating partitions: a memoised DP
//    over subsets of positions (best[set] = best sum of group scores over partitions of set, the
//    group holding the set's first position chosen in upstream's order) that keeps the
//    lexicographically first optimal partition. Exact; subsets whose upper bound (best pairs per
//    position, or j times the best single group) cannot beat the incumbent are never solved, and
//    partial groups whose best completion bound cannot reach it are never completed;
//  - alignedTopology: the best-connected size-subset (then best-connected remainder, then lowest
//    indices), exact by enumeration, or multi-start greedy with best swaps above the exact range.
import { pairRow, pairScore, pairScoreGpus } from './topology';

/** Most available GPUs for besteffort's DP (src/aligned.ts BESTEFFORT_MAX_AVAILABLE). */
const BE_MAX: i32 = 20;
// The memo table (kernel-owned, reused between calls): 8 bytes per set of positions, the best sum
// over its partitions (or an upper bound of it) then a tag: epoch from bit 21, bit 20 set when the
// value is only an upper bound, the chosen group below. An entry is known in this call only when its
// epoch is the current one, so the table is never cleared per call (epochs 1..2047, then one clear).
// src/baseline/aligned.ts keeps the same layout.
const BE_EPOCH_SHIFT: u32 = 21;
const BE_UPPER: u32 = 1 << 20;
const BE_GROUP_MASK: u32 = BE_UPPER - 1;
const BE_EPOCH_MAX: u32 = 2047;
/** A need below every partition's value (values are at least 0 and far below 2^28; twice it still fits an i32): solve exactly. */
const BE_NEED_ANY: i32 = -(1 << 28);
let beMemo: usize = 0;
let beMemoBytes: usize = 0;
let beEpoch: u32 = 0;
const BE_NONE: i32 = -0x7fffffff;
/** Rounds of swap search per greedy start (src/baseline/aligned.ts SWAP_ROUNDS). */
const SWAP_ROUNDS: i32 = 64;

// pos[p * n + q]: pair score of positions p and q less the smallest pair score (v128 loads of a row
// may read up to 3 entries past the last row, inside the next table: harmless, never used).
const bePos: usize = memory.data(BE_MAX * BE_MAX * 4, 16);
// Gains of the group being built, one vector of 32 i32 per grouped position count (the positions
// grouped on the DP path so far plus the group's own), so nested groups never share one.
const beGains: usize = memory.data((BE_MAX + 2) * 32 * 4, 16);
let beLanes: i32 = 0;
// partners[p * n + k]: positions other than p, best pair score first (ties: lower position).
const bePartners: usize = memory.data(BE_MAX * BE_MAX * 4);
const beBestValue: usize = memory.data(32 * 4);
const beBestGroup: usize = memory.data(32 * 4);
// Per DP depth: the value the set must reach to matter to its caller, and the highest bound of its
// children that cannot reach it (the set's upper bound when none can).
const beNeedAt: usize = memory.data(32 * 4);
const beUpperAt: usize = memory.data(32 * 4);
// Per DP depth: top[depth * BE_MAX + p] = p's size-1 best pair scores inside the set being solved; topSum their sum.
const beTop: usize = memory.data(32 * BE_MAX * 4);
const beTopSum: usize = memory.data(32 * 4);
// Per DP depth: best1[depth * BE_MAX + p] = p's best pair score inside the set being solved (0 alone).
const beBest1: usize = memory.data(32 * BE_MAX * 4, 16);
// The completion bound's values per candidate position (beCompletionCut).
const beCut: usize = memory.data(64 * 4, 16);
const beCut2: usize = memory.data(64 * 4, 16);
// Per DP depth: rowIn[depth * BE_MAX + p] = p's pair scores to the set being solved; setScore the set's own score.
const beRowIn: usize = memory.data(32 * BE_MAX * 4);
const beSetScore: usize = memory.data(32 * 4);
let beN: i32 = 0;
let beSize: i32 = 0;
let beTail: i32 = 0;
let beReq: u32 = 0;
// Best score of one unpadded group, and of the padded group, anywhere among the positions.
let beBestFull: i32 = 0;
let beBestTail: i32 = 0;
let beSubsetBest: i32 = 0;
let beSubsetCount: i32 = 0;
const beTops: usize = memory.data(BE_MAX * 4);

// @ts-ignore: decorator
@inline function posScore(p: i32, q: i32): i32 {
  return load<i32>(bePos + (<usize>(p * beN + q) << 2));
}

/** A set of `count` positions is exactly one group: the last unpadded one, or the padded one. */
// @ts-ignore: decorator
@inline function beLastCount(count: i32): bool {
  return count == beSize || (beTail != 0 && count == beTail);
}

/** A set that is exactly one group. */
// @ts-ignore: decorator
@inline function beIsLastGroup(set: u32): bool {
  return beLastCount(<i32>popcnt(set));
}

// beGroupsBoundOf[count]: at most this much for `count` positions (their groups, the padded one last,
// each score at most the best single group of their size); a table, so no division per group tried.
const beGroupsBoundOf: usize = memory.data((BE_MAX + 1) * 4);

// @ts-ignore: decorator
@inline function beGroupsBound(count: i32): i32 {
  return load<i32>(beGroupsBoundOf + (<usize>count << 2));
}

function beSubsetVisit(from: i32, picked: u32, taken: i32, score: i32): void {
  if (taken == beSubsetCount) {
    if (score > beSubsetBest) beSubsetBest = score;
    return;
  }
  for (let p = from; p <= beN - (beSubsetCount - taken); p++) {
    let gain: i32 = 0;
    let q = picked;
    while (q != 0) {
      gain += posScore(p, <i32>ctz(q));
      q &= q - 1;
    }
    beSubsetVisit(p + 1, picked | ((<u32>1) << <u32>p), taken + 1, score + gain);
  }
}

/** The highest score of any `count` positions (exact below 2^15 candidates, else a top-pairs bound). */
function beBestSubset(count: i32): i32 {
  const n = beN;
  if (binomial(n, count) > <f64>(1 << 15)) {
    // Each member scores at most its count-1 best pairs: the count largest such sums, halved.
    for (let p = 0; p < n; p++) {
      let t: i32 = 0;
      for (let k = 0; k < count - 1; k++) t += posScore(p, load<i32>(bePartners + (<usize>(p * n + k) << 2)));
      let k = p;
      while (k > 0 && load<i32>(beTops + (<usize>(k - 1) << 2)) < t) {
        store<i32>(beTops + (<usize>k << 2), load<i32>(beTops + (<usize>(k - 1) << 2)));
        k--;
      }
      store<i32>(beTops + (<usize>k << 2), t);
    }
    let sum: i32 = 0;
    for (let k = 0; k < count; k++) sum += load<i32>(beTops + (<usize>k << 2));
    return sum / 2;
  }
  beSubsetBest = 0;
  beSubsetCount = count;
  beSubsetVisit(0, 0, 0, 0);
  return beSubsetBest;
}

/** Sum of pair scores inside a set of positions. */
function beGroupScore(g: u32): i32 {
  let s: i32 = 0;
  let a = g;
  while (a != 0) {
    const i = <i32>ctz(a);
    a &= a - 1;
    let b = a;
    while (b != 0) {
      s += posScore(i, <i32>ctz(b));
      b &= b - 1;
    }
  }
  return s;
}

let beGreedyScore: i32 = -1;
let beGreedyGroup: u32 = 0;

/** The best valid group extending `group` by `need` positions of `from` (beGreedyValue's step). */
function beGreedyPick(from: u32, need: i32, group: u32, score: i32, padded: bool): void {
  if (need == 0) {
    const hit = group & beReq;
    if ((hit == 0 || (!padded && hit == beReq)) && score > beGreedyScore) {
      beGreedyScore = score;
      beGreedyGroup = group;
    }
    return;
  }
  let avail = from;
  while (avail != 0 && <i32>popcnt(avail) >= need) {
    const bit = avail & (0 - avail);
    avail ^= bit;
    const p = <i32>ctz(bit);
    let gain: i32 = 0;
    let g = group;
    while (g != 0) {
      gain += posScore(p, <i32>ctz(g));
      g &= g - 1;
    }
    beGreedyPick(avail, need - 1, group | bit, score + gain, padded);
  }
}

/**
 * The value of one valid partition of `set`, built greedily (each step: the highest-scoring valid
 * group holding the set's first position), or BE_NEED_ANY when the walk ends in an invalid last group.
 */
function beGreedyValue(set: u32): i32 {
  let total: i32 = 0;
  let s = set;
  while (s != 0) {
    const m = <i32>popcnt(s);
    if (beLastCount(m)) return (s & beReq) != 0 && m != beSize ? BE_NEED_ANY : total + beGroupScore(s);
    const lo = s & (0 - s);
    beGreedyScore = -1;
    if (m >= beSize) beGreedyPick(s ^ lo, beSize - 1, lo, 0, false);
    if (beTail != 0 && m % beSize != 0) beGreedyPick(s ^ lo, beTail - 1, lo, 0, true);
    if (beGreedyScore < 0) return BE_NEED_ANY;
    total += beGreedyScore;
    s ^= beGreedyGroup;
  }
  return total;
}

/** A complete group: scores it with the best partition of what is left (inlined into beExtend's last level). */
// @ts-ignore: decorator
@inline function beLeaf(set: u32, depth: i32, group: u32, score: i32, groupTop: i32, groupRow: i32, padded: bool): void {
  const hit = group & beReq;
  if (hit != 0 && (padded || hit != beReq)) return;
  const remaining = set ^ group;
  const slot = <usize>depth << 2;
  // What this group's partitions must reach to matter: the set's need, and beating the best so far
  // (a tie only wins when this group is lexicographically first).
  const b = load<i32>(beBestValue + slot);
  let target = load<i32>(beNeedAt + slot);
  if (b != BE_NONE) {
    const d = group ^ load<u32>(beBestGroup + slot);
    const beat = (d & (0 - d) & group) != 0 ? b : b + 1;
    if (beat > target) target = beat;
  }
  let v: i32;
  if (remaining != 0 && beIsLastGroup(remaining)) {
    // One group left: its score is the set's minus this group's pairs to the rest, no recursion.
    if ((remaining & beReq) != 0 && <i32>popcnt(remaining) != beSize) return;
    v = score + load<i32>(beSetScore + slot) + score - groupRow;
  } else if (remaining == 0) {
    v = score;
  } else {
    // Skip it when even its bound cannot reach the target: first the bound of what is left (no memo
    // read: the table is large and read at random), then the bound an earlier solve of it memoised.
    const twiceNeed = 2 * (target - score);
    const groups2 = 2 * beGroupsBound(<i32>popcnt(remaining));
    const tops = load<i32>(beTopSum + slot) - groupTop;
    let twiceBound = tops < groups2 ? tops : groups2;
    if (twiceNeed <= twiceBound) {
      const entry = beMemo + (<usize>remaining << 3);
      const tag = load<u32>(entry, 4);
      if ((tag >> BE_EPOCH_SHIFT) == beEpoch && (tag & BE_UPPER) != 0) twiceBound = 2 * load<i32>(entry);
    }
    if (twiceNeed > twiceBound) {
      // An upper bound of this child for the set's own bound (sums are integers, bounds are >= 0).
      const u = score + (twiceBound >> 1);
      if (u > load<i32>(beUpperAt + slot)) store<i32>(beUpperAt + slot, u);
      return;
    }
    const sub = beSolve(remaining, depth + 1, target - score);
    if (sub == BE_NONE) return;
    v = score + sub;
  }
  if (v < target) {
    if (v > load<i32>(beUpperAt + slot)) store<i32>(beUpperAt + slot, v);
    return;
  }
  store<i32>(beBestValue + slot, v);
  store<u32>(beBestGroup + slot, group);
  return;
}

/** Raises the set's recorded upper bound at `slot` to the largest lane of `upper` (the skipped candidates' values). */
function beRaiseUpper(slot: usize, upper: v128): void {
  let u = i32x4.extract_lane(upper, 0);
  const u1 = i32x4.extract_lane(upper, 1);
  const u2 = i32x4.extract_lane(upper, 2);
  const u3 = i32x4.extract_lane(upper, 3);
  if (u1 > u) u = u1;
  if (u2 > u) u = u2;
  if (u3 > u) u = u3;
  if (u > load<i32>(beUpperAt + slot)) store<i32>(beUpperAt + slot, u);
}

/**
 * The last member's candidates whose group beLeaf would not skip by the structural bound, found four at a
 * time (v128): p stays when 2 (target - score - gain[p]) fits both top pairs left (topSum - groupTop -
 * top[p]) and the groups bound, with the target the set's need or its best so far (the weaker of the
 * two tie rules: beLeaf checks the survivors exactly). The others' bounds go into the set's upper bound,
 * as beLeaf would add them. (The TS twin lets each leaf decide; results are the same.)
 */
function beLastFilter(set: u32, depth: i32, avail: u32, score: i32, groupTop: i32, gains: usize, left: i32): u32 {
  const slot = <usize>depth << 2;
  let target = load<i32>(beNeedAt + slot);
  const b = load<i32>(beBestValue + slot);
  if (b != BE_NONE && b > target) target = b;
  const groups2 = 2 * beGroupsBound(left);
  const tops0 = load<i32>(beTopSum + slot) - groupTop;
  const twiceNeed = 2 * (target - score);
  const ka = i32x4.splat(twiceNeed - tops0);
  const kb = i32x4.splat(twiceNeed - groups2);
  const tops0v = i32x4.splat(tops0);
  const groups2v = i32x4.splat(groups2);
  const scorev = i32x4.splat(score);
  const none = i32x4.splat(BE_NONE);
  const laneBits = i32x4(1, 2, 4, 8);
  const topRow = beTop + (<usize>(depth * BE_MAX) << 2);
  let keep: u32 = 0;
  let upper = none;
  for (let w = 0; w < beLanes; w++) {
    const o = <usize>w << 4;
    const g = v128.load(gains + o);
    const t = v128.load(topRow + o);
    const g2 = i32x4.shl(g, 1);
    const ok = v128.and(i32x4.ge_s(i32x4.sub(g2, t), ka), i32x4.ge_s(g2, kb));
    const bits = <u32>i32x4.bitmask(ok);
    keep |= bits << <u32>(w << 2);
    const skipped = ((avail >> <u32>(w << 2)) & 0xf) & ~bits;
    if (skipped != 0) {
      const u = i32x4.add(i32x4.add(scorev, g), i32x4.shr_s(i32x4.min_s(i32x4.sub(tops0v, t), groups2v), 1));
      const lanes = i32x4.ne(v128.and(i32x4.splat(<i32>skipped), laneBits), i32x4.splat(0));
      upper = i32x4.max_s(upper, v128.bitselect(u, none, lanes));
    }
  }
  beRaiseUpper(slot, upper);
  return avail & keep;
}

/**
 * As beLastFilter when what is left is one last group: its partition value is known exactly,
 * 2 (score + gain[p]) + setScore - groupRow - rowIn[p]; p stays when it reaches the weaker target.
 * The others' values go into the set's upper bound.
 */
function beLastGroupFilter(depth: i32, avail: u32, score: i32, groupRow: i32, gains: usize): u32 {
  const slot = <usize>depth << 2;
  let target = load<i32>(beNeedAt + slot);
  const b = load<i32>(beBestValue + slot);
  if (b != BE_NONE && b > target) target = b;
  const base = i32x4.splat(2 * score + load<i32>(beSetScore + slot) - groupRow);
  const targetv = i32x4.splat(target - 1);
  const none = i32x4.splat(BE_NONE);
  const laneBits = i32x4(1, 2, 4, 8);
  const rowRow = beRowIn + (<usize>(depth * BE_MAX) << 2);
  let keep: u32 = 0;
  let upper = none;
  for (let w = 0; w < beLanes; w++) {
    const o = <usize>w << 4;
    const v = i32x4.sub(i32x4.add(base, i32x4.shl(v128.load(gains + o), 1)), v128.load(rowRow + o));
    const bits = <u32>i32x4.bitmask(i32x4.gt_s(v, targetv));
    keep |= bits << <u32>(w << 2);
    const skipped = ((avail >> <u32>(w << 2)) & 0xf) & ~bits;
    if (skipped != 0) {
      const lanes = i32x4.ne(v128.and(i32x4.splat(<i32>skipped), laneBits), i32x4.splat(0));
      upper = i32x4.max_s(upper, v128.bitselect(v, none, lanes));
    }
  }
  beRaiseUpper(slot, upper);
  return avail & keep;
}

/**
 * A partial group none of whose completions can reach the target (the set's need, or its best so far:
 * the weaker of the two tie rules): true, and the bound goes into the set's upper bound. Per candidate
 * q (v128, four at a time): c = 2 gain[q] - own[q] + min((need-1) best1[q], own[q] - gain[q]), own the
 * row in the set when the complete group leaves one last group (value setScore + 2 score - groupRow,
 * exactly), else the top pairs (twice the value at most 2 score + topSum - groupTop); the bound adds the
 * `need` largest c. Else also twice the value is at most 2 score + 2 groupsBound(left) plus the `need`
 * largest c + own. q's pairs to the other added members are at most need-1 best pairs, and at most
 * what its row or top pairs leave after its gain. Same as completionCut in src/baseline/aligned.ts.
 */
function beCompletionCut(set: u32, depth: i32, from: u32, need: i32, group: u32, score: i32, groupTop: i32, groupRow: i32, gains: usize): bool {
  const left = <i32>popcnt(set) - <i32>popcnt(group) - need;
  if (left <= 0) return false;
  const last = beLastCount(left);
  const slot = <usize>depth << 2;
  let target = load<i32>(beNeedAt + slot);
  const b = load<i32>(beBestValue + slot);
  if (b != BE_NONE && b > target) target = b;
  const ownRow = (last ? beRowIn : beTop) + (<usize>(depth * BE_MAX) << 2);
  const bestRow = beBest1 + (<usize>(depth * BE_MAX) << 2);
  const k = i32x4.splat(need - 1);
  for (let w = 0; w < beLanes; w++) {
    const o = <usize>w << 4;
    const g = v128.load(gains + o);
    const own = v128.load(ownRow + o);
    const pairs = i32x4.min_s(i32x4.mul(k, v128.load(bestRow + o)), i32x4.sub(own, g));
    const d = i32x4.add(i32x4.shl(g, 1), pairs);
    v128.store(beCut + o, i32x4.sub(d, own));
    v128.store(beCut2 + o, d);
  }
  // The `need` largest, highest first (beCut's tail past the last lane holds them).
  const picks = beCut + (BE_MAX << 2);
  const picks2 = beCut2 + (BE_MAX << 2);
  let len: i32 = 0;
  let a = from;
  while (a != 0) {
    const q = <i32>ctz(a);
    a &= a - 1;
    const c = load<i32>(beCut + (<usize>q << 2));
    if (!last) {
      // Without own: 2 gain plus pairs, for the bound by the groups left (beGroupsBound).
      const d = load<i32>(beCut2 + (<usize>q << 2));
      if (len < need || d > load<i32>(picks2 + (<usize>(need - 1) << 2))) {
        let j = len < need ? len : need - 1;
        while (j > 0 && load<i32>(picks2 + (<usize>(j - 1) << 2)) < d) {
          store<i32>(picks2 + (<usize>j << 2), load<i32>(picks2 + (<usize>(j - 1) << 2)));
          j--;
        }
        store<i32>(picks2 + (<usize>j << 2), d);
      }
    }
    if (len == need && c <= load<i32>(picks + (<usize>(need - 1) << 2))) continue;
    let j = len < need ? len++ : need - 1;
    while (j > 0 && load<i32>(picks + (<usize>(j - 1) << 2)) < c) {
      store<i32>(picks + (<usize>j << 2), load<i32>(picks + (<usize>(j - 1) << 2)));
      j--;
    }
    store<i32>(picks + (<usize>j << 2), c);
  }
  if (len < need) return false;
  let sum: i32 = 0;
  for (let j = 0; j < need; j++) sum += load<i32>(picks + (<usize>j << 2));
  let u: i32;
  if (last) {
    u = 2 * score + load<i32>(beSetScore + slot) - groupRow + sum;
    if (u >= target) return false;
  } else {
    let sum2: i32 = 0;
    for (let j = 0; j < need; j++) sum2 += load<i32>(picks2 + (<usize>j << 2));
    const byTops = load<i32>(beTopSum + slot) - groupTop + sum;
    const byGroups = sum2 + 2 * beGroupsBound(left);
    const twiceBound = 2 * score + (byTops < byGroups ? byTops : byGroups);
    if (twiceBound >= 2 * target) return false;
    u = twiceBound >> 1;
  }
  if (u > load<i32>(beUpperAt + slot)) store<i32>(beUpperAt + slot, u);
  return true;
}

/** Adds `need` more positions from `from` to `group`, lowest first: groups come in lexicographic order. */
function beExtend(set: u32, depth: i32, from: u32, need: i32, group: u32, score: i32, groupTop: i32, groupRow: i32, padded: bool, gains: usize): void {
  if (need >= 2 && beCompletionCut(set, depth, from, need, group, score, groupTop, groupRow, gains)) return;
  let avail = from;
  if (need == 1) {
    const left = <i32>popcnt(set) - <i32>popcnt(group) - 1;
    if (left > 0) avail = beLastCount(left) ? beLastGroupFilter(depth, avail, score, groupRow, gains) : beLastFilter(set, depth, avail, score, groupTop, gains, left);
  }
  while (avail != 0 && <i32>popcnt(avail) >= need) {
    const bit = avail & (0 - avail);
    avail ^= bit;
    const p = <i32>ctz(bit);
    const gain = load<i32>(gains + (<usize>p << 2));
    const at = <usize>(depth * BE_MAX + p) << 2;
    let childGains: usize = 0;
    if (need > 1) {
      // The grown group's pairs to every position: these gains plus p's row (v128, four per add).
      childGains = beGains + (<usize>(beN - <i32>popcnt(set) + <i32>popcnt(group) + 1) << 7);
      const row = bePos + (<usize>(p * beN) << 2);
      for (let w = 0; w < beLanes; w++) {
        const o = <usize>w << 4;
        v128.store(childGains + o, i32x4.add(v128.load(gains + o), v128.load(row + o)));
      }
    }
    // The last member: score the complete group here rather than in one more call.
    if (need == 1) beLeaf(set, depth, group | bit, score + gain, groupTop + load<i32>(beTop + at), groupRow + load<i32>(beRowIn + at), padded);
    else beExtend(set, depth, avail, need - 1, group | bit, score + gain, groupTop + load<i32>(beTop + at), groupRow + load<i32>(beRowIn + at), padded, childGains);
  }
}

/**
 * Best sum of group scores over the partitions of `set` (positions not yet grouped) when it is at
 * least `need`: then exact, and the memo keeps the set's winning group. Below `need` the caller cannot
 * use it, and an upper bound below `need` comes back instead (memoised as a bound, so a later caller
 * with a lower need solves the set again). BE_NONE: no valid partition.
 */
function beSolve(set: u32, depth: i32, need: i32): i32 {
  if (set == 0) return 0;
  const entry = beMemo + (<usize>set << 3);
  const tag = load<u32>(entry, 4);
  if ((tag >> BE_EPOCH_SHIFT) == beEpoch && ((tag & BE_UPPER) == 0 || load<i32>(entry) < need)) return load<i32>(entry);
  const m = <i32>popcnt(set);
  const lo = set & (0 - set);
  const rest = set ^ lo;
  const slot = <usize>depth << 2;
  store<i32>(beBestValue + slot, BE_NONE);
  store<u32>(beBestGroup + slot, 0);
  store<i32>(beNeedAt + slot, need);
  store<i32>(beUpperAt + slot, BE_NONE);
  // Remainders of m - size (an unpadded group) or m - tail (the padded group, from a padded set):
  // row sums score those that are one last group; the bound prunes the others.
  const n = beN;
  const padded = beTail != 0 && m % beSize != 0;
  const unpaddedRest = m - beSize;
  const paddedRest = padded ? m - beTail : -1;
  const needRows = beLastCount(unpaddedRest) || beLastCount(paddedRest);
  // Best pairs per position: the bound of remainders that are not one last group, and the set's own
  // bound whenever it has a need to reach (then it may be skipped before enumerating its groups).
  const needTop = (unpaddedRest > 0 && !beLastCount(unpaddedRest)) || (paddedRest > 0 && !beLastCount(paddedRest)) || (need > BE_NEED_ANY && m > beSize);
  let topSum: i32 = 0;
  let twice: i32 = 0;
  // The smallest gap, over the set, between a position's size-1 and tail-1 best pairs: the padded
  // group's tail positions score at most their tail-1 best pairs, so each gives up at least this much.
  let minGap: i32 = 0x7fffffff;
  let b = set;
  while (b != 0) {
    const p = <i32>ctz(b);
    b &= b - 1;
    // p's best pair in the set (0 when alone): the completion bound's pairs among added members.
    let best1: i32 = 0;
    for (let k = 0; k < n - 1; k++) {
      const q = load<i32>(bePartners + (<usize>(p * n + k) << 2));
      if (((set >> <u32>q) & 1) != 0) {
        best1 = posScore(p, q);
        break;
      }
    }
    store<i32>(beBest1 + (<usize>(depth * BE_MAX + p) << 2), best1);
    if (needRows) {
      let row: i32 = 0;
      let c = set;
      while (c != 0) {
        row += posScore(p, <i32>ctz(c));
        c &= c - 1;
      }
      store<i32>(beRowIn + (<usize>(depth * BE_MAX + p) << 2), row);
      twice += row;
    }
    if (!needTop) continue;
    // Bound: each position scores at most its size-1 best pairs inside the set (twice-counted sums).
    let t: i32 = 0;
    let tt: i32 = 0;
    let found: i32 = 0;
    for (let k = 0; k < n - 1 && found < beSize - 1; k++) {
      const q = load<i32>(bePartners + (<usize>(p * n + k) << 2));
      if (((set >> <u32>q) & 1) != 0) {
        t += posScore(p, q);
        found++;
        if (found == beTail - 1) tt = t;
      }
    }
    store<i32>(beTop + (<usize>(depth * BE_MAX + p) << 2), t);
    topSum += t;
    if (padded && t - tt < minGap) minGap = t - tt;
  }
  store<i32>(beTopSum + slot, topSum);
  store<i32>(beSetScore + slot, twice / 2);
  if (needTop) {
    // The whole set's bound (each position's best pairs in it, or its groups' best scores) below need: done.
    const groups2 = 2 * beGroupsBound(m);
    const tops = padded ? topSum - beTail * minGap : topSum;
    const twiceBound = tops < groups2 ? tops : groups2;
    if (twiceBound < 2 * need) {
      store<i32>(entry, twiceBound >> 1);
      store<u32>(entry, (beEpoch << BE_EPOCH_SHIFT) | BE_UPPER, 4);
      return twiceBound >> 1;
    }
  }
  const atLo = <usize>(depth * BE_MAX + <i32>ctz(lo)) << 2;
  const topLo = load<i32>(beTop + atLo);
  const rowLo = load<i32>(beRowIn + atLo);
  // Pair scores of the group {lo} to every position: lo's row (the TS twin sums over the group instead).
  const loGains = bePos + (<usize>(<i32>ctz(lo) * n) << 2);
  if (m >= beSize) beExtend(set, depth, rest, beSize - 1, lo, 0, topLo, rowLo, false, loGains);
  // The padded group: padding sorts after every GPU, so it is the first position plus tail-1 others.
  if (padded) {
    if (beTail == 1) beLeaf(set, depth, lo, 0, topLo, rowLo, true);
    else beExtend(set, depth, rest, beTail - 1, lo, 0, topLo, rowLo, true, loGains);
  }
  const v = load<i32>(beBestValue + slot);
  const upper = load<i32>(beUpperAt + slot);
  if (v != BE_NONE || upper == BE_NONE) {
    // Exact: the best child reached `need` (or no child has a valid partition at all).
    store<i32>(entry, v);
    store<u32>(entry, (beEpoch << BE_EPOCH_SHIFT) | load<u32>(beBestGroup + slot), 4);
    return v;
  }
  store<i32>(entry, upper);
  store<u32>(entry, (beEpoch << BE_EPOCH_SHIFT) | BE_UPPER, 4);
  return upper;
}

/** Writes the GPUs of a u64 mask to `out` in ascending order; returns how many. */
function writeMask(mask: u64, out: usize): i32 {
  let k: i32 = 0;
  let m = mask;
  while (m != 0) {
    store<i32>(out + (<usize>k << 2), <i32>ctz(m));
    m &= m - 1;
    k++;
  }
  return k;
}

/**
 * go-gpuallocator's BestEffort. `available` holds n GPU indices in the caller's order, `required` r
 * of them; the memo table (2^n entries of 8 bytes) is the kernel's own, grown on demand and reused.
 * Writes the chosen GPU indices to `out` ascending; returns their count (0: no valid partition).
 */
export function alignedBestEffort(available: usize, n: i32, required: usize, r: i32, size: i32, out: usize): i32 {
  if (size == 1) {
    store<i32>(out, r > 0 ? load<i32>(required) : load<i32>(available));
    return 1;
  }
  if (size == n) {
    let all: u64 = 0;
    for (let p = 0; p < n; p++) all |= (<u64>1) << <u64>load<i32>(available + (<usize>p << 2));
    return writeMask(all, out);
  }
  if (n > BE_MAX || size < 1 || size > n) unreachable();
  beN = n;
  beLanes = (n + 3) >> 2;
  beSize = size;
  beTail = n % size;
  const memoBytes = (<usize>1 << <usize>n) << 3;
  if (memoBytes > beMemoBytes) {
    // Grows once to the largest n seen (the stub runtime reuses the block when it is the last one).
    if (beMemo != 0) heap.free(beMemo);
    beMemo = heap.alloc(memoBytes);
    beMemoBytes = memoBytes;
    memory.fill(beMemo, 0, memoBytes);
    beEpoch = 0;
  }
  if (++beEpoch > BE_EPOCH_MAX) {
    memory.fill(beMemo, 0, beMemoBytes);
    beEpoch = 1;
  }
  // Every partition has the same number of scored pairs, so subtracting the smallest pair score
  // from every pair keeps each comparison (and tie) while tightening the bound a lot.
  let floor: i32 = 0x7fffffff;
  for (let p = 0; p < n; p++) {
    const gp = load<i32>(available + (<usize>p << 2));
    for (let q = p + 1; q < n; q++) {
      const sc = pairScore(gp, load<i32>(available + (<usize>q << 2)));
      if (sc < floor) floor = sc;
    }
  }
  for (let p = 0; p < n; p++) {
    const gp = load<i32>(available + (<usize>p << 2));
    for (let q = 0; q < n; q++) store<i32>(bePos + (<usize>(p * n + q) << 2), p == q ? 0 : pairScore(gp, load<i32>(available + (<usize>q << 2))) - floor);
  }
  for (let p = 0; p < n; p++) {
    // Insertion sort by score, descending; ties by position.
    let len = 0;
    for (let q = 0; q < n; q++) {
      if (q == p) continue;
      const sc = posScore(p, q);
      let k = len++;
      while (k > 0 && posScore(p, load<i32>(bePartners + (<usize>(p * n + k - 1) << 2))) < sc) {
        store<i32>(bePartners + (<usize>(p * n + k) << 2), load<i32>(bePartners + (<usize>(p * n + k - 1) << 2)));
        k--;
      }
      store<i32>(bePartners + (<usize>(p * n + k) << 2), q);
    }
  }
  let req: u32 = 0;
  for (let k = 0; k < r; k++) {
    const g = load<i32>(required + (<usize>k << 2));
    for (let p = 0; p < n; p++) {
      if (load<i32>(available + (<usize>p << 2)) == g) {
        req |= (<u32>1) << <u32>p;
        break;
      }
    }
  }
  beReq = req;
  const full: u32 = n == 32 ? 0xffffffff : ((<u32>1) << <u32>n) - 1;
  // With three or more groups, a remainder of j groups scores at most j times the best single group.
  if (n >= 2 * size + (beTail == 0 ? size : beTail)) {
    beBestFull = beBestSubset(size);
    beBestTail = beTail > 1 ? beBestSubset(beTail) : 0;
  } else {
    beBestFull = 1 << 24;
    beBestTail = 1 << 24;
  }
  for (let count = 0; count <= n; count++) {
    const paddedLeft = beTail != 0 && count % size != 0;
    store<i32>(beGroupsBoundOf + (<usize>count << 2), beBestFull * ((count - (paddedLeft ? beTail : 0)) / size) + (paddedLeft ? beBestTail : 0));
  }
  // With three or more groups, one valid partition found greedily: the optimum reaches its value, so
  // the search prunes from the start (with two, every group is a leaf and the walk would cost as much).
  const start = n >= 2 * size + (beTail == 0 ? size : beTail) ? beGreedyValue(full) : BE_NEED_ANY;
  if (beSolve(full, 0, start) == BE_NONE) return 0;
  // The winner's first unpadded group holding every required GPU with the strictly highest score.
  let chosen: u32 = 0;
  let chosenScore: i32 = -1;
  let rest = full;
  while (rest != 0) {
    const g = beIsLastGroup(rest) ? rest : load<u32>(beMemo + (<usize>rest << 3), 4) & BE_GROUP_MASK;
    rest ^= g;
    if (<i32>popcnt(g) != size || (g & req) != req) continue;
    const s = beGroupScore(g);
    if (s > chosenScore) {
      chosen = g;
      chosenScore = s;
    }
  }
  let gpuMask: u64 = 0;
  while (chosen != 0) {
    gpuMask |= (<u64>1) << <u64>load<i32>(available + (<usize>ctz(chosen) << 2));
    chosen &= chosen - 1;
  }
  return writeMask(gpuMask, out);
}

// The 'topology' search. free: available minus required, ascending; rowA[i]: i's pair scores to every
// available GPU; base[i]: to every required GPU.
const tpFree: usize = memory.data(64 * 4);
const tpRowA: usize = memory.data(64 * 4);
const tpBase: usize = memory.data(64 * 4);
const tpGain: usize = memory.data(64 * 4);
let tpF: i32 = 0;
let tpN: i32 = 0;
let tpFound: bool = false;
let tpBestScore: i32 = 0;
let tpBestComplement: i32 = 0;
let tpBestSet: u64 = 0;

// @ts-ignore: decorator
@inline function freeAt(k: i32): i32 {
  return load<i32>(tpFree + (<usize>k << 2));
}

// @ts-ignore: decorator
@inline function rowAOf(g: i32): i32 {
  return load<i32>(tpRowA + (<usize>g << 2));
}

/** C(n, k) in f64, as src/baseline/aligned.ts computes it. */
function binomial(n: i32, k: i32): f64 {
  if (k < 0 || k > n) return 0;
  let c: f64 = 1;
  for (let i = 1; i <= k; i++) c = (c * <f64>(n - k + i)) / <f64>i;
  return Math.round(c);
}

// Per depth of the exact enumeration: each GPU's pair scores to the required GPUs and to the GPUs
// picked so far (64 i32 per depth, so v128 loads past n stay inside the row).
const tpGains: usize = memory.data(65 * 64 * 4, 16);

/**
 * Every need-subset of free[from..] in lexicographic order; the first of equal keys stays. Where the
 * TS twin sums a candidate's pairs to the picked GPUs, this keeps them per depth: picking v adds v's
 * matrix row to the gains with v128 adds (four GPUs per instruction), so a candidate costs one load.
 */
function tpExact(from: i32, need: i32, score: i32, rowSum: i32, depth: i32): u64 {
  const gains = tpGains + (<usize>depth << 8);
  const last = tpF - need;
  if (need == 1) {
    let bestK = -1;
    for (let k = from; k <= last; k++) {
      const v = freeAt(k);
      const s = score + load<i32>(gains + (<usize>v << 2));
      const complement = s - rowSum - rowAOf(v);
      if (!tpFound || s > tpBestScore || (s == tpBestScore && complement > tpBestComplement)) {
        tpFound = true;
        tpBestScore = s;
        tpBestComplement = complement;
        bestK = k;
      }
    }
    return bestK < 0 ? 0 : (<u64>1) << <u64>freeAt(bestK);
  }
  const next = gains + 256;
  const lanes = (tpN + 3) >> 2;
  let found: u64 = 0;
  for (let k = from; k <= last; k++) {
    const v = freeAt(k);
    const row = pairRow(v);
    for (let w = 0; w < lanes; w++) {
      const o = <usize>w << 4;
      v128.store(next + o, i32x4.add(v128.load(gains + o), v128.load(row + o)));
    }
    const sub = tpExact(k + 1, need - 1, score + load<i32>(gains + (<usize>v << 2)), rowSum + rowAOf(v), depth + 1);
    // A better set was found below: it holds v (and what the levels below picked).
    if (sub != 0) found = sub | ((<u64>1) << <u64>v);
  }
  return found;
}

/** Above the exact range: from each free GPU, grow greedily, then apply the best swap while one improves. */
function tpGreedy(need: i32, reqScore: i32, reqRow: i32): void {
  const f = tpF;
  for (let seed = 0; seed < f; seed++) {
    for (let i = 0; i < f; i++) store<i32>(tpGain + (<usize>i << 2), load<i32>(tpBase + (<usize>freeAt(i) << 2)));
    let inX: u64 = 0; // bit i: free[i] is chosen
    let score = reqScore;
    let rowSum = reqRow;
    let count = 0;
    let add = seed;
    while (true) {
      const v = freeAt(add);
      inX |= (<u64>1) << <u64>add;
      score += load<i32>(tpGain + (<usize>add << 2));
      rowSum += rowAOf(v);
      count++;
      const rowV = pairRow(v);
      for (let i = 0; i < f; i++) {
        const gp = tpGain + (<usize>i << 2);
        store<i32>(gp, load<i32>(gp) + load<i32>(rowV + (<usize>freeAt(i) << 2)));
      }
      if (count == need) break;
      add = -1;
      for (let i = 0; i < f; i++) {
        if (((inX >> <u64>i) & 1) != 0) continue;
        if (add < 0) {
          add = i;
          continue;
        }
        const gi = load<i32>(tpGain + (<usize>i << 2));
        const ga = load<i32>(tpGain + (<usize>add << 2));
        if (gi > ga || (gi == ga && rowAOf(freeAt(i)) < rowAOf(freeAt(add)))) add = i;
      }
    }
    for (let round = 0; round < SWAP_ROUNDS; round++) {
      let bu = -1;
      let bv = -1;
      let bds: i32 = 0;
      let bdc: i32 = 0;
      for (let u = 0; u < f; u++) {
        if (((inX >> <u64>u) & 1) == 0) continue;
        const gu = freeAt(u);
        const rowU = pairRow(gu);
        const gainU = load<i32>(tpGain + (<usize>u << 2));
        const rowAU = rowAOf(gu);
        for (let v = 0; v < f; v++) {
          if (((inX >> <u64>v) & 1) != 0) continue;
          const gv = freeAt(v);
          const ds = load<i32>(tpGain + (<usize>v << 2)) - load<i32>(rowU + (<usize>gv << 2)) - gainU;
          const dc = ds - rowAOf(gv) + rowAU;
          if (ds > bds || (ds == bds && dc > bdc)) {
            bu = u;
            bv = v;
            bds = ds;
            bdc = dc;
          }
        }
      }
      if (bu < 0) break;
      const gu = freeAt(bu);
      const gv = freeAt(bv);
      inX ^= ((<u64>1) << <u64>bu) | ((<u64>1) << <u64>bv);
      score += bds;
      rowSum += rowAOf(gv) - rowAOf(gu);
      const rowGv = pairRow(gv);
      const rowGu = pairRow(gu);
      for (let i = 0; i < f; i++) {
        const fi = <usize>freeAt(i) << 2;
        const gp = tpGain + (<usize>i << 2);
        store<i32>(gp, load<i32>(gp) + load<i32>(rowGv + fi) - load<i32>(rowGu + fi));
      }
    }
    let set: u64 = 0;
    let bits = inX;
    while (bits != 0) {
      set |= (<u64>1) << <u64>freeAt(<i32>ctz(bits));
      bits &= bits - 1;
    }
    const complement = score - rowSum;
    let better = !tpFound || score > tpBestScore || (score == tpBestScore && complement > tpBestComplement);
    if (!better && score == tpBestScore && complement == tpBestComplement) {
      const d = set ^ tpBestSet;
      better = (d & (0 - d) & set) != 0;
    }
    if (better) {
      tpFound = true;
      tpBestScore = score;
      tpBestComplement = complement;
      tpBestSet = set;
    }
  }
}

/**
 * The 'topology' policy. `masks` holds four i32: available (low, high half) and required (low,
 * high half) as GPU masks over the loaded matrix. Writes the chosen GPUs ascending to `out`; returns
 * their count. Exact when C(free, size - required) ≤ exactSubsets.
 */
export function alignedTopology(masks: usize, size: i32, exactSubsets: f64, out: usize): i32 {
  const avail: u64 = (<u64>load<u32>(masks)) | ((<u64>load<u32>(masks, 4)) << 32);
  const req: u64 = (<u64>load<u32>(masks, 8)) | ((<u64>load<u32>(masks, 12)) << 32);
  const need = size - <i32>popcnt(req);
  if (need == 0) return writeMask(req, out);
  let f = 0;
  let a = avail;
  while (a != 0) {
    const i = <i32>ctz(a);
    a &= a - 1;
    const row = pairRow(i);
    let ra: i32 = 0;
    let rb: i32 = 0;
    let x = avail;
    while (x != 0) {
      ra += load<i32>(row + (<usize>ctz(x) << 2));
      x &= x - 1;
    }
    x = req;
    while (x != 0) {
      rb += load<i32>(row + (<usize>ctz(x) << 2));
      x &= x - 1;
    }
    store<i32>(tpRowA + (<usize>i << 2), ra);
    store<i32>(tpBase + (<usize>i << 2), rb);
    if (((req >> <u64>i) & 1) == 0) {
      store<i32>(tpFree + (<usize>f << 2), i);
      f++;
    }
  }
  tpF = f;
  let reqScore: i32 = 0;
  let reqRow: i32 = 0;
  let x = req;
  while (x != 0) {
    const i = <i32>ctz(x);
    x &= x - 1;
    reqRow += rowAOf(i);
    let y = x;
    while (y != 0) {
      reqScore += pairScore(i, <i32>ctz(y));
      y &= y - 1;
    }
  }
  tpFound = false;
  tpBestSet = 0;
  if (binomial(f, need) <= exactSubsets) {
    tpN = pairScoreGpus();
    memory.copy(tpGains, tpBase, <usize>tpN << 2);
    tpBestSet = tpExact(0, need, reqScore, reqRow, 0);
  }
  else tpGreedy(need, reqScore, reqRow);
  return writeMask(tpBestSet | req, out);
}
