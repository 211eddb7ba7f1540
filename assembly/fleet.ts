// Fractional multi-resource placement: the hot loop of the fleet simulator (the TypeScript twin is
// src/baseline/fleet.ts, the layout src/fleet/layout.ts). A fleet's state lives in one block of the
// core's heap (fleetAlloc): an i32 region `s` and an f64 region `f`. fleetPick finds the node with
// the highest score for a pod, the smallest rank on a tie, among those that fit: through the pod
// index (per-class tournament trees over the cached scores, src/fleet/layout.ts) where the fleet has
// one and the pod's shape has a class, else by the scan (filter every node, score the feasible ones
// from the per-(class, node) score cache where it is not stale). The state lives in ClusterState:
// after a change to a node, its pod scheduler writes the node's resources and fleetRefresh
// recomputes only that node's totals and fragmentation and marks its scores stale.

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
const H_INDEX = 15;
const H_TREES = 16;
const H_TREE_AT = 17;
const H_F_TREE = 18;
const H_STALE_AT = 19;
const H_CLASS_AT = 20;
const H_LEAF_AT = 21;
const H_MODELS_AT = 22;
const H_STACK_AT = 23;
const H_F_FRAG = 24;
const H_FRAG_SINCE = 25;
const H_INNER = 26;
const TREE_FIELDS = 3;
// A tree entry's packed rank unit (memory left below it).
const RANK_UNIT: f64 = 2147483648.0;
// Score-cache GPU choices that are not a GPU (src/fleet/layout.ts).
const STALE = -2;
const ABSENT = -3;
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

/** Whether node base fits the CPU and GPUs of a pod class (cpu, num × milli): what every pod of the class needs alike. */
// @ts-ignore: decorator
@inline function fitsClass(s: usize, base: i32, cpu: i32, num: i32, milli: i32): bool {
  if (si(s, base + N_CPU) < cpu) return false;
  if (num == 0 || milli == 0) return true;
  if (si(s, base + N_GPUS) == 0) return false;
  if (num == 1) return si(s, base + N_MAXFREE) >= milli;
  return si(s, base + N_FULL) >= num;
}

/** Whether node base has the pod's host memory and (a GPU pod) one of its GPU models: what pods of one class differ in. */
// @ts-ignore: decorator
@inline function fitsPod(s: usize, base: i32, mem: i32, gpuPod: bool, mask: i32): bool {
  return si(s, base + N_MEM) >= mem && (!gpuPod || (mask & si(s, base + N_MODEL)) != 0);
}

// @ts-ignore: decorator
@inline function fits(s: usize, base: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32): bool {
  return fitsClass(s, base, cpu, num, milli) && fitsPod(s, base, mem, num > 0 && milli > 0, mask);
}

/** Node n's totals and fragmentation; its scores marked stale in every class, and listed in every built class (src/baseline/fleet.ts derive). */
function derive(s: usize, f: usize, n: i32): void {
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
  const frag = nodeFrag(s, f, gAt, gpus, si(s, base + N_CPU), si(s, base + N_MODEL));
  const total = si(s, H_F_FRAG);
  fs(f, total, fi(f, total) + (frag - fi(f, n)));
  fs(f, n, frag);
  const since = si(s, H_FRAG_SINCE) + 1;
  ss(s, H_FRAG_SINCE, since);
  if (since >= si(s, H_NODES)) sumFragmentation(s, f);
  const classes = si(s, H_CLASSES);
  const nodes = si(s, H_NODES);
  const indexed = si(s, H_INDEX) != 0;
  let g = si(s, H_CACHE_AT) + n;
  for (let c = 0; c < classes; c++, g += nodes) {
    if (si(s, g) == STALE) continue;
    ss(s, g, STALE);
    if (!indexed) continue;
    const state = si(s, H_CLASS_AT) + 2 * c;
    if (si(s, state) != 0) {
      const count = si(s, state + 1);
      ss(s, si(s, H_STALE_AT) + c * nodes + count, n);
      ss(s, state + 1, count + 1);
    }
  }
}

/** Sums every node's fragmentation afresh, in node order. */
function sumFragmentation(s: usize, f: usize): void {
  const nodes = si(s, H_NODES);
  let sum: f64 = 0;
  for (let k = 0; k < nodes; k++) sum += fi(f, k);
  fs(f, si(s, H_F_FRAG), sum);
  ss(s, H_FRAG_SINCE, 0);
}

/** Builds the index's static parts: each node's leaf, the node of each rank, the model bits below each position. */
function buildAggregates(s: usize): void {
  const nodes = si(s, H_NODES);
  const inner = si(s, H_INNER);
  const stride = si(s, H_STRIDE);
  const leafAt = si(s, H_LEAF_AT);
  const modelsAt = si(s, H_MODELS_AT);
  for (let i = 0; i < 3 * inner + 1; i++) {
    if (i >= nodes) {
      ss(s, modelsAt + inner + i, 0);
      continue;
    }
    const n = si(s, leafAt + i);
    const base = si(s, H_NODE_AT) + n * stride;
    ss(s, leafAt + nodes + n, i);
    ss(s, leafAt + 2 * nodes + si(s, base + N_RANK), n);
    ss(s, modelsAt + inner + i, si(s, base + N_MODEL));
  }
  for (let t = inner - 1; t >= 0; t--) {
    const c = modelsAt + 4 * t;
    ss(s, modelsAt + t, si(s, c + 1) | si(s, c + 2) | si(s, c + 3) | si(s, c + 4));
  }
}

/** The child read last by readChild: its score and packed value (-1: no node). */
let childScore: f64 = 0;
let childPacked: f64 = -1;

/** Reads position c of a tree (src/baseline/fleet.ts readChild). */
// @ts-ignore: decorator
@inline function readChild(f: usize, at: i32, leaves: i32, inner: i32, nodes: i32, floor: i64, c: i32): void {
  if (c < inner) {
    childScore = fi(f, at + 2 * c);
    childPacked = fi(f, at + 2 * c + 1);
    return;
  }
  const i = c - inner;
  if (i >= nodes) {
    childScore = 0;
    childPacked = -1;
    return;
  }
  const q = leaves + 2 * i;
  childScore = fi(f, q);
  const p = fi(f, q + 1);
  childPacked = p >= 0 && (<i64>p & 0x7fffffff) < floor ? -1 : p;
}

/** The match at inner entry t of a tree (src/baseline/fleet.ts play); false when the entry stands. */
function play(f: usize, at: i32, leaves: i32, inner: i32, nodes: i32, floor: i64, t: i32): bool {
  let score: f64 = 0;
  let packed: i64 = -1;
  let memory: i64 = -1;
  for (let c = 4 * t + 1; c <= 4 * t + 4; c++) {
    readChild(f, at, leaves, inner, nodes, floor, c);
    if (childPacked < 0) continue;
    const p = <i64>childPacked;
    const m = p & 0x7fffffff;
    if (m > memory) memory = m;
    if (packed < 0 || childScore > score || (childScore == score && p < packed)) {
      score = childScore;
      packed = p;
    }
  }
  if (packed >= 0) packed = (packed & ~(<i64>0x7fffffff)) + memory;
  const e = at + 2 * t;
  // The same winner: the entry stands, and so does a larger memory it holds (a bound is enough).
  const old = fi(f, e + 1);
  if (fi(f, e) == score) {
    if (old < 0 && packed < 0) return false;
    if (old >= 0 && packed >= 0) {
      const io = <i64>old;
      if (io >> 31 == packed >> 31 && packed <= io) return false;
    }
  }
  fs(f, e, score);
  fs(f, e + 1, <f64>packed);
  return true;
}

/** Scores node n for class c into its leaf i (f[leaves + 2i]) and its GPU choice when it fits the class's CPU and GPUs; else ABSENT and an empty leaf. */
function scoreLeaf(s: usize, f: usize, policy: i32, c: i32, n: i32, leaves: i32, i: i32, cpu: i32, num: i32, milli: i32): void {
  const g = si(s, H_CACHE_AT) + c * si(s, H_NODES) + n;
  const base = si(s, H_NODE_AT) + n * si(s, H_STRIDE);
  const q = leaves + 2 * i;
  if (!fitsClass(s, base, cpu, num, milli)) {
    ss(s, g, ABSENT);
    fs(f, q, 0);
    fs(f, q + 1, -1);
    return;
  }
  fs(f, q, scoreNode(s, f, policy, n, cpu, num, milli));
  fs(f, q + 1, <f64>si(s, base + N_RANK) * RANK_UNIT + <f64>si(s, base + N_MEM));
  ss(s, g, chosenGpu);
}

/** The pod index's pick for a pod of class c through tree k (src/baseline/fleet.ts pickIndexed). */
function pickIndexed(s: usize, f: usize, policy: i32, c: i32, k: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32): i32 {
  const nodes = si(s, H_NODES);
  const inner = si(s, H_INNER);
  const leaves = si(s, H_F_CACHE) + c * 2 * nodes;
  const leafAt = si(s, H_LEAF_AT);
  const state = si(s, H_CLASS_AT) + 2 * c;
  const treeAt = si(s, H_TREE_AT);
  if (si(s, state) == 0) {
    for (let i = 0; i < nodes; i++) scoreLeaf(s, f, policy, c, si(s, leafAt + i), leaves, i, cpu, num, milli);
    ss(s, state, 1);
  } else if (si(s, state + 1) > 0) {
    const listAt = si(s, H_STALE_AT) + c * nodes;
    const count = si(s, state + 1);
    let first = k;
    while (first > 0 && si(s, treeAt + (first - 1) * TREE_FIELDS) == c) first--;
    const trees = si(s, H_TREES);
    for (let j = 0; j < count; j++) {
      const n = si(s, listAt + j);
      const i = si(s, leafAt + nodes + n);
      scoreLeaf(s, f, policy, c, n, leaves, i, cpu, num, milli);
      if (inner == 0) continue;
      for (let u = first; u < trees && si(s, treeAt + u * TREE_FIELDS) == c; u++) {
        const row = treeAt + u * TREE_FIELDS;
        if (si(s, row + 2) == 0) continue;
        const at = si(s, H_F_TREE) + u * 2 * inner;
        const floor = <i64>si(s, row + 1);
        for (let t = (inner + i - 1) >> 2; play(f, at, leaves, inner, nodes, floor, t) && t > 0; t = (t - 1) >> 2);
      }
    }
    ss(s, state + 1, 0);
  }
  const row = treeAt + k * TREE_FIELDS;
  const at = si(s, H_F_TREE) + k * 2 * inner;
  const floor = <i64>si(s, row + 1);
  if (si(s, row + 2) == 0) {
    for (let t = inner - 1; t >= 0; t--) play(f, at, leaves, inner, nodes, floor, t);
    ss(s, row + 2, 1);
  }
  const gpuPod = num > 0 && milli > 0;
  const modelsAt = si(s, H_MODELS_AT);
  const stackAt = si(s, H_STACK_AT);
  const nodeAt = si(s, H_NODE_AT);
  const rankAt = leafAt + 2 * nodes;
  const stride = si(s, H_STRIDE);
  const need = <i64>mem;
  let best = -1;
  let bestScore: f64 = 0;
  let bestRank: i32 = 0;
  let sp = 0;
  ss(s, stackAt + sp++, 0);
  while (sp > 0) {
    const t = si(s, stackAt + --sp);
    readChild(f, at, leaves, inner, nodes, floor, t);
    if (childPacked < 0) continue;
    const p = <i64>childPacked;
    // Nothing below t fits the class, has the memory or one of the models.
    if ((p & 0x7fffffff) < need || (gpuPod && (si(s, modelsAt + t) & mask) == 0)) continue;
    const score = childScore;
    const rank = <i32>(p >> 31);
    // Nothing below t beats the best found so far.
    if (best >= 0 && (score < bestScore || (score == bestScore && rank > bestRank))) continue;
    const w = si(s, rankAt + rank);
    if (fitsPod(s, nodeAt + w * stride, mem, gpuPod, mask)) {
      best = w;
      bestScore = score;
      bestRank = rank;
      continue;
    }
    if (t >= inner) continue;
    // The children, the one that holds the winner searched first (pushed last).
    let holder = -1;
    for (let ch = 4 * t + 1; ch <= 4 * t + 4; ch++) {
      readChild(f, at, leaves, inner, nodes, floor, ch);
      if (holder < 0 && childPacked >= 0 && <i32>(<i64>childPacked >> 31) == rank) holder = ch;
      else ss(s, stackAt + sp++, ch);
    }
    if (holder >= 0) ss(s, stackAt + sp++, holder);
  }
  return best;
}

/** Derives every node's totals and fragmentation; empties the score cache; builds the index's aggregates. */
export function fleetInit(s: usize, f: usize): void {
  const nodes = si(s, H_NODES);
  const cAt = si(s, H_CACHE_AT);
  const classes = si(s, H_CLASSES);
  for (let k = 0; k < nodes * classes; k++) ss(s, cAt + k, STALE);
  const indexed = si(s, H_INDEX) != 0;
  if (indexed) {
    for (let k = 0; k < 2 * classes; k++) ss(s, si(s, H_CLASS_AT) + k, 0);
    for (let k = 0; k < si(s, H_TREES); k++) ss(s, si(s, H_TREE_AT) + k * TREE_FIELDS + 2, 0);
  }
  for (let n = 0; n < nodes; n++) derive(s, f, n);
  sumFragmentation(s, f);
  if (indexed) buildAggregates(s);
}

/** The chosen node for one pod, through the pod index or by the scan (src/fleet/kernels.ts fleetPick). */
export function fleetPick(s: usize, f: usize, policy: i32, cls: i32, tree: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32, u1: f64, u2: f64): i32 {
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
  } else if (si(s, H_INDEX) != 0 && tree >= 0 && tree < si(s, H_TREES) && si(s, si(s, H_TREE_AT) + tree * TREE_FIELDS) == cls) {
    pick = pickIndexed(s, f, policy, cls, tree, cpu, mem, num, milli, mask);
    if (pick < 0) return -1;
    gpu = si(s, si(s, H_CACHE_AT) + cls * nodes + pick);
  } else {
    // The scan: every node filtered, scored from the cache where its score is not stale (a fleet with an index keeps no cache for the scan).
    const classes = si(s, H_CLASSES);
    const cached = cls >= 0 && cls < classes && si(s, H_INDEX) == 0;
    const cAt = si(s, H_CACHE_AT);
    const fAt = si(s, H_F_CACHE);
    let best: f64 = 0;
    let bestRank = 0;
    for (let n = 0; n < nodes; n++) {
      const base = at + n * stride;
      if (!fits(s, base, cpu, mem, num, milli, mask)) continue;
      let score: f64;
      let g: i32;
      const slot = cls * nodes + n;
      if (cached && si(s, cAt + slot) != STALE) {
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
  derive(s, f, node);
}
