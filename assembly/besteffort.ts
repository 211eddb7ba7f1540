// go-gpuallocator's BestEffort, exactly, without enumerating partitions. Mirrored step for step by
// the _BestEffortSearch class in src/baseline/aligned.ts (the same groups, bounds and visits; here
// some steps run four lanes per v128 instruction: the position matrix of an all-GPU request, the
// last level of the group enumeration, pair slacks, the potential sweep, the swap search's sums,
// the live list's build and scan); the method is written up in docs/besteffort.md.
//
// Positions 0..n-1 are the available GPUs in the caller's order; a partition has floor(n/size)
// "full" groups of `size` positions and, when size does not divide n, one padded group of
// tail = n % size positions (its padding sorts after every GPU). The answer is the first partition,
// in upstream's depth-first order, with the highest sum of group scores.
//  - Two groups or fewer: every first group is tried (incremental scores, no tables).
//  - Three or more: every group is enumerated once with its score, and potentials ku (scaled by
//    size) are fitted so that every valid full group scores at most the sum of its members' ku
//    (an LP-dual bound: the best group through each position, then one Gauss-Seidel sweep), with
//    `delta` the same for the padded group. A group's slack is its members' ku less size times its
//    score; a partition of value v has total slack KU(all) + delta - size * v, so a partition
//    reaching a target T only uses groups whose slack fits that budget ("live" groups).
//    A dive along the least-slack groups, improved by swaps, gives a first target; then the search
//    finds the first partition in upstream's order reaching the target (depth first, live groups
//    of each set's first position in lexicographic order, upper bounds memoised per set) and raises
//    the target past it until none is found: the last one found is the answer.
import { binomial, lexBefore, maxLane, minLane, writeMask } from './bits';
import { pairRow, pairScore, pairScoreGpus, scoreOf } from './topology';

/** Most available GPUs (src/devices/aligned.ts BESTEFFORT_MAX_AVAILABLE). */
const BE_MAX: i32 = 20;
/** Slack of an invalid group (one that splits the required GPUs or pads them): never a candidate. */
const BE_INF: i32 = 0x3fffffff;
const BE_FAIL: i32 = -0x7fffffff;

// pos[p * n + q]: pair score of positions p and q less the smallest pair score (0 when p == q).
const bePos: usize = memory.data(BE_MAX * BE_MAX * 4, 16);
// row[p]: p's pair scores to every position (the two-group search's complement score).
const beRow: usize = memory.data(BE_MAX * 4);
// ku[p]: p's potential, scaled by size.
const beKu: usize = memory.data(BE_MAX * 4);
// First full / padded group (list index) with each first position; the live list's likewise.
const beGStart: usize = memory.data((BE_MAX + 2) * 4);
const beTStart: usize = memory.data((BE_MAX + 2) * 4);
const beLiveStart: usize = memory.data((BE_MAX + 2) * 4);
// The group chosen per depth on the current search path.
const bePath: usize = memory.data(32 * 4);
// Gains per depth of the enumerations: gains[d * 32 + q] = pair scores of q to the first d+1 members.
const beGains: usize = memory.data(24 * 32 * 4, 16);
// The swap search: group of each position, and conn[j * 32 + p] = p's pair scores to group j.
const beGrp: usize = memory.data(BE_MAX * 4);
const beConn: usize = memory.data(BE_MAX * 32 * 4);

let beN: i32 = 0;
let beK: i32 = 0;
let beR: i32 = 0;
let beReq: u32 = 0;
let beDelta: i32 = 0;
let beEpoch: i32 = 0;
let beNF: i32 = 0;
let beNT: i32 = 0;

// Per set of positions (2^n entries of 16 bytes): the group score (sets of size or tail positions),
// 0 for a valid group, BE_INF for an invalid one (the slacks live in the lists), then an upper bound of the set's partitions and the call
// (epoch) it belongs to. Grown once to the largest n seen, never cleared per call.
let beTable: usize = 0;
let beTableBytes: usize = 0;
// Group lists (mask, score, slack; full then padded) and the live list, in one block.
let beLists: usize = 0;
let beListsBytes: usize = 0;
let beGMask: usize = 0;
let beGScore: usize = 0;
let beGSlack: usize = 0;
let beTMask: usize = 0;
let beTScore: usize = 0;
let beTSlack: usize = 0;
let beLive: usize = 0;
let beLiveSlack: usize = 0;
let beLiveFull: usize = 0;

// @ts-ignore: decorator
@inline function posScore(p: i32, q: i32): i32 {
  return load<i32>(bePos + (<usize>(p * beN + q) << 2));
}

// @ts-ignore: decorator
@inline function tableAt(set: u32): usize {
  return beTable + (<usize>set << 4);
}

// @ts-ignore: decorator
@inline function at(base: usize, i: i32): usize {
  return base + (<usize>i << 2);
}

/** The set still owes the padded group. */
// @ts-ignore: decorator
@inline function bePending(set: u32): bool {
  return beR != 0 && <i32>popcnt(set) % beK != 0;
}

/** The set is exactly one group (the last full one, or the padded one). */
// @ts-ignore: decorator
@inline function beIsLast(set: u32): bool {
  const m = <i32>popcnt(set);
  return bePending(set) ? m == beR : m == beK;
}

/** A full group may hold required GPUs only all of them; the padded group none. */
// @ts-ignore: decorator
@inline function beValid(set: u32, full: bool): bool {
  const hit = set & beReq;
  return hit == 0 || (full && hit == beReq);
}

/** Sum of the position matrix's pair scores over a set of positions. */
// @ts-ignore: decorator
@inline function groupScore(set: u32): i32 {
  return scoreOf(<u64>set, bePos, beN);
}

// The gains of the group grown so far plus p, for the next depth (v128, four positions per add).
// @ts-ignore: decorator
@inline function growGains(depth: i32, p: i32): void {
  const from = beGains + (<usize>(depth * 32) << 2);
  const to = from + (32 << 2);
  const row = bePos + (<usize>(p * beN) << 2);
  for (let w = 0; w < beN; w += 4) {
    const o = <usize>w << 2;
    v128.store(to + o, i32x4.add(v128.load(from + o), v128.load(row + o)));
  }
}

// bits[p] = 1 << p (v128 loads of four masks at once; lanes past 31 are never used).
const beBits: usize = memory.data<i32>([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608]);

/** Group m's table entry: its score s, and 0 when valid or BE_INF when not. */
// @ts-ignore: decorator
@inline function tableGroup(m: u32, s: i32, valid: bool): void {
  const t = tableAt(m);
  store<i32>(t, s);
  store<i32>(t, valid ? 0 : BE_INF, 4);
}

/**
 * Group m of score s into the table (valid, or BE_INF) and, when valid, onto the list being
 * enumerated (enMask/enScore); returns whether it is valid.
 */
// @ts-ignore: decorator
@inline function recordGroup(m: u32, s: i32, full: bool): bool {
  const valid = beValid(m, full);
  tableGroup(m, s, valid);
  if (valid) {
    store<u32>(at(enMask, enCount), m);
    store<i32>(at(enScore, enCount), s);
    enCount++;
  }
  return valid;
}

let enC: i32 = 0;
let enFull: bool = false;
let enMask: usize = 0;
let enScore: usize = 0;
let enCount: i32 = 0;

/**
 * The enC-subsets extending `mask` (depth members, the last one `last`) by positions from `from`,
 * in lexicographic order: score and validity (0, or BE_INF) into the table, the valid ones into the list.
 * Returns the best valid score below (-1: none) and raises ku[p] of each last member to it (the
 * caller raises the earlier members: ku starts as each position's best valid full group).
 */
function enumerate(from: i32, depth: i32, mask: u32, score: i32, last: i32): i32 {
  // gains of the members before `last` (depth - 1 of them), then last's row.
  const gains = beGains + (<usize>((depth - 2) * 32) << 2);
  const row = bePos + (<usize>(last * beN) << 2);
  let best: i32 = -1;
  if (depth == enC - 1) {
    let p = from;
    if (beReq == 0) {
      // Every group is valid: four last members per v128 step (scores, masks, list entries and
      // potentials), the table entries one by one.
      const sv = i32x4.splat(score);
      const mv = i32x4.splat(mask);
      let bv = i32x4.splat(-1);
      for (; p + 4 <= beN; p += 4) {
        const o = <usize>p << 2;
        let s4 = i32x4.add(sv, v128.load(row + o));
        if (depth >= 2) s4 = i32x4.add(s4, v128.load(gains + o));
        const m4 = v128.or(mv, v128.load(beBits + o));
        v128.store(at(enMask, enCount), m4);
        v128.store(at(enScore, enCount), s4);
        enCount += 4;
        tableGroup(<u32>i32x4.extract_lane(m4, 0), i32x4.extract_lane(s4, 0), true);
        tableGroup(<u32>i32x4.extract_lane(m4, 1), i32x4.extract_lane(s4, 1), true);
        tableGroup(<u32>i32x4.extract_lane(m4, 2), i32x4.extract_lane(s4, 2), true);
        tableGroup(<u32>i32x4.extract_lane(m4, 3), i32x4.extract_lane(s4, 3), true);
        if (enFull) {
          const u = beKu + o;
          v128.store(u, i32x4.max_s(v128.load(u), s4));
          bv = i32x4.max_s(bv, s4);
        }
      }
      if (enFull) {
        best = maxLane(bv);
      }
    }
    for (; p < beN; p++) {
      const s = score + (depth >= 2 ? load<i32>(gains + (<usize>p << 2)) : 0) + load<i32>(row + (<usize>p << 2));
      if (recordGroup(mask | ((<u32>1) << <u32>p), s, enFull) && enFull) {
        const u = at(beKu, p);
        if (s > load<i32>(u)) store<i32>(u, s);
        if (s > best) best = s;
      }
    }
    return best;
  }
  // The gains of mask (all depth members) for the next level.
  const next = beGains + (<usize>((depth - 1) * 32) << 2);
  for (let w = 0; w < beN; w += 4) {
    const o = <usize>w << 2;
    v128.store(next + o, depth >= 2 ? i32x4.add(v128.load(gains + o), v128.load(row + o)) : v128.load(row + o));
  }
  for (let p = from; p <= beN - (enC - depth); p++) {
    const s = score + load<i32>(next + (<usize>p << 2));
    const b = enumerate(p + 1, depth + 1, mask | ((<u32>1) << <u32>p), s, p);
    if (b >= 0 && enFull) {
      const u = at(beKu, p);
      if (b > load<i32>(u)) store<i32>(u, b);
      if (b > best) best = b;
    }
  }
  return best;
}

/** The c-subsets into the list at mask/score (start per first position); returns the count. */
function enumerateGroups(c: i32, full: bool, mask: usize, score: usize, start: usize): i32 {
  enC = c;
  enFull = full;
  enMask = mask;
  enScore = score;
  enCount = 0;
  const n = beN;
  for (let p = 0; p <= n - c; p++) {
    store<i32>(at(start, p), enCount);
    const m = (<u32>1) << <u32>p;
    if (c == 1) {
      recordGroup(m, 0, full);
      continue;
    }
    const b = enumerate(p + 1, 1, m, 0, p);
    if (b >= 0 && full && b > load<i32>(at(beKu, p))) store<i32>(at(beKu, p), b);
  }
  for (let p = n - c + 1; p <= n; p++) store<i32>(at(start, p), enCount);
  // Pad the list to a multiple of four with empty groups (the sweep reads it four at a time).
  for (let i = enCount; i < ((enCount + 3) & ~3); i++) {
    store<u32>(at(mask, i), 0);
    store<i32>(at(score, i), 0);
  }
  return enCount;
}

// Sums of the potentials over the bits of each byte of a set (three bytes: n <= 20 < 24).
const beKuBytes: usize = memory.data(3 * 256 * 4);

// Small groups (size <= 3) sum their members' potentials directly: cheaper than filling the tables.
let beKuDirect: bool = false;

function fillKuBytes(): void {
  if (beKuDirect) return;
  for (let j = 0; j < 3; j++) {
    const table = beKuBytes + (<usize>(j * 256) << 2);
    store<i32>(table, 0);
    // Only the bytes that hold positions (a set's higher bytes are zero).
    if (j * 8 >= beN) continue;
    for (let b = 1; b < 256; b++) {
      const p = j * 8 + <i32>ctz(b);
      store<i32>(table + (<usize>b << 2), load<i32>(table + (<usize>(b & (b - 1)) << 2)) + (p < beN ? load<i32>(at(beKu, p)) : 0));
    }
  }
}

/** Sum of the potentials over a set (fillKuBytes first). */
// @ts-ignore: decorator
@inline function kuOf(set: u32): i32 {
  if (beKuDirect) {
    let sum: i32 = 0;
    let a = set;
    while (a != 0) {
      sum += load<i32>(at(beKu, <i32>ctz(a)));
      a &= a - 1;
    }
    return sum;
  }
  return load<i32>(beKuBytes + (<usize>(set & 0xff) << 2)) + load<i32>(beKuBytes + (<usize>(256 + ((set >> 8) & 0xff)) << 2)) + load<i32>(beKuBytes + (<usize>(512 + (set >> 16)) << 2));
}

/**
 * Fits the potentials (ku starts as each position's best valid full group, from the enumeration) and
 * writes every valid group's slack (lists and table).
 */
function fitPotentials(): void {
  const n = beN;
  const k = beK;
  const nf = beNF;
  beKuDirect = k <= 3;
  fillKuBytes();
  const padded = (nf + 3) & ~3;
  if (k == 2 && nf == (n * (n - 1)) >> 1) {
    // Every pair is listed: pairs with first position p are (p, p+1..n-1), so their slacks are
    // ku[p] + ku[q] - 2 score, four per v128 step (the last few of a segment one by one).
    for (let p = 0; p < n - 1; p++) {
      const base = load<i32>(at(beGStart, p));
      const len = n - 1 - p;
      const kp = load<i32>(at(beKu, p));
      const kv = i32x4.splat(kp);
      let j = 0;
      for (; j + 4 <= len; j += 4) {
        const i = base + j;
        v128.store(at(beGSlack, i), i32x4.sub(i32x4.add(kv, v128.load(at(beKu, p + 1 + j))), i32x4.shl(v128.load(at(beGScore, i)), 1)));
      }
      for (; j < len; j++) store<i32>(at(beGSlack, base + j), kp + load<i32>(at(beKu, p + 1 + j)) - 2 * load<i32>(at(beGScore, base + j)));
    }
    for (let i = nf; i < padded; i++) store<i32>(at(beGSlack, i), 0);
  } else {
    for (let i = 0; i < padded; i++) store<i32>(at(beGSlack, i), kuOf(load<u32>(at(beGMask, i))) - k * load<i32>(at(beGScore, i)));
  }
  // One Gauss-Seidel sweep: lower each potential by the least slack of the groups through it (each
  // pass also takes the previous position's decrease off its groups' slacks).
  const inf = i32x4.splat(BE_INF);
  const zero = i32x4.splat(0);
  let prevBit = i32x4.splat(0);
  let prevD = i32x4.splat(0);
  for (let p = 0; p <= n; p++) {
    const bit = i32x4.splat(p < n ? 1 << p : 0);
    let mn = inf;
    // Groups through p (or p - 1, whose decrease this pass applies) start at p or lower: the list is
    // in lexicographic order, so they all lie before the first group starting after p.
    const end = p < n ? (load<i32>(at(beGStart, p + 1)) + 3) & ~3 : padded;
    for (let i = 0; i < end; i += 4) {
      const masks = v128.load(at(beGMask, i));
      const sl = at(beGSlack, i);
      const cur = i32x4.sub(v128.load(sl), v128.and(i32x4.ne(v128.and(masks, prevBit), zero), prevD));
      v128.store(sl, cur);
      mn = i32x4.min_s(mn, v128.bitselect(cur, inf, i32x4.ne(v128.and(masks, bit), zero)));
    }
    if (p == n) break;
    let d = minLane(mn);
    if (d == BE_INF) d = 0;
    store<i32>(at(beKu, p), load<i32>(at(beKu, p)) - d);
    prevBit = bit;
    prevD = i32x4.splat(d);
  }
  fillKuBytes();
  // The padded group: delta is its largest excess over its members' potentials.
  const nt = beNT;
  let delta: i32 = 0;
  if (nt > 0) {
    delta = -BE_INF;
    for (let i = 0; i < nt; i++) {
      const e = k * load<i32>(at(beTScore, i)) - kuOf(load<u32>(at(beTMask, i)));
      store<i32>(at(beTSlack, i), -e);
      if (e > delta) delta = e;
    }
    for (let i = 0; i < nt; i++) {
      const sl = load<i32>(at(beTSlack, i)) + delta;
      store<i32>(at(beTSlack, i), sl);
    }
  }
  beDelta = delta;
}

/** A first partition: from each set, its first position's least-slack group; returns its value or -1. */
function dive(full: u32): i32 {
  let set = full;
  let total: i32 = 0;
  let d = 0;
  while (!beIsLast(set)) {
    const m = <i32>ctz(set);
    let pick: u32 = 0;
    let pickScore: i32 = 0;
    let least = BE_INF;
    // The full groups, then (while the set owes it) the padded ones; a tie keeps the earlier group.
    for (let list = 0, lists = bePending(set) ? 2 : 1; list < lists; list++) {
      const start = list == 0 ? beGStart : beTStart;
      const masks = list == 0 ? beGMask : beTMask;
      const slacks = list == 0 ? beGSlack : beTSlack;
      const scores = list == 0 ? beGScore : beTScore;
      for (let i = load<i32>(at(start, m)), end = load<i32>(at(start, m + 1)); i < end; i++) {
        const g = load<u32>(at(masks, i));
        if ((g & ~set) == 0 && load<i32>(at(slacks, i)) < least) {
          least = load<i32>(at(slacks, i));
          pick = g;
          pickScore = load<i32>(at(scores, i));
        }
      }
    }
    if (pick == 0) return -1;
    store<u32>(at(bePath, d++), pick);
    total += pickScore;
    set ^= pick;
  }
  const t = tableAt(set);
  if (load<i32>(t, 4) >= BE_INF) return -1;
  store<u32>(at(bePath, d), set);
  return total + load<i32>(t);
}

/** Best-improvement swaps between the dive's groups (required GPUs stay); returns the new value. */
function improve(full: u32, value: i32): i32 {
  const n = beN;
  let set = full;
  let groups = 0;
  while (set != 0) {
    const g = load<u32>(at(bePath, groups));
    let a = g;
    while (a != 0) {
      store<i32>(at(beGrp, <i32>ctz(a)), groups);
      a &= a - 1;
    }
    set ^= g;
    groups++;
  }
  // conn[j * 32 + p]: p's pair scores to group j, a sum of position rows (the matrix is symmetric
  // with a zero diagonal), four positions per v128 add.
  const zero = i32x4.splat(0);
  for (let j = 0; j < groups; j++) for (let w = 0; w < n; w += 4) v128.store(at(beConn, j * 32 + w), zero);
  for (let q = 0; q < n; q++) {
    const c = at(beConn, load<i32>(at(beGrp, q)) * 32);
    const row = bePos + (<usize>(q * n) << 2);
    for (let w = 0; w < n; w += 4) {
      const o = <usize>w << 2;
      v128.store(c + o, i32x4.add(v128.load(c + o), v128.load(row + o)));
    }
  }
  let v = value;
  for (let round = 0; round < 64; round++) {
    let bd: i32 = 0;
    let bp = -1;
    let bq = -1;
    for (let p = 0; p < n; p++) {
      if (((beReq >> <u32>p) & 1) != 0) continue;
      const a = load<i32>(at(beGrp, p));
      for (let q = p + 1; q < n; q++) {
        if (((beReq >> <u32>q) & 1) != 0) continue;
        const b = load<i32>(at(beGrp, q));
        if (a == b) continue;
        const pq = posScore(p, q);
        const d = load<i32>(at(beConn, a * 32 + q)) - pq - load<i32>(at(beConn, a * 32 + p)) + load<i32>(at(beConn, b * 32 + p)) - pq - load<i32>(at(beConn, b * 32 + q));
        if (d > bd) {
          bd = d;
          bp = p;
          bq = q;
        }
      }
    }
    if (bp < 0) break;
    const a = load<i32>(at(beGrp, bp));
    const b = load<i32>(at(beGrp, bq));
    const ca = at(beConn, a * 32);
    const cb = at(beConn, b * 32);
    const rq = bePos + (<usize>(bq * n) << 2);
    const rp = bePos + (<usize>(bp * n) << 2);
    for (let w = 0; w < n; w += 4) {
      const o = <usize>w << 2;
      const dx = i32x4.sub(v128.load(rq + o), v128.load(rp + o));
      v128.store(ca + o, i32x4.add(v128.load(ca + o), dx));
      v128.store(cb + o, i32x4.sub(v128.load(cb + o), dx));
    }
    store<i32>(at(beGrp, bp), b);
    store<i32>(at(beGrp, bq), a);
    v += bd;
  }
  return v;
}

/**
 * The live list: per first position, full and padded groups with slack at most `budget`, merged in
 * lexicographic order. Beside each mask: its slack, and -1 for a full group (0 for the padded one),
 * so collect() reads four entries per v128 load. Each position's segment starts 16-byte aligned and
 * is padded to a multiple of four with masks of every bit (never inside a set: n <= 20).
 */
function buildLive(budget: i32): void {
  if (beR <= 1) {
    buildLiveSimple(budget);
    return;
  }
  const n = beN;
  let i: i32 = 0;
  let j: i32 = 0;
  let c: i32 = 0;
  for (let m = 0; m < n; m++) {
    store<i32>(at(beLiveStart, m), c);
    const iEnd = load<i32>(at(beGStart, m + 1));
    const jEnd = beNT > 0 ? load<i32>(at(beTStart, m + 1)) : 0;
    while (true) {
      while (i < iEnd && load<i32>(at(beGSlack, i)) > budget) i++;
      while (j < jEnd && load<i32>(at(beTSlack, j)) > budget) j++;
      if (i < iEnd) {
        const g = load<u32>(at(beGMask, i));
        if (j < jEnd) {
          const t = load<u32>(at(beTMask, j));
          if (lexBefore(t, g)) {
            liveAdd(c++, t, load<i32>(at(beTSlack, j)), 0);
            j++;
            continue;
          }
        }
        liveAdd(c++, g, load<i32>(at(beGSlack, i)), -1);
        i++;
      } else if (j < jEnd) {
        liveAdd(c++, load<u32>(at(beTMask, j)), load<i32>(at(beTSlack, j)), 0);
        j++;
      } else break;
    }
    while ((c & 3) != 0) liveAdd(c++, 0xffffffff, BE_INF, 0);
  }
  store<i32>(at(beLiveStart, n), c);
}

/**
 * buildLive when the padded group has at most one position: {m} sorts after every full group that
 * starts at m, so each segment is the full groups of m within the budget (four per v128 step; a
 * step where all four fit is stored as it is), then {m} if it fits.
 */
function buildLiveSimple(budget: i32): void {
  const n = beN;
  const limit = i32x4.splat(budget);
  const full = i32x4.splat(-1);
  let c: i32 = 0;
  for (let m = 0; m < n; m++) {
    store<i32>(at(beLiveStart, m), c);
    let i = load<i32>(at(beGStart, m));
    const iEnd = load<i32>(at(beGStart, m + 1));
    for (; i + 4 <= iEnd; i += 4) {
      const slack = v128.load(at(beGSlack, i));
      const fits = i32x4.bitmask(i32x4.le_s(slack, limit));
      if (fits == 0xf) {
        v128.store(at(beLive, c), v128.load(at(beGMask, i)));
        v128.store(at(beLiveSlack, c), slack);
        v128.store(at(beLiveFull, c), full);
        c += 4;
        continue;
      }
      let lanes = fits;
      while (lanes != 0) {
        const k = i + <i32>ctz(lanes);
        lanes &= lanes - 1;
        liveAdd(c++, load<u32>(at(beGMask, k)), load<i32>(at(beGSlack, k)), -1);
      }
    }
    for (; i < iEnd; i++) {
      const sl = load<i32>(at(beGSlack, i));
      if (sl <= budget) liveAdd(c++, load<u32>(at(beGMask, i)), sl, -1);
    }
    if (beNT > 0) {
      // The padded group {m}, when it is valid (listed) and fits.
      for (let t = load<i32>(at(beTStart, m)), tEnd = load<i32>(at(beTStart, m + 1)); t < tEnd; t++) {
        const sl = load<i32>(at(beTSlack, t));
        if (sl <= budget) liveAdd(c++, load<u32>(at(beTMask, t)), sl, 0);
      }
    }
    while ((c & 3) != 0) liveAdd(c++, 0xffffffff, BE_INF, 0);
  }
  store<i32>(at(beLiveStart, n), c);
}

// @ts-ignore: decorator
@inline function liveAdd(c: i32, mask: u32, slack: i32, full: i32): void {
  store<u32>(at(beLive, c), mask);
  store<i32>(at(beLiveSlack, c), slack);
  store<i32>(at(beLiveFull, c), full);
}

/** Records an upper bound of the set's partitions (keeps the lower of two). */
// @ts-ignore: decorator
@inline function setUpper(set: u32, v: i32): void {
  const t = tableAt(set);
  if (load<i32>(t, 12) != beEpoch || v < load<i32>(t, 8)) {
    store<i32>(t, v, 8);
    store<i32>(t, beEpoch, 12);
  }
}

// Candidates of the sets on the search path (masks and slacks), a stack: the sets' first positions
// grow along the path, so their live segments are disjoint and the stack never outgrows the live list.
let beCandMask: usize = 0;
let beCandSlack: usize = 0;
// Slack of the groups left out of the live list: above this budget.
let beBudget: i32 = 0;

/** Sorts candidates [from, to) by slack, then lexicographically (Shell sort, Ciura's gaps). */
function sortBySlack(from: i32, to: i32): void {
  const count = to - from;
  let gi = 0;
  while (gi < 8 && load<i32>(at(beGaps, gi)) >= count) gi++;
  for (; gi < 8; gi++) {
    const gap = load<i32>(at(beGaps, gi));
    for (let i = from + gap; i < to; i++) {
      const m = load<u32>(at(beCandMask, i));
      const sl = load<i32>(at(beCandSlack, i));
      let j = i;
      while (j - gap >= from) {
        const pm = load<u32>(at(beCandMask, j - gap));
        const ps = load<i32>(at(beCandSlack, j - gap));
        if (ps < sl || (ps == sl && lexBefore(pm, m))) break;
        store<u32>(at(beCandMask, j), pm);
        store<i32>(at(beCandSlack, j), ps);
        j -= gap;
      }
      store<u32>(at(beCandMask, j), m);
      store<i32>(at(beCandSlack, j), sl);
    }
  }
}
const beGaps: usize = memory.data<i32>([701, 301, 132, 57, 23, 10, 4, 1]);

// The upper bound of the set's partitions through candidates collect() left out (the groups off the
// live list, and the live ones over the set's gap).
let beCollectedUpper: i32 = 0;

/**
 * Pushes the live groups through `set`'s first position that fit in `set` and within `gap` onto the
 * candidate stack from `top`, in lexicographic order; returns the new top. Each group left out
 * bounds its partitions by (bound - slack) / size; beCollectedUpper is the highest such bound.
 */
function collect(set: u32, bound: i32, gap: i32, top: i32): i32 {
  const k = beK;
  // Every set searched here holds two groups or more, so a set that owes the padded group may take it.
  const tailOk = bePending(set);
  // Groups off the live list have slack above the budget.
  let upper = (bound - beBudget - 1) / k;
  const m = <i32>ctz(set);
  let end = top;
  // Four live groups per step: inside the set, full or allowed padded ("ok"); within the gap
  // (candidates, kept in order) or not (their least slack bounds the rest).
  const outside = i32x4.splat(~set);
  const allowTail = i32x4.splat(tailOk ? -1 : 0);
  const gapV = i32x4.splat(gap);
  const zero = i32x4.splat(0);
  let least = i32x4.splat(BE_INF);
  for (let i = load<i32>(at(beLiveStart, m)), last = load<i32>(at(beLiveStart, m + 1)); i < last; i += 4) {
    const g = v128.load(at(beLive, i));
    const slack = v128.load(at(beLiveSlack, i));
    const ok = v128.and(i32x4.eq(v128.and(g, outside), zero), v128.or(v128.load(at(beLiveFull, i)), allowTail));
    const within = i32x4.le_s(slack, gapV);
    least = i32x4.min_s(least, v128.bitselect(slack, i32x4.splat(BE_INF), v128.andnot(ok, within)));
    let lanes = i32x4.bitmask(v128.and(ok, within));
    while (lanes != 0) {
      const lane = <i32>ctz(lanes);
      lanes &= lanes - 1;
      store<u32>(at(beCandMask, end), load<u32>(at(beLive, i + lane)));
      store<i32>(at(beCandSlack, end), load<i32>(at(beLiveSlack, i + lane)));
      end++;
    }
  }
  const mn = minLane(least);
  if (mn < BE_INF) {
    const b = (bound - mn) / k;
    if (b > upper) upper = b;
  }
  beCollectedUpper = upper;
  return end;
}

/** Score of g plus the last group `set ^ g`, or BE_FAIL when that group is invalid. */
// @ts-ignore: decorator
@inline function withLastGroup(set: u32, g: u32): i32 {
  const tr = tableAt(set ^ g);
  return load<i32>(tr, 4) >= BE_INF ? BE_FAIL : load<i32>(tableAt(g)) + load<i32>(tr);
}

/** The bound of a set from its potentials (ku summed over it), with delta while it owes the padded group. */
// @ts-ignore: decorator
@inline function boundOf(set: u32, ku: i32): i32 {
  return bePending(set) ? ku + beDelta : ku;
}

/** The set holds exactly two groups. */
// @ts-ignore: decorator
@inline function twoLeft(set: u32): bool {
  return <i32>popcnt(set) == (bePending(set) ? beK + beR : 2 * beK);
}

/** Sums of the potentials over a group (slack plus size times score; the padded group's slack includes delta). */
// @ts-ignore: decorator
@inline function kuOfGroup(g: u32, slack: i32): i32 {
  return (<i32>popcnt(g) != beK ? slack - beDelta : slack) + beK * load<i32>(tableAt(g));
}

/**
 * The first partition of `set` whose value reaches `need`, in upstream's order: its value (the
 * groups on bePath from `depth`), or BE_FAIL with an upper bound of the set memoised. ku: the
 * potentials summed over the set; top: the candidate stack's top.
 */
function lexFirst(set: u32, ku: i32, need: i32, depth: i32, top: i32): i32 {
  const t = tableAt(set);
  if (load<i32>(t, 12) == beEpoch && load<i32>(t, 8) < need) return BE_FAIL;
  const k = beK;
  const bound = boundOf(set, ku);
  if (bound < k * need) {
    setUpper(set, bound >= 0 ? bound / k : -1);
    return BE_FAIL;
  }
  const end = collect(set, bound, bound - k * need, top);
  let upper = beCollectedUpper;
  const two = twoLeft(set);
  for (let c = top; c < end; c++) {
    const g = load<u32>(at(beCandMask, c));
    if (two) {
      const v = withLastGroup(set, g);
      if (v >= need) {
        store<u32>(at(bePath, depth), g);
        return v;
      }
      if (v > upper) upper = v;
      continue;
    }
    const s = load<i32>(tableAt(g));
    const rest = set ^ g;
    const sub = lexFirst(rest, ku - kuOfGroup(g, load<i32>(at(beCandSlack, c))), need - s, depth + 1, end);
    if (sub != BE_FAIL) {
      store<u32>(at(bePath, depth), g);
      return s + sub;
    }
    // Every way lexFirst fails leaves the rest's upper bound memoised in this search (epoch).
    const b = s + load<i32>(tableAt(rest), 8);
    if (b > upper) upper = b;
  }
  setUpper(set, upper);
  return BE_FAIL;
}

// The best value found so far; the live list is rebuilt (for the smaller budget) after it rises.
let beBestValue: i32 = -1;
// Bound of the whole set (potentials plus delta).
let beRoot: i32 = 0;
let beLiveStale: bool = false;

/**
 * Branch and bound for the best value, least slack first: explores the partitions of `set` (the
 * groups chosen before it score `acc`), raises beBestValue on every better partition, and returns
 * an upper bound of the set's partitions (memoised). ku: the potentials summed over the set; top:
 * the candidate stack's top.
 */
function bestValue(set: u32, ku: i32, acc: i32, top: i32): i32 {
  if (beLiveStale) {
    // Only groups within the smaller budget can beat the better value (candidates already collected
    // on the path keep their own copies).
    beLiveStale = false;
    beBudget = beRoot - beK * (beBestValue + 1);
    buildLive(beBudget);
  }
  const t = tableAt(set);
  if (load<i32>(t, 12) == beEpoch && acc + load<i32>(t, 8) <= beBestValue) return load<i32>(t, 8);
  const k = beK;
  const bound = boundOf(set, ku);
  if (bound < k * (beBestValue + 1 - acc)) {
    const b = bound >= 0 ? bound / k : -1;
    setUpper(set, b);
    return b;
  }
  const end = collect(set, bound, bound - k * (beBestValue + 1 - acc), top);
  let upper = beCollectedUpper;
  const two = twoLeft(set);
  if (!two && end - top > 1) sortBySlack(top, end);
  for (let c = top; c < end; c++) {
    const g = load<u32>(at(beCandMask, c));
    const slack = load<i32>(at(beCandSlack, c));
    // The best so far may have risen since the candidates were collected.
    if (slack > bound - k * (beBestValue + 1 - acc)) {
      const b = (bound - slack) / k;
      if (b > upper) upper = b;
      // Sorted by slack: no later candidate bounds higher (the two-group set is in upstream's order).
      if (two) continue;
      break;
    }
    if (two) {
      const v = withLastGroup(set, g);
      if (v == BE_FAIL) continue;
      if (v > upper) upper = v;
      if (acc + v > beBestValue) {
        beBestValue = acc + v;
        beLiveStale = true;
      }
      continue;
    }
    const s = load<i32>(tableAt(g));
    const sub = bestValue(set ^ g, ku - kuOfGroup(g, slack), acc + s, end);
    if (s + sub > upper) upper = s + sub;
  }
  setUpper(set, upper);
  return upper;
}

let twBest: i32 = BE_FAIL;
let twGroup: u32 = 0;
let twSetScore: i32 = 0;
let twSet: u32 = 0;

/** Offers a first group of a two-group partition (value 2 score + setScore - rowSum). */
// @ts-ignore: decorator
@inline function twOffer(g: u32, score: i32, rowSum: i32): void {
  const full = <i32>popcnt(g) == beK;
  if (!beValid(g, full)) return;
  const rest = twSet ^ g;
  if (!beValid(rest, <i32>popcnt(rest) == beK)) return;
  const v = 2 * score + twSetScore - rowSum;
  if (v > twBest) {
    twBest = v;
    twGroup = g;
  }
}

/** Groups through position 0 in lexicographic order (the padded one after its full extensions). */
function twoGroupsFrom(from: i32, chosen: i32, g: u32, score: i32, rowSum: i32): void {
  const left = beK - 1 - chosen;
  const tailLeft = beR > 0 && beR - 1 > chosen ? beR - 1 - chosen : left;
  const gains = beGains + (<usize>(chosen * 32) << 2);
  for (let p = from; p <= beN - tailLeft; p++) {
    const s = score + load<i32>(gains + (<usize>p << 2));
    const bit = (<u32>1) << <u32>p;
    const rs = rowSum + load<i32>(at(beRow, p));
    if (left == 1) {
      twOffer(g | bit, s, rs);
    } else {
      growGains(chosen, p);
      twoGroupsFrom(p + 1, chosen + 1, g | bit, s, rs);
    }
  }
  // The padded group (position 0 and `chosen` others): after every full group extending it.
  if (beR > 0 && chosen == beR - 1) twOffer(g, score, rowSum);
}

/** At most two groups: the best first group on bePath; false when no partition is valid. */
function twoGroups(full: u32): bool {
  const n = beN;
  let total: i32 = 0;
  for (let p = 0; p < n; p++) {
    let row: i32 = 0;
    for (let q = 0; q < n; q++) row += posScore(p, q);
    store<i32>(at(beRow, p), row);
    total += row;
  }
  twSet = full;
  twSetScore = total / 2;
  twBest = BE_FAIL;
  twGroup = 0;
  for (let w = 0; w < n; w += 4) v128.store(beGains + (<usize>w << 2), v128.load(bePos + (<usize>w << 2)));
  twoGroupsFrom(1, 0, 1, 0, load<i32>(beRow));
  if (twBest == BE_FAIL) return false;
  store<u32>(bePath, twGroup);
  return true;
}

/** Grows the table and list blocks for n positions and the group counts (memory only grows). */
function reserveBlocks(n: i32, nf: i32, nt: i32): void {
  const tableBytes = (<usize>1 << <usize>n) << 4;
  if (tableBytes > beTableBytes) {
    if (beTable != 0) heap.free(beTable);
    beTable = heap.alloc(tableBytes);
    beTableBytes = tableBytes;
    memory.fill(beTable, 0, tableBytes);
    beEpoch = 0;
  }
  const capF = <usize>((nf + 3) & ~3);
  const capT = <usize>((nt + 3) & ~3);
  // The live list pads each position's segment to a multiple of four.
  const capL = capF + capT + <usize>(4 * (n + 1));
  const listBytes = ((capF * 3 + capT * 3 + capL * 3 + (capF + capT) * 2) << 2) + 16;
  if (listBytes > beListsBytes) {
    if (beLists != 0) heap.free(beLists);
    beLists = heap.alloc(listBytes);
    beListsBytes = listBytes;
  }
  const base = (beLists + 15) & ~(<usize>15);
  beGMask = base;
  beGScore = beGMask + (capF << 2);
  beGSlack = beGScore + (capF << 2);
  beTMask = beGSlack + (capF << 2);
  beTScore = beTMask + (capT << 2);
  beTSlack = beTScore + (capT << 2);
  beLive = beTSlack + (capT << 2);
  beLiveSlack = beLive + (capL << 2);
  beLiveFull = beLiveSlack + (capL << 2);
  beCandMask = beLiveFull + (capL << 2);
  beCandSlack = beCandMask + ((capF + capT) << 2);
}

/** available[p] == p for every position: the positions are the node's GPUs in index order. */
function isIdentity(available: usize, n: i32): bool {
  for (let p = 0; p < n; p++) if (load<i32>(available + (<usize>p << 2)) != p) return false;
  return true;
}

/**
 * The position matrix when the positions are every GPU of the loaded matrix, in order (every GPU
 * available, the common request): the smallest off-diagonal score, then each row less it, four
 * entries per v128 step (lanes past n are never read), diagonal 0.
 */
function positionsOfAll(n: i32): void {
  const big = i32x4.splat(0x7fffffff);
  let least = big;
  const lane = v128(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0);
  for (let p = 0; p < n; p++) {
    const row = pairRow(p);
    for (let w = 0; w < n; w += 4) {
      // Off the diagonal and inside the row: lanes w..w+3 below n, other than p.
      const q = i32x4.add(i32x4.splat(w), lane);
      const use = v128.and(i32x4.lt_s(q, i32x4.splat(n)), i32x4.ne(q, i32x4.splat(p)));
      least = i32x4.min_s(least, v128.bitselect(v128.load(row + (<usize>w << 2)), big, use));
    }
  }
  const f = i32x4.splat(minLane(least));
  for (let p = 0; p < n; p++) {
    const row = pairRow(p);
    const to = bePos + (<usize>(p * n) << 2);
    for (let w = 0; w < n; w += 4) v128.store(to + (<usize>w << 2), i32x4.sub(v128.load(row + (<usize>w << 2)), f));
    store<i32>(to + (<usize>p << 2), 0);
  }
}

/**
 * go-gpuallocator's BestEffort. `available` holds n GPU indices in the caller's order, `required` r
 * of them. Writes the chosen GPU indices to `out` ascending; returns their count (0: no valid partition).
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
  beK = size;
  beR = n % size;
  // Every partition has the same number of scored pairs, so subtracting the smallest pair score
  // from every pair keeps each comparison (and tie) and makes every score non-negative.
  // (v128 adds of a row read up to three entries of the next row: those lanes are never used.)
  if (n == pairScoreGpus() && isIdentity(available, n)) positionsOfAll(n);
  else {
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
  if (n / size + (beR > 0 ? 1 : 0) <= 2) {
    if (!twoGroups(full)) return 0;
  } else {
    reserveBlocks(n, <i32>binomial(n, size), beR > 0 ? <i32>binomial(n, beR) : 0);
    if (++beEpoch > 0x3fffffff) {
      memory.fill(beTable, 0, beTableBytes);
      beEpoch = 1;
    }
    for (let p = 0; p < n; p++) store<i32>(at(beKu, p), 0);
    beNF = enumerateGroups(size, true, beGMask, beGScore, beGStart);
    beNT = beR > 0 ? enumerateGroups(beR, false, beTMask, beTScore, beTStart) : 0;
    fitPotentials();
    const ku = kuOf(full);
    const root = ku + (beR > 0 ? beDelta : 0);
    // A partition of value v has total slack root - size * v >= 0: once the first partition reaches
    // the bound (root < size * (value + 1)), no partition is better, and neither the swaps nor the
    // branch and bound run.
    let value: i32 = dive(full);
    if (value >= 0 && root >= size * (value + 1)) value = improve(full, value);
    if (value < 0 || root >= size * (value + 1)) {
      // The best value: branch and bound, least slack first, above the first partition's value.
      beBestValue = value;
      beRoot = root;
      beLiveStale = false;
      beBudget = root - size * (value + 1);
      buildLive(beBudget);
      bestValue(full, ku, 0, 0);
      value = beBestValue;
      if (value < 0) return 0;
    }
    // The first partition in upstream's order with that value.
    beBudget = root - size * value;
    buildLive(beBudget);
    if (lexFirst(full, ku, value, 0, 0) == BE_FAIL) unreachable();
  }
  // The winner's first unpadded group holding every required GPU with the strictly highest score.
  let chosen: u32 = 0;
  let chosenScore: i32 = -1;
  let set = full;
  for (let d = 0; set != 0; d++) {
    const g = beIsLast(set) ? set : load<u32>(at(bePath, d));
    set ^= g;
    if (<i32>popcnt(g) != size || (g & req) != req) continue;
    const s = groupScore(g);
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
