// The fleet kernels' scores (src/baseline/fleet.ts is their TypeScript twin): fragmentation of a
// node, each policy's score of a node for a pod, and whether a node fits a pod.
import { H_NODES, H_MAXG, H_STRIDE, H_TYPICAL, H_NODE_AT, H_TYP_AT, H_SCRATCH_AT, H_F_WEIGHT, H_F_THR, H_CLEAN_AT, H_F_PLAN, H_F_VALUE, H_LAMBDAS, H_VALUE_NONNEG, H_VALUE_ENTRIES, H_IDLE8, H_RESERVE, PLAN_SIZE, VALUE_SIZE, N_CPU, N_MEM, N_MODEL, N_GPUS, N_FREE, N_FULL, N_MAXFREE, N_WANTED, N_TYPE, N_TAGS, P_DOTPROD, P_CLUSTERING, P_PACKING, P_BESTFIT, P_FGD, P_OURS, P_LP, P_NODE, si, ss, fi } from './fleet-layout';

/** The GPU a sharing pod takes on the node last scored (-1: none / exclusive). */
export let chosenGpu: i32 = -1;

// fgd-lp: a share is on plan where its placement loses less than this of the GPU's plan value.
const PLAN_TOLERANCE: f64 = 1e-9;

/** Frag of the GPUs s[gAt..gAt+gpus) with cpuLeft and the model bit (src/fleet/frag.ts nodeFrag). */
export function nodeFrag(s: usize, f: usize, gAt: i32, gpus: i32, cpuLeft: i32, modelBit: i32): f64 {
  let free: i32 = 0;
  for (let i = 0; i < gpus; i++) free += si(s, gAt + i);
  const typical = si(s, H_TYPICAL);
  const tAt = si(s, H_TYP_AT);
  const wAt = si(s, H_F_WEIGHT);
  let frag: f64 = 0;
  for (let t = 0; t < typical; t++) {
    const q = tAt + t * 4;
    const milli = si(s, q + 1);
    const mask = si(s, q + 3);
    const weight = fi(f, wAt + t);
    if (milli == 0 || (mask & modelBit) == 0) {
      frag += weight * <f64>free;
      continue;
    }
    let fit: i32 = 0;
    let small: i32 = 0;
    for (let i = 0; i < gpus; i++) {
      const v = si(s, gAt + i);
      if (v >= milli) fit++;
      else small += v;
    }
    frag += fit >= si(s, q + 2) && cpuLeft >= si(s, q) ? weight * <f64>small : weight * <f64>free;
  }
  return frag;
}

export function fragAfter(s: usize, f: usize, base: i32, cpu: i32, j: i32, v: i32, drop: i32): f64 {
  const gpus = si(s, base + N_GPUS);
  const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
  const sc = si(s, H_SCRATCH_AT);
  let left = drop;
  for (let i = 0; i < gpus; i++) {
    let g = si(s, gAt + i);
    if (i == j) g = v;
    else if (left > 0 && g == 1000) {
      g = 0;
      left--;
    }
    ss(s, sc + i, g);
  }
  return nodeFrag(s, f, sc, gpus, cpu, si(s, base + N_MODEL));
}

/** ⌊100·σ(delta/1000)⌋ through the thresholds (src/fleet/policies/fgd.ts). */
function fgdQuantize(delta: f64, f: usize, at: i32): i32 {
  let lo = 0;
  let hi = 99;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (delta >= fi(f, at + mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function dotprodScore(cpuLeft: i32, freeMilli: i32, cpu: i32, gpuMilli: i32): f64 {
  if (cpuLeft < cpu) return 0;
  const dot = (<f64>cpuLeft / 128000) * (<f64>cpu / 128000) + (<f64>freeMilli / 8000) * (<f64>gpuMilli / 8000);
  return Math.trunc(100 * (1 - 0.5 * dot));
}

function bestfitScore(cpuLeft: i32, freeMilli: i32, cpu: i32, gpuMilli: i32): f64 {
  return Math.trunc(100 * (1 - ((0.5 * <f64>(cpuLeft - cpu)) / 128000 + (0.5 * <f64>(freeMilli - gpuMilli)) / 8000)));
}

function clusteringScore(freeMilli: i32, s: usize, at: i32, maxTag: i32, num: i32, milli: i32): f64 {
  if (num == 0 || milli == 0) return 0;
  const tag = num == 1 && milli < 1000 ? 0 : num;
  const b = (25 * (8000 - freeMilli)) / 8000;
  let total = 0;
  for (let t = 0; t <= maxTag; t++) total += si(s, at + t);
  if (total == 0) return <f64>(b + 25);
  const mine = si(s, at + tag);
  if (mine == 0) return <f64>b;
  return mine == total ? <f64>(b + 75) : <f64>(b + 50);
}

function packingScore(s: usize, at: i32, gpus: i32, full: i32, num: i32, milli: i32): f64 {
  if (num == 0 || milli == 0) return 0;
  if (full == gpus) return <f64>max(33 - full, full);
  if (num == 1) {
    let best = 1001;
    for (let i = 0; i < gpus; i++) {
      const g = si(s, at + i);
      if (g >= milli && g < best) best = g;
    }
    if (best == 1000) return 49;
    return <f64>max(100 - ((best * 100) / 1000) / 10, 50);
  }
  return <f64>max(50 - num, 33);
}

/** fgd-node: V of the node at `base` after a pod takes `milli` of GPU j (-1: none) or `whole` wholly free GPUs, leaving cpuLeft and memLeft (src/fleet/policies/fgd-node.ts nodeValue). */
export function nodeValue(s: usize, f: usize, base: i32, cpuLeft: i32, memLeft: i32, j: i32, milli: i32, whole: i32): f64 {
  const lambdas = si(s, H_LAMBDAS);
  if (lambdas == 0) return 0;
  const entries = si(s, H_VALUE_ENTRIES);
  const coreAt = si(s, H_F_VALUE) + si(s, H_NODES);
  const gibAt = coreAt + entries;
  const tableAt = gibAt + entries;
  const gpus = si(s, base + N_GPUS);
  const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
  const nonneg = si(s, H_VALUE_NONNEG) == 1;
  const c = <f64>cpuLeft / 1000;
  const m = <f64>memLeft / 1024;
  let best = Infinity;
  for (let l = 0, e = si(s, base + N_TYPE) * lambdas; l < lambdas; l++, e++) {
    let v = fi(f, coreAt + e) * c + fi(f, gibAt + e) * m;
    const t = tableAt + e * VALUE_SIZE;
    for (let i = 0, w = whole; i < gpus; i++) {
      let r = si(s, gAt + i);
      if (i == j) r -= milli;
      if (w > 0 && r == 1000) {
        r = 0;
        w--;
      }
      v += fi(f, t + r);
      // With entries of 0 or more, a sum that reaches the least so far ends at or above it.
      if (nonneg && v >= best) break;
    }
    if (v < best) best = v;
  }
  return best;
}

/** fgd-node: whether the reserve holds the node at `base` (src/fleet/policies/fgd-node.ts heldNode). */
function heldNode(s: usize, base: i32): bool {
  const gpus = si(s, base + N_GPUS);
  const reserve = si(s, H_RESERVE);
  return reserve >= 0 && gpus >= 4 && si(s, base + N_FULL) == gpus && si(s, H_IDLE8) <= reserve;
}

/** fgd-node's score of node n (src/baseline/fleet.ts nodeScore): the same operations in the same order. */
function nodeScore(s: usize, f: usize, n: i32, base: i32, cpu: i32, mem: i32, num: i32, milli: i32): f64 {
  const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
  const gpus = si(s, base + N_GPUS);
  const cpuLeft = si(s, base + N_CPU) - cpu;
  const memLeft = si(s, base + N_MEM) - mem;
  const value = si(s, H_LAMBDAS) == 0 ? 0.0 : fi(f, si(s, H_F_VALUE) + n);
  const held = heldNode(s, base);
  const thr = si(s, H_F_THR);
  const before = fi(f, n);
  if (!(num == 1 && milli > 0 && milli < 1000)) {
    const whole = milli > 0 ? num : 0;
    const q = <f64>fgdQuantize(before - fragAfter(s, f, base, cpuLeft, -1, 0, whole), f, thr);
    const loss = value - nodeValue(s, f, base, cpuLeft, memLeft, -1, 0, whole);
    if (whole == 0) return (held ? -1e15 : 0.0) + -Math.round(loss) * 1e9 + q * 1e6 - <f64>si(s, base + N_FREE);
    const tie = si(s, base + N_WANTED) != 0 ? 0.0 : 4294967296.0 - <f64>cpuLeft / <f64>(si(s, base + N_FULL) - num + 1);
    return (num < 4 && held ? -1e18 : 0.0) + -Math.round(loss) * 1e12 + q * 8589934592.0 + tie;
  }
  let best = -Infinity;
  for (let i = 0; i < gpus; i++) {
    const g = si(s, gAt + i);
    if (g < milli) continue;
    let seen = false;
    for (let k = 0; k < i && !seen; k++) seen = si(s, gAt + k) == g;
    if (seen) continue;
    const q = <f64>fgdQuantize(before - fragAfter(s, f, base, cpuLeft, i, g - milli, 0), f, thr);
    const loss = value - nodeValue(s, f, base, cpuLeft, memLeft, i, milli, 0);
    const score = (held ? -1e15 : 0.0) + -Math.round(loss) * 1000 + q;
    if (score > best) {
      best = score;
      chosenGpu = i;
    }
  }
  return best;
}

export function scoreNode(s: usize, f: usize, policy: i32, n: i32, cpu: i32, mem: i32, num: i32, milli: i32): f64 {
  const base = si(s, H_NODE_AT) + n * si(s, H_STRIDE);
  const maxG = si(s, H_MAXG);
  const gAt = base + N_TAGS + maxG + 1;
  const gpus = si(s, base + N_GPUS);
  const cpuLeft = si(s, base + N_CPU);
  const free = si(s, base + N_FREE);
  const sharing = num == 1 && milli > 0 && milli < 1000;
  const request = num * milli;
  chosenGpu = -1;
  if (policy == P_NODE) return nodeScore(s, f, n, base, cpu, mem, num, milli);
  if (policy == P_FGD || policy == P_OURS || policy == P_LP) {
    const before = fi(f, n);
    if (!sharing) {
      const delta = before - fragAfter(s, f, base, cpuLeft - cpu, -1, 0, milli > 0 ? num : 0);
      const q = <f64>fgdQuantize(delta, f, si(s, H_F_THR));
      if (policy == P_FGD) return q;
      if (num == 0 || milli == 0) return q * 1e6 - <f64>free;
      return q * 8589934592.0 + (si(s, base + N_WANTED) != 0 ? 0.0 : 4294967296.0 - <f64>(cpuLeft - cpu) / <f64>(si(s, base + N_FULL) - num + 1));
    }
    const ours = policy == P_OURS;
    const lp = policy == P_LP;
    const clean = si(s, H_CLEAN_AT);
    const plan = si(s, H_F_PLAN);
    let best: i32 = -1;
    for (let i = 0; i < gpus; i++) {
      const g = si(s, gAt + i);
      if (g < milli) continue;
      let seen = false;
      for (let k = 0; k < i; k++) {
        if (si(s, gAt + k) == g) {
          seen = true;
          break;
        }
      }
      if (seen) continue;
      const delta = before - fragAfter(s, f, base, cpuLeft - cpu, i, g - milli, 0);
      let first = ours && (g == 1000 || si(s, clean + g - milli) != 0);
      // fgd-lp: on plan (src/fleet/policies/share-values.ts planTables).
      if (lp) first = fi(f, plan + g) - fi(f, plan + PLAN_SIZE + milli) - fi(f, plan + g - milli) < PLAN_TOLERANCE;
      const score = fgdQuantize(delta, f, si(s, H_F_THR)) + (first ? 1000 : 0);
      if (score > best) {
        best = score;
        chosenGpu = i;
      }
    }
    return <f64>best;
  }
  if (sharing) {
    let least = 1001;
    for (let i = 0; i < gpus; i++) {
      const g = si(s, gAt + i);
      if (g >= milli && g < least) {
        least = g;
        chosenGpu = i;
      }
    }
  }
  if (policy == P_DOTPROD) return dotprodScore(cpuLeft, free, cpu, request);
  if (policy == P_BESTFIT) return bestfitScore(cpuLeft, free, cpu, request);
  if (policy == P_CLUSTERING) return clusteringScore(free, s, base + N_TAGS, maxG, num, milli);
  // A policy number without a score here is an error, never a silent packing score.
  if (policy != P_PACKING) unreachable();
  return packingScore(s, gAt, gpus, si(s, base + N_FULL), num, milli);
}

/** Whether node base fits the CPU and GPUs of a pod class (cpu, num × milli): what every pod of the class needs alike. */
// @ts-ignore: decorator
@inline export function fitsClass(s: usize, base: i32, cpu: i32, num: i32, milli: i32): bool {
  if (si(s, base + N_CPU) < cpu) return false;
  if (num == 0 || milli == 0) return true;
  if (si(s, base + N_GPUS) == 0) return false;
  if (num == 1) return si(s, base + N_MAXFREE) >= milli;
  return si(s, base + N_FULL) >= num;
}

/** Whether node base has the pod's host memory and (a GPU pod) one of its GPU models: what pods of one class differ in. */
// @ts-ignore: decorator
@inline export function fitsPod(s: usize, base: i32, mem: i32, gpuPod: bool, mask: i32): bool {
  return si(s, base + N_MEM) >= mem && (!gpuPod || (mask & si(s, base + N_MODEL)) != 0);
}

// @ts-ignore: decorator
@inline export function fits(s: usize, base: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32): bool {
  return fitsClass(s, base, cpu, num, milli) && fitsPod(s, base, mem, num > 0 && milli > 0, mask);
}
