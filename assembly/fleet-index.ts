// The pod index of the fleet kernels (src/fleet/layout.ts describes it; src/baseline/fleet.ts is the
// TypeScript twin): per score class the leaves, per class and memory floor a 4-ary tournament tree.
import { H_NODES, H_STRIDE, H_NODE_AT, H_CACHE_AT, H_F_CACHE, H_TREES, H_TREE_AT, H_F_TREE, H_STALE_AT, H_CLASS_AT, H_LEAF_AT, H_MODELS_AT, H_STACK_AT, H_INNER, TREE_FIELDS, RANK_UNIT, ABSENT, N_MEM, N_MODEL, N_RANK, si, ss, fi, fs } from './fleet-layout';
import { chosenGpu, scoreNode, fitsClass, fitsPod } from './fleet-score';
import { lookFirst, lookHas, lookOffer, lookWants } from './fleet-rollout';

/** Builds the index's static parts: each node's leaf, the node of each rank, the model bits below each position. */
export function buildAggregates(s: usize): void {
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
function scoreLeaf(s: usize, f: usize, policy: i32, c: i32, n: i32, leaves: i32, i: i32, cpu: i32, mem: i32, num: i32, milli: i32): void {
  const g = si(s, H_CACHE_AT) + c * si(s, H_NODES) + n;
  const base = si(s, H_NODE_AT) + n * si(s, H_STRIDE);
  const q = leaves + 2 * i;
  if (!fitsClass(s, base, cpu, num, milli)) {
    ss(s, g, ABSENT);
    fs(f, q, 0);
    fs(f, q + 1, -1);
    return;
  }
  fs(f, q, scoreNode(s, f, policy, n, cpu, mem, num, milli));
  fs(f, q + 1, <f64>si(s, base + N_RANK) * RANK_UNIT + <f64>si(s, base + N_MEM));
  ss(s, g, chosenGpu);
}

/** The pod index's pick for a pod of class c through tree k (src/baseline/fleet.ts pickIndexed). */
export function pickIndexed(s: usize, f: usize, policy: i32, c: i32, k: i32, cpu: i32, mem: i32, num: i32, milli: i32, mask: i32, look: bool): i32 {
  const nodes = si(s, H_NODES);
  const inner = si(s, H_INNER);
  const leaves = si(s, H_F_CACHE) + c * 2 * nodes;
  const leafAt = si(s, H_LEAF_AT);
  const state = si(s, H_CLASS_AT) + 2 * c;
  const treeAt = si(s, H_TREE_AT);
  if (si(s, state) == 0) {
    for (let i = 0; i < nodes; i++) scoreLeaf(s, f, policy, c, si(s, leafAt + i), leaves, i, cpu, mem, num, milli);
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
      scoreLeaf(s, f, policy, c, n, leaves, i, cpu, mem, num, milli);
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
    // Nothing below t beats the best found so far (a lookahead: the n-th best, or comes within δ of the best).
    if (look ? !lookWants(s, f, score, rank) : best >= 0 && (score < bestScore || (score == bestScore && rank > bestRank))) continue;
    const w = si(s, rankAt + rank);
    if (fitsPod(s, nodeAt + w * stride, mem, gpuPod, mask)) {
      // A lookahead keeps the best n, so the descent goes on below a winner for the runners-up.
      if (look) {
        if (!lookHas(s, w)) lookOffer(s, f, w, score, rank, si(s, si(s, H_CACHE_AT) + c * nodes + w));
      } else {
        best = w;
        bestScore = score;
        bestRank = rank;
        continue;
      }
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
  return look ? lookFirst(s) : best;
}
