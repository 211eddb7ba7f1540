// A policy's lookahead on close decisions (src/fleet/lookahead.ts says what it is; the lookahead
// block of src/fleet/layout.ts holds its setting, sampling table and scratch; the TypeScript twin is
// src/baseline/fleet-rollout.ts). The pick offers every candidate it scores (lookOffer, which keeps
// the best n in the scan's order); lookChoose then rolls out among the close ones. Nothing is
// allocated: the continuations, the candidates and the GPU states live in the block.
import { H_LOOK_AT, H_F_LOOK, H_STRIDE, H_NODE_AT, H_MAXG, LK_CANDIDATES, LK_CONTINUATIONS, LK_DEPTH, LK_SCOPE, LK_SEED, LK_SHAPES, LK_LOOKUPS, LK_SHAPE_AT, LK_CUM_AT, LK_CAND_AT, LK_SEQ_AT, LK_GPU_AT, LK_GUIDE_AT, LK_GUIDE_BITS, LK_MIN_CPU, LK_MIN_MEM, SHAPE_FIELDS, CAND_FIELDS, N_CPU, N_MEM, N_MODEL, N_GPUS, N_TAGS, si, ss, fi, fs } from './fleet-layout';

/** Candidates kept for the current pick (lookStart empties them). */
let count: i32 = 0;
/** The mulberry32 state of the current decision (src/fleet/prng.ts's generator). */
let rng: u32 = 0;
/** The GPU choice of the candidate lookChoose returned. */
export let rolloutGpu: i32 = -1;

/** Whether the fleet's policy looks ahead on a pod of this request (its scope: 0 shares, 1 GPU pods, 2 every pod); empties the candidates when it does. */
export function lookStart(s: usize, num: i32, milli: i32): bool {
  const at = si(s, H_LOOK_AT);
  if (at == 0) return false;
  const scope = si(s, at + LK_SCOPE);
  const on = scope == 2 || (scope == 1 ? num > 0 && milli > 0 : num == 1 && milli > 0 && milli < 1000);
  count = 0;
  return on;
}

/** Offers a candidate (node, its score, rank and GPU choice): kept when among the best n so far (the higher score, then the smaller rank). */
export function lookOffer(s: usize, f: usize, node: i32, score: f64, rank: i32, gpu: i32): void {
  const at = si(s, H_LOOK_AT);
  const n = si(s, at + LK_CANDIDATES);
  const cand = si(s, at + LK_CAND_AT);
  const sc = si(s, H_F_LOOK) + 1;
  let i = count;
  if (count == n) {
    const last = fi(f, sc + n - 1);
    if (score < last || (score == last && rank > si(s, cand + (n - 1) * CAND_FIELDS + 2))) return;
    i = n - 1;
  } else count++;
  // Shift the worse ones down to make room at the candidate's place.
  while (i > 0) {
    const prev = fi(f, sc + i - 1);
    if (score < prev || (score == prev && rank > si(s, cand + (i - 1) * CAND_FIELDS + 2))) break;
    fs(f, sc + i, prev);
    const to = cand + i * CAND_FIELDS;
    ss(s, to, si(s, to - CAND_FIELDS));
    ss(s, to + 1, si(s, to - CAND_FIELDS + 1));
    ss(s, to + 2, si(s, to - CAND_FIELDS + 2));
    i--;
  }
  fs(f, sc + i, score);
  const to = cand + i * CAND_FIELDS;
  ss(s, to, node);
  ss(s, to + 1, gpu);
  ss(s, to + 2, rank);
}

/** Whether a candidate of this score and rank (or a subtree of the pod index whose winner it is) may still enter the best n (src/baseline/fleet-rollout.ts lookWants). */
export function lookWants(s: usize, f: usize, score: f64, rank: i32): bool {
  const at = si(s, H_LOOK_AT);
  const n = si(s, at + LK_CANDIDATES);
  const sc = si(s, H_F_LOOK) + 1;
  if (count > 0 && fi(f, sc) - score > fi(f, sc - 1)) return false;
  if (count < n) return true;
  const last = fi(f, sc + n - 1);
  return score > last || (score == last && rank < si(s, si(s, at + LK_CAND_AT) + (n - 1) * CAND_FIELDS + 2));
}

/** Whether node is among the candidates kept. */
export function lookHas(s: usize, node: i32): bool {
  const cand = si(s, si(s, H_LOOK_AT) + LK_CAND_AT);
  for (let i = 0; i < count; i++) if (si(s, cand + i * CAND_FIELDS) == node) return true;
  return false;
}

/** The best candidate's node (-1: none kept). */
export function lookFirst(s: usize): i32 {
  return count == 0 ? -1 : si(s, si(s, si(s, H_LOOK_AT) + LK_CAND_AT));
}

/** The next 32-bit unsigned integer of the decision's stream (mulberry32). */
// @ts-ignore: decorator
@inline function next(): u32 {
  rng += 0x6d2b79f5;
  let t = rng;
  t = (t ^ (t >>> 15)) * (t | 1);
  t ^= t + (t ^ (t >>> 7)) * (t | 61);
  return t ^ (t >>> 14);
}

/** Places a pod of `num` GPUs of `milli` each on the GPU state at `work` greedily; false (nothing changed) when it does not fit (src/baseline/fleet-rollout.ts place). */
// @ts-ignore: decorator
@inline function place(s: usize, work: i32, gpus: i32, num: i32, milli: i32): bool {
  if (num == 1 && milli < 1000) {
    let best = -1;
    let least = 0;
    for (let j = 0; j < gpus; j++) {
      const v = si(s, work + j);
      if (v >= milli && (best < 0 || v < least)) {
        best = j;
        least = v;
      }
    }
    if (best < 0) return false;
    ss(s, work + best, least - milli);
    return true;
  }
  let full = 0;
  for (let j = 0; j < gpus; j++) if (si(s, work + j) == 1000) full++;
  if (full < num) return false;
  let left = num;
  for (let j = 0; j < gpus && left > 0; j++) {
    if (si(s, work + j) == 1000) {
      ss(s, work + j, 0);
      left--;
    }
  }
  return true;
}

/** The GPU milli the drawn continuations place on a node without the pod (GPUs at gAt) less with it (GPUs at gAt + gpus), walked together (src/baseline/fleet-rollout.ts damageOf). */
function damageOf(s: usize, at: i32, gAt: i32, gpus: i32, cpuA: i32, memA: i32, cpuB: i32, memB: i32): i32 {
  const m = si(s, at + LK_CONTINUATIONS);
  const k = si(s, at + LK_DEPTH);
  const shapeAt = si(s, at + LK_SHAPE_AT);
  const seqAt = si(s, at + LK_SEQ_AT);
  const minCpu = si(s, at + LK_MIN_CPU);
  const minMem = si(s, at + LK_MIN_MEM);
  const startB = gAt + gpus;
  const workA = startB + gpus;
  const workB = workA + gpus;
  let freeA0 = 0;
  let freeB0 = 0;
  for (let j = 0; j < gpus; j++) {
    freeA0 += si(s, gAt + j);
    freeB0 += si(s, startB + j);
  }
  const liveA0 = freeA0 > 0 && cpuA >= minCpu && memA >= minMem;
  const liveB0 = freeB0 > 0 && cpuB >= minCpu && memB >= minMem;
  let total = 0;
  for (let c = 0; c < m; c++) {
    for (let j = 0; j < gpus; j++) {
      ss(s, workA + j, si(s, gAt + j));
      ss(s, workB + j, si(s, startB + j));
    }
    let cA = cpuA;
    let mA = memA;
    let fA = freeA0;
    let liveA = liveA0;
    let cB = cpuB;
    let mB = memB;
    let fB = freeB0;
    let liveB = liveB0;
    for (let step = 0, q = seqAt + c * k; step < k && (liveA || liveB); step++, q++) {
      const shape = si(s, q);
      if (shape < 0) continue;
      const p = shapeAt + shape * SHAPE_FIELDS;
      const pCpu = si(s, p);
      const pMem = si(s, p + 1);
      const num = si(s, p + 2);
      const milli = si(s, p + 3);
      const gpu = num != 0 && milli != 0;
      if (liveA && pCpu <= cA && pMem <= mA && (!gpu || place(s, workA, gpus, num, milli))) {
        cA -= pCpu;
        mA -= pMem;
        if (gpu) {
          fA -= num * milli;
          total += num * milli;
        }
        liveA = fA > 0 && cA >= minCpu && mA >= minMem;
      }
      if (liveB && pCpu <= cB && pMem <= mB && (!gpu || place(s, workB, gpus, num, milli))) {
        cB -= pCpu;
        mB -= pMem;
        if (gpu) {
          fB -= num * milli;
          total -= num * milli;
        }
        liveB = fB > 0 && cB >= minCpu && mB >= minMem;
      }
    }
  }
  return total;
}

/** After the pick offered its candidates: the node the pod damages least among the close ones, its GPU choice in rolloutGpu; -1 when the pick stands (src/baseline/fleet-rollout.ts lookChoose). */
export function lookChoose(s: usize, f: usize, cpu: i32, mem: i32, num: i32, milli: i32): i32 {
  if (count < 2) return -1;
  const at = si(s, H_LOOK_AT);
  const sc = si(s, H_F_LOOK) + 1;
  const delta = fi(f, sc - 1);
  const best = fi(f, sc);
  let close = 1;
  while (close < count && best - fi(f, sc + close) <= delta) close++;
  if (close < 2) return -1;
  ss(s, at + LK_LOOKUPS, si(s, at + LK_LOOKUPS) + 1);
  rng = <u32>si(s, at + LK_SEED);
  const cand = si(s, at + LK_CAND_AT);
  const shapes = si(s, at + LK_SHAPES);
  const cumAt = si(s, at + LK_CUM_AT);
  const bits = si(s, at + LK_GUIDE_BITS);
  const guideAt = si(s, at + LK_GUIDE_AT);
  const seqAt = si(s, at + LK_SEQ_AT);
  const draws = si(s, at + LK_CONTINUATIONS) * si(s, at + LK_DEPTH);
  const gAt = si(s, at + LK_GPU_AT);
  const stride = si(s, H_STRIDE);
  const sharing = num == 1 && milli > 0 && milli < 1000;
  let choice = 0;
  let least = 0;
  for (let c = 0; c < close; c++) {
    const node = si(s, cand + c * CAND_FIELDS);
    const gpu = si(s, cand + c * CAND_FIELDS + 1);
    const base = si(s, H_NODE_AT) + node * stride;
    const bit = si(s, base + N_MODEL);
    const r = bit == 0 ? 0 : ctz<i32>(bit) + 1;
    const row = cumAt + r * shapes;
    const guide = guideAt + (r << bits);
    const total = shapes == 0 ? 0 : si(s, row + shapes - 1);
    const shift = total <= 1 ? 0 : max(0, 32 - clz<i32>(total - 1) - bits);
    // The continuations: M × K shapes drawn from the node's row (none when the row draws nothing).
    for (let d = 0; d < draws; d++) {
      if (total == 0) {
        ss(s, seqAt + d, -1);
        continue;
      }
      // The first shape whose cumulative count exceeds u, searched from its bucket's guide.
      const u = next() % <u32>total;
      let i = si(s, guide + <i32>(u >>> <u32>shift));
      while (<u32>si(s, row + i) <= u) i++;
      ss(s, seqAt + d, i);
    }
    const gpus = si(s, base + N_GPUS);
    const nodeG = base + N_TAGS + si(s, H_MAXG) + 1;
    const cpuLeft = si(s, base + N_CPU);
    const memLeft = si(s, base + N_MEM);
    const startB = gAt + gpus;
    for (let j = 0; j < gpus; j++) {
      ss(s, gAt + j, si(s, nodeG + j));
      ss(s, startB + j, si(s, nodeG + j));
    }
    // The node with the pod: its share on the candidate's GPU, or its whole GPUs on the lowest-index wholly free ones.
    if (sharing) ss(s, startB + gpu, si(s, startB + gpu) - milli);
    else if (num > 0 && milli > 0) {
      let left = num;
      for (let j = 0; j < gpus && left > 0; j++) {
        if (si(s, startB + j) == 1000) {
          ss(s, startB + j, 0);
          left--;
        }
      }
    }
    const damage = damageOf(s, at, gAt, gpus, cpuLeft, memLeft, cpuLeft - cpu, memLeft - mem);
    if (c == 0 || damage < least) {
      least = damage;
      choice = c;
    }
  }
  rolloutGpu = si(s, cand + choice * CAND_FIELDS + 1);
  return si(s, cand + choice * CAND_FIELDS);
}
