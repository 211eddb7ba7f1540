// The pure-TypeScript twin of assembly/fleet-rollout.ts: a policy's lookahead on close decisions
// (src/fleet/lookahead.ts says what it is; the lookahead block of src/fleet/layout.ts holds its
// setting, sampling table and scratch). The pick offers every candidate it scores (lookOffer, which
// keeps the best n in the scan's order); lookChoose then rolls out among the close ones. Nothing is
// allocated: the continuations, the candidates and the GPU states live in the block.
// Every read of the two memories is in range by construction (hence the `!`): the block's offsets
// place each table inside them (src/fleet/lookahead.ts sizes and writes it).

import * as L from '../fleet/layout.js';

/** Candidates kept for the current pick (lookStart empties them). */
let count = 0;
/** The mulberry32 state of the current decision (src/fleet/prng.ts's generator). */
let rng = 0;
/** The GPU choice of the candidate lookChoose returned. */
export let rolloutGpu = -1;

/** Whether the fleet's policy looks ahead on a pod of this request (its scope: 0 shares, 1 GPU pods, 2 every pod); empties the candidates when it does. */
export function lookStart(s: Int32Array, num: number, milli: number): boolean {
  const at = s[L.H_LOOK_AT]!;
  if (at === 0) return false;
  const scope = s[at + L.LK_SCOPE]!;
  const on = scope === 2 || (scope === 1 ? num > 0 && milli > 0 : num === 1 && milli > 0 && milli < 1000);
  count = 0;
  return on;
}

/** Offers a candidate (node, its score, rank and GPU choice): kept when among the best n so far (the higher score, then the smaller rank). */
export function lookOffer(s: Int32Array, f: Float64Array, node: number, score: number, rank: number, gpu: number): void {
  const at = s[L.H_LOOK_AT]!;
  const n = s[at + L.LK_CANDIDATES]!;
  const cand = s[at + L.LK_CAND_AT]!;
  const sc = s[L.H_F_LOOK]! + 1;
  let i = count;
  if (count === n) {
    const last = f[sc + n - 1]!;
    if (score < last || (score === last && rank > s[cand + (n - 1) * L.CAND_FIELDS + 2]!)) return;
    i = n - 1;
  } else count++;
  // Shift the worse ones down to make room at the candidate's place.
  while (i > 0) {
    const prev = f[sc + i - 1]!;
    if (score < prev || (score === prev && rank > s[cand + (i - 1) * L.CAND_FIELDS + 2]!)) break;
    f[sc + i] = prev;
    const to = cand + i * L.CAND_FIELDS;
    s[to] = s[to - L.CAND_FIELDS]!;
    s[to + 1] = s[to - L.CAND_FIELDS + 1]!;
    s[to + 2] = s[to - L.CAND_FIELDS + 2]!;
    i--;
  }
  f[sc + i] = score;
  const to = cand + i * L.CAND_FIELDS;
  s[to] = node;
  s[to + 1] = gpu;
  s[to + 2] = rank;
}

/**
 * Whether a candidate of this score and rank (or a subtree of the pod index whose winner it is) may
 * still enter the best n: fewer than n kept or it beats the n-th, and none kept yet or it is within
 * δ of the best (anything further is never close).
 */
export function lookWants(s: Int32Array, f: Float64Array, score: number, rank: number): boolean {
  const at = s[L.H_LOOK_AT]!;
  const n = s[at + L.LK_CANDIDATES]!;
  const sc = s[L.H_F_LOOK]! + 1;
  if (count > 0 && f[sc]! - score > f[sc - 1]!) return false;
  if (count < n) return true;
  const last = f[sc + n - 1]!;
  return score > last || (score === last && rank < s[s[at + L.LK_CAND_AT]! + (n - 1) * L.CAND_FIELDS + 2]!);
}

/** Whether node is among the candidates kept (the pod index's descent meets a winner again below its entry). */
export function lookHas(s: Int32Array, node: number): boolean {
  const cand = s[s[L.H_LOOK_AT]! + L.LK_CAND_AT]!;
  for (let i = 0; i < count; i++) if (s[cand + i * L.CAND_FIELDS] === node) return true;
  return false;
}

/** The best candidate's node (-1: none kept). */
export function lookFirst(s: Int32Array): number {
  return count === 0 ? -1 : s[s[s[L.H_LOOK_AT]! + L.LK_CAND_AT]!]!;
}

/** The next 32-bit unsigned integer of the decision's stream (mulberry32). */
function next(): number {
  rng = (rng + 0x6d2b79f5) | 0;
  let t = rng;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/**
 * Places a pod of `num` GPUs of `milli` each on the GPU state at `work` (`gpus` of them) greedily: a
 * share on its tightest GPU (the lowest index on a tie), whole GPUs on the lowest-index wholly free
 * ones; false (nothing changed) when it does not fit.
 */
function place(s: Int32Array, work: number, gpus: number, num: number, milli: number): boolean {
  if (num === 1 && milli < 1000) {
    let best = -1;
    let least = 0;
    for (let j = 0; j < gpus; j++) {
      const v = s[work + j]!;
      if (v >= milli && (best < 0 || v < least)) {
        best = j;
        least = v;
      }
    }
    if (best < 0) return false;
    s[work + best] = least - milli;
    return true;
  }
  let full = 0;
  for (let j = 0; j < gpus; j++) if (s[work + j] === 1000) full++;
  if (full < num) return false;
  for (let j = 0, left = num; j < gpus && left > 0; j++) {
    if (s[work + j] === 1000) {
      s[work + j] = 0;
      left--;
    }
  }
  return true;
}

/**
 * The GPU milli that the drawn continuations (M × K shape indices at seqAt, -1: no pod) place on a
 * node without the pod (start state: the GPUs at gAt, `gpus` of them, cpuA and memA left) less what
 * they place on it with the pod (the GPUs at gAt + gpus, cpuB and memB left): each continuation from
 * each start state, each pod that fits placed (place), CPU and memory taken. The two states walk the
 * same pods together; each stops once no GPU milli is free or less CPU or memory is left than any GPU
 * pod asks (nothing after could add to the milli placed).
 */
function damageOf(s: Int32Array, at: number, gAt: number, gpus: number, cpuA: number, memA: number, cpuB: number, memB: number): number {
  const m = s[at + L.LK_CONTINUATIONS]!;
  const k = s[at + L.LK_DEPTH]!;
  const shapeAt = s[at + L.LK_SHAPE_AT]!;
  const seqAt = s[at + L.LK_SEQ_AT]!;
  const minCpu = s[at + L.LK_MIN_CPU]!;
  const minMem = s[at + L.LK_MIN_MEM]!;
  const startB = gAt + gpus;
  const workA = startB + gpus;
  const workB = workA + gpus;
  let freeA0 = 0;
  let freeB0 = 0;
  for (let j = 0; j < gpus; j++) {
    freeA0 += s[gAt + j]!;
    freeB0 += s[startB + j]!;
  }
  const liveA0 = freeA0 > 0 && cpuA >= minCpu && memA >= minMem;
  const liveB0 = freeB0 > 0 && cpuB >= minCpu && memB >= minMem;
  let total = 0;
  for (let c = 0; c < m; c++) {
    for (let j = 0; j < gpus; j++) {
      s[workA + j] = s[gAt + j]!;
      s[workB + j] = s[startB + j]!;
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
      const shape = s[q]!;
      if (shape < 0) continue;
      const p = shapeAt + shape * L.SHAPE_FIELDS;
      const pCpu = s[p]!;
      const pMem = s[p + 1]!;
      const num = s[p + 2]!;
      const milli = s[p + 3]!;
      const gpu = num !== 0 && milli !== 0;
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

/**
 * After the pick offered its candidates: when two or more of the best n are within δ of the best,
 * the one whose node the pod damages least (the milli the decision's continuations place on it
 * without the pod, less with it; the first in the scan's order on a tie), its GPU choice in
 * rolloutGpu; -1 when the pick stands as it is. The candidates draw from the decision's stream in
 * their order, M × K pods each, from the sampling row of their node's model.
 */
export function lookChoose(s: Int32Array, f: Float64Array, cpu: number, mem: number, num: number, milli: number): number {
  if (count < 2) return -1;
  const at = s[L.H_LOOK_AT]!;
  const sc = s[L.H_F_LOOK]! + 1;
  const delta = f[sc - 1]!;
  const best = f[sc]!;
  let close = 1;
  while (close < count && best - f[sc + close]! <= delta) close++;
  if (close < 2) return -1;
  s[at + L.LK_LOOKUPS]!++;
  rng = s[at + L.LK_SEED]!;
  const cand = s[at + L.LK_CAND_AT]!;
  const shapes = s[at + L.LK_SHAPES]!;
  const cumAt = s[at + L.LK_CUM_AT]!;
  const bits = s[at + L.LK_GUIDE_BITS]!;
  const guideAt = s[at + L.LK_GUIDE_AT]!;
  const seqAt = s[at + L.LK_SEQ_AT]!;
  const draws = s[at + L.LK_CONTINUATIONS]! * s[at + L.LK_DEPTH]!;
  const gAt = s[at + L.LK_GPU_AT]!;
  const stride = s[L.H_STRIDE]!;
  const sharing = num === 1 && milli > 0 && milli < 1000;
  let choice = 0;
  let least = 0;
  for (let c = 0; c < close; c++) {
    const node = s[cand + c * L.CAND_FIELDS]!;
    const gpu = s[cand + c * L.CAND_FIELDS + 1]!;
    const base = s[L.H_NODE_AT]! + node * stride;
    const bit = s[base + L.N_MODEL]!;
    const r = bit === 0 ? 0 : 32 - Math.clz32(bit & -bit);
    const row = cumAt + r * shapes;
    const guide = guideAt + (r << bits);
    const total = shapes === 0 ? 0 : s[row + shapes - 1]!;
    const shift = total <= 1 ? 0 : Math.max(0, 32 - Math.clz32(total - 1) - bits);
    // The continuations: M × K shapes drawn from the node's row (none when the row draws nothing).
    for (let d = 0; d < draws; d++) {
      if (total === 0) {
        s[seqAt + d] = -1;
        continue;
      }
      // The first shape whose cumulative count exceeds u, searched from its bucket's guide.
      const u = next() % total;
      let i = s[guide + (u >>> shift)]!;
      while (s[row + i]! <= u) i++;
      s[seqAt + d] = i;
    }
    const gpus = s[base + L.N_GPUS]!;
    const nodeG = base + L.N_TAGS + s[L.H_MAXG]! + 1;
    const cpuLeft = s[base + L.N_CPU]!;
    const memLeft = s[base + L.N_MEM]!;
    const startB = gAt + gpus;
    for (let j = 0; j < gpus; j++) {
      s[gAt + j] = s[nodeG + j]!;
      s[startB + j] = s[nodeG + j]!;
    }
    // The node with the pod: its share on the candidate's GPU, or its whole GPUs on the lowest-index wholly free ones.
    if (sharing) s[startB + gpu] = s[startB + gpu]! - milli;
    else if (num > 0 && milli > 0) {
      for (let j = 0, left = num; j < gpus && left > 0; j++) {
        if (s[startB + j] === 1000) {
          s[startB + j] = 0;
          left--;
        }
      }
    }
    const damage = damageOf(s, at, gAt, gpus, cpuLeft, memLeft, cpuLeft - cpu, memLeft - mem);
    if (c === 0 || damage < least) {
      least = damage;
      choice = c;
    }
  }
  rolloutGpu = s[cand + choice * L.CAND_FIELDS + 1]!;
  return s[cand + choice * L.CAND_FIELDS]!;
}
