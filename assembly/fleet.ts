// Fractional multi-resource placement: the hot loop of the fleet simulator (the TypeScript twin is
// src/baseline/fleet.ts, the layout src/fleet/layout.ts). A fleet's state lives in one block of the
// core's heap (fleetAlloc): an i32 region `s` and an f64 region `f`. fleetPick filters every node for
// a pod, scores the feasible ones (from the per-(node, shape) score cache where it is valid), keeps
// the highest score and the smallest rank on a tie. The state lives in ClusterState: after a change to
// a node, its pod scheduler writes the node's resources and fleetRefresh recomputes only that node's
// totals, fragmentation and cache row.

// Header fields of s (src/fleet/layout.ts).
const H_NODES = 0;
const H_MAXG = 1;
const H_STRIDE = 2;
const H_TYPICAL = 3;
const H_CLASSES = 4;
const H_NODE_AT = 5;
const H_TYP_AT = 6;
const H_OUT_AT = 7;
const H_CACHE_AT = 8;
const H_SCRATCH_AT = 9;
const H_F_WEIGHT = 10;
const H_F_THR = 11;
const H_F_CACHE = 12;
const H_CLEAN_AT = 14;
// Node fields.
const N_CPU = 0;
const N_MEM = 1;
const N_MODEL = 2;
const N_GPUS = 3;
const N_RANK = 4;
const N_FREE = 5;
const N_FULL = 6;
const N_MAXFREE = 7;
const N_WANTED = 8;
const N_TAGS = 9;
// Policies.
const P_RANDOM = 0;
const P_DOTPROD = 1;
const P_CLUSTERING = 2;
const P_PACKING = 3;
const P_BESTFIT = 4;
const P_FGD = 5;
const P_OURS = 6;

// @ts-ignore: decorator
@inline function si(s: usize, k: i32): i32 {
  return load<i32>(s + (<usize>k << 2));
}
// @ts-ignore: decorator
@inline function ss(s: usize, k: i32, v: i32): void {
  store<i32>(s + (<usize>k << 2), v);
}
// @ts-ignore: decorator
@inline function fi(f: usize, k: i32): f64 {
  return load<f64>(f + (<usize>k << 3));
}
// @ts-ignore: decorator
@inline function fs(f: usize, k: i32, v: f64): void {
  store<f64>(f + (<usize>k << 3), v);
}

/** The GPU a sharing pod takes on the node last scored (-1: none / exclusive). */
let chosenGpu: i32 = -1;

/** A zero-filled block of `ints` i32 then `floats` f64 (8-aligned); 0 base of the f64 region at fleetFloats(). */
export function fleetAlloc(ints: i32, floats: i32): usize {
  if (ints < 0 || floats < 0) unreachable();
  const intBytes = ((<usize>ints << 2) + 15) & ~(<usize>15);
  const bytes = intBytes + (<usize>floats << 3);
  const p = heap.alloc(bytes);
  memory.fill(p, 0, bytes);
  return p;
}

/** The f64 region of a block of `ints` i32. */
export function fleetFloats(block: usize, ints: i32): usize {
  return block + (((<usize>ints << 2) + 15) & ~(<usize>15));
}

/** Frag of the GPUs s[gAt..gAt+gpus) with cpuLeft and the model bit (src/fleet/frag.ts nodeFrag). */
function nodeFrag(s: usize, f: usize, gAt: i32, gpus: i32, cpuLeft: i32, modelBit: i32): f64 {
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

function fragAfter(s: usize, f: usize, base: i32, cpu: i32, j: i32, v: i32, drop: i32): f64 {
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

function scoreNode(s: usize, f: usize, policy: i32, n: i32, cpu: i32, num: i32, milli: i32): f64 {
  const base = si(s, H_NODE_AT) + n * si(s, H_STRIDE);
  const maxG = si(s, H_MAXG);
  const gAt = base + N_TAGS + maxG + 1;
  const gpus = si(s, base + N_GPUS);
  const cpuLeft = si(s, base + N_CPU);
  const free = si(s, base + N_FREE);
  const sharing = num == 1 && milli > 0 && milli < 1000;
  const request = num * milli;
  chosenGpu = -1;
  if (policy == P_FGD || policy == P_OURS) {
    const before = fi(f, n);
    if (!sharing) {
      const delta = before - fragAfter(s, f, base, cpuLeft - cpu, -1, 0, milli > 0 ? num : 0);
      const q = <f64>fgdQuantize(delta, f, si(s, H_F_THR));
      if (policy != P_OURS) return q;
      if (num == 0 || milli == 0) return q * 1e6 - <f64>free;
      return q * 8589934592.0 + (si(s, base + N_WANTED) != 0 ? 0.0 : 4294967296.0 - <f64>(cpuLeft - cpu) / <f64>(si(s, base + N_FULL) - num + 1));
    }
    const ours = policy == P_OURS;
    const clean = si(s, H_CLEAN_AT);
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
      const score = fgdQuantize(delta, f, si(s, H_F_THR)) + (ours && (g == 1000 || si(s, clean + g - milli) != 0) ? 1000 : 0);
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
  return packingScore(s, gAt, gpus, si(s, base + N_FULL), num, milli);
}

// @ts-ignore: decorator
@inline function fits(s: usize, base: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32): bool {
  if (si(s, base + N_CPU) < cpu || si(s, base + N_MEM) < mem) return false;
  if (num == 0 || milli == 0) return true;
  if (si(s, base + N_GPUS) == 0) return false;
  if ((mask & si(s, base + N_MODEL)) == 0) return false;
  if (num == 1) return si(s, base + N_MAXFREE) >= milli;
  return si(s, base + N_FULL) >= num;
}

function refresh(s: usize, f: usize, n: i32): void {
  const base = si(s, H_NODE_AT) + n * si(s, H_STRIDE);
  const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
  const gpus = si(s, base + N_GPUS);
  let free = 0;
  let full = 0;
  let most = 0;
  for (let i = 0; i < gpus; i++) {
    const g = si(s, gAt + i);
    free += g;
    if (g == 1000) full++;
    if (g > most) most = g;
  }
  ss(s, base + N_FREE, free);
  ss(s, base + N_FULL, full);
  ss(s, base + N_MAXFREE, most);
  fs(f, n, nodeFrag(s, f, gAt, gpus, si(s, base + N_CPU), si(s, base + N_MODEL)));
  const classes = si(s, H_CLASSES);
  const c = si(s, H_CACHE_AT) + n * classes;
  for (let k = 0; k < classes; k++) ss(s, c + k, -2);
}

/** Derives every node's totals and fragmentation; empties the score cache. */
export function fleetInit(s: usize, f: usize): void {
  const nodes = si(s, H_NODES);
  for (let n = 0; n < nodes; n++) refresh(s, f, n);
}

/** Filters and scores every node for one pod (src/fleet/kernels.ts fleetPick). */
export function fleetPick(s: usize, f: usize, policy: i32, cls: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32, u1: f64, u2: f64): i32 {
  const nodes = si(s, H_NODES);
  const stride = si(s, H_STRIDE);
  const at = si(s, H_NODE_AT);
  const out = si(s, H_OUT_AT);
  const sharing = num == 1 && milli > 0 && milli < 1000;
  ss(s, out, 0);
  let pick = -1;
  let gpu = -1;
  if (policy == P_RANDOM) {
    let count = 0;
    for (let n = 0; n < nodes; n++) if (fits(s, at + n * stride, cpu, mem, num, milli, mask)) count++;
    if (count == 0) return -1;
    let k = <i32>Math.floor(u1 * <f64>count);
    for (let n = 0; n < nodes; n++) {
      if (!fits(s, at + n * stride, cpu, mem, num, milli, mask)) continue;
      if (k == 0) {
        pick = n;
        break;
      }
      k--;
    }
    if (sharing) {
      const base = at + pick * stride;
      const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
      const gpus = si(s, base + N_GPUS);
      let room = 0;
      for (let i = 0; i < gpus; i++) if (si(s, gAt + i) >= milli) room++;
      let r = <i32>Math.floor(u2 * <f64>room);
      for (let i = 0; i < gpus; i++) {
        if (si(s, gAt + i) < milli) continue;
        if (r == 0) {
          gpu = i;
          break;
        }
        r--;
      }
    }
  } else {
    const classes = si(s, H_CLASSES);
    const cached = cls >= 0 && cls < classes;
    const cAt = si(s, H_CACHE_AT);
    const fAt = si(s, H_F_CACHE);
    let best: f64 = 0;
    let bestRank = 0;
    for (let n = 0; n < nodes; n++) {
      const base = at + n * stride;
      if (!fits(s, base, cpu, mem, num, milli, mask)) continue;
      let score: f64;
      let g: i32;
      const slot = n * classes + cls;
      if (cached && si(s, cAt + slot) != -2) {
        score = fi(f, fAt + slot);
        g = si(s, cAt + slot);
      } else {
        score = scoreNode(s, f, policy, n, cpu, num, milli);
        g = chosenGpu;
        if (cached) {
          fs(f, fAt + slot, score);
          ss(s, cAt + slot, g);
        }
      }
      const rank = si(s, base + N_RANK);
      if (pick < 0 || score > best || (score == best && rank < bestRank)) {
        pick = n;
        best = score;
        bestRank = rank;
        gpu = g;
      }
    }
    if (pick < 0) return -1;
  }
  if (num > 0 && milli > 0) {
    if (sharing) {
      ss(s, out, 1);
      ss(s, out + 1, gpu);
    } else {
      const base = at + pick * stride;
      const gAt = base + N_TAGS + si(s, H_MAXG) + 1;
      const gpus = si(s, base + N_GPUS);
      let taken = 0;
      for (let i = 0; i < gpus && taken < num; i++) {
        if (si(s, gAt + i) == 1000) {
          taken++;
          ss(s, out + taken, i);
        }
      }
      ss(s, out, taken);
    }
  }
  return pick;
}

/**
 * Recomputes node `node` after its CPU, memory, tag counts and per-GPU free milli were rewritten
 * (ClusterState's pod scheduler re-syncs a node after every commit or release on it): its totals,
 * fragmentation and score-cache row.
 */
export function fleetRefresh(s: usize, f: usize, node: i32): void {
  if (node < 0 || node >= si(s, H_NODES)) unreachable();
  refresh(s, f, node);
}
