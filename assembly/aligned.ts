// The 'topology' policy's search over the pair-score matrix loaded by loadPairScores (topology.ts),
// mirrored step for step by src/baseline/aligned.ts: the best-connected size-subset (then the
// best-connected remainder, then the lowest indices), exact by enumeration, or multi-start greedy
// with best swaps above the exact range. BestEffort is in besteffort.ts.
import { binomial, lexBefore, writeMask } from './bits';
import { pairRow, pairScore, pairScoreGpus } from './topology';

// The aligned kernels' inputs and outputs, at a fixed address (alignedIO): 64 i32 of available GPUs,
// 64 of required GPUs, four i32 of masks, then 64 i32 of output. Calls pass pointers into it, so
// the TypeScript side writes a request without reserving scratch space first.
const alIO: usize = memory.data(4 * (64 + 64 + 4 + 64), 16);

/** Address of the aligned kernels' fixed input/output block (see alIO). */
export function alignedIO(): usize {
  return alIO;
}

/** Rounds of swap search per greedy start (src/baseline/aligned.ts SWAP_ROUNDS). */
const SWAP_ROUNDS: i32 = 64;

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
      better = lexBefore(set, tpBestSet);
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
