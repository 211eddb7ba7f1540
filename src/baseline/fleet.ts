// The pure-TypeScript twin of assembly/fleet.ts (and fleet-score.ts, fleet-index.ts): the same pick,
// through the pod index or the scan, over the layout of src/fleet/layout.ts.
// Every read of the two memories is in range by construction (hence the `!`): the header's offsets
// and sizes place each region inside them (fleetMemory sizes both from the same layout).

import { nodeFrag } from '../fleet/frag.js';
import type { FleetKernels, FleetMemory } from '../fleet/kernels.js';
import * as L from '../fleet/layout.js';
import { bestfitScore } from '../fleet/policies/bestfit.js';
import { clusteringScore, podTag } from '../fleet/policies/clustering.js';
import { dotprodScore } from '../fleet/policies/dotprod.js';
import { fgdQuantize } from '../fleet/policies/fgd.js';
import { heldNode, nodeValue } from '../fleet/policies/fgd-node.js';
import { packingScore } from '../fleet/policies/packing.js';
import { randomIndex } from '../fleet/policies/random.js';
import * as R from '../fleet/policies/registry.js';
import { AllocationError } from '../shared/errors.js';
import { lookChoose, lookFirst, lookHas, lookOffer, lookStart, lookWants, rolloutGpu } from './fleet-rollout.js';

/** fgd-lp: a share is on plan where its placement loses less than this of the GPU's plan value (see policies/share-values.ts). */
const PLAN_TOLERANCE = 1e-9;

/** The GPU a sharing pod takes on the node last scored (-1: none / exclusive). */
let chosenGpu = -1;

/** Frag(node') where node' is node `n` with cpuLeft `cpu`, GPU `j` at `v` (j -1: none) and `drop` wholly free GPUs taken. */
function fragAfter(s: Int32Array, f: Float64Array, base: number, cpu: number, j: number, v: number, drop: number): number {
  const gpus = s[base + L.N_GPUS]!;
  const gAt = base + L.N_TAGS + s[L.H_MAXG]! + 1;
  const sc = s[L.H_SCRATCH_AT]!;
  let left = drop;
  for (let i = 0; i < gpus; i++) {
    let g = s[gAt + i]!;
    if (i === j) g = v;
    else if (left > 0 && g === 1000) {
      g = 0;
      left--;
    }
    s[sc + i] = g;
  }
  return nodeFrag(s, sc, gpus, cpu, s[base + L.N_MODEL]!, s, s[L.H_TYP_AT]!, s[L.H_TYPICAL]!, f, s[L.H_F_WEIGHT]!);
}

/** A policy number the kernels have no score for: an error, never a silent packing score. */
function unknownPolicy(policy: number): AllocationError {
  return new AllocationError('INTERNAL', `the fleet kernels have no score for policy number ${policy} (registered: 0..${R.POLICY_COUNT - 1})`);
}

/** The score of node `n` for the pod (sets chosenGpu for a sharing pod); `mem` (MiB) only fgd-node reads. */
function scoreNode(s: Int32Array, f: Float64Array, policy: number, n: number, cpu: number, mem: number, num: number, milli: number): number {
  const base = s[L.H_NODE_AT]! + n * s[L.H_STRIDE]!;
  const maxG = s[L.H_MAXG]!;
  const gAt = base + L.N_TAGS + maxG + 1;
  const gpus = s[base + L.N_GPUS]!;
  const cpuLeft = s[base + L.N_CPU]!;
  const free = s[base + L.N_FREE]!;
  const sharing = num === 1 && milli > 0 && milli < 1000;
  const request = num * milli;
  chosenGpu = -1;
  if (policy === R.P_NODE) return nodeScore(s, f, n, base, cpu, mem, num, milli);
  if (policy === R.P_FGD || policy === R.P_OURS || policy === R.P_LP) {
    const before = f[n]!;
    if (!sharing) {
      const delta = before - fragAfter(s, f, base, cpuLeft - cpu, -1, 0, milli > 0 ? num : 0);
      const q = fgdQuantize(delta, f, s[L.H_F_THR]!);
      if (policy === R.P_FGD) return q;
      // Ours: a CPU-only pod, among nodes of equal FGD score, goes where the least GPU milli is free;
      // whole GPUs go to the node left with the least CPU per wholly free GPU (+1), unless a
      // model-constrained typical pod wants the node's model (those nodes come after, by rank).
      if (num === 0 || milli === 0) return q * 1e6 - free;
      return q * 8589934592 + (s[base + L.N_WANTED] !== 0 ? 0 : 4294967296 - (cpuLeft - cpu) / (s[base + L.N_FULL]! - num + 1));
    }
    // Ours: a clean placement (a wholly free GPU, or a remainder the clean-remainder table accepts) comes first;
    // fgd-lp: a placement on plan (the GPU's best completion at the share prices still includes the share) comes first.
    const ours = policy === R.P_OURS;
    const lp = policy === R.P_LP;
    const clean = s[L.H_CLEAN_AT]!;
    const plan = s[L.H_F_PLAN]!;
    let best = -1;
    for (let i = 0; i < gpus; i++) {
      const g = s[gAt + i]!;
      if (g < milli) continue;
      let seen = false;
      for (let k = 0; k < i; k++) {
        if (s[gAt + k] === g) {
          seen = true;
          break;
        }
      }
      if (seen) continue;
      const delta = before - fragAfter(s, f, base, cpuLeft - cpu, i, g - milli, 0);
      let first = ours && (g === 1000 || s[clean + g - milli] !== 0);
      if (lp) first = f[plan + g]! - f[plan + L.PLAN_SIZE + milli]! - f[plan + g - milli]! < PLAN_TOLERANCE;
      const score = fgdQuantize(delta, f, s[L.H_F_THR]!) + (first ? 1000 : 0);
      if (score > best) {
        best = score;
        chosenGpu = i;
      }
    }
    return best;
  }
  if (sharing) {
    // 'best': the least free milli that fits, the lowest index on a tie.
    let least = 1001;
    for (let i = 0; i < gpus; i++) {
      const g = s[gAt + i]!;
      if (g >= milli && g < least) {
        least = g;
        chosenGpu = i;
      }
    }
  }
  if (policy === R.P_DOTPROD) return dotprodScore(cpuLeft, free, cpu, request);
  if (policy === R.P_BESTFIT) return bestfitScore(cpuLeft, free, cpu, request);
  if (policy === R.P_CLUSTERING) return clusteringScore(free, s, base + L.N_TAGS, maxG, podTag(num, milli));
  // A policy number without a score here is an error, never a silent packing score.
  if (policy !== R.P_PACKING) throw unknownPolicy(policy);
  return packingScore(s, gAt, gpus, s[base + L.N_FULL]!, num, milli);
}

/** fgd-node's score of node n (record at `base`) for the pod (policies/fgd-node.ts): the loss of its value first, then FGD's score, then fgd-close's tie rules; a node the reserve holds last. */
function nodeScore(s: Int32Array, f: Float64Array, n: number, base: number, cpu: number, mem: number, num: number, milli: number): number {
  const gAt = base + L.N_TAGS + s[L.H_MAXG]! + 1;
  const gpus = s[base + L.N_GPUS]!;
  const cpuLeft = s[base + L.N_CPU]! - cpu;
  const memLeft = s[base + L.N_MEM]! - mem;
  const value = s[L.H_LAMBDAS] === 0 ? 0 : f[s[L.H_F_VALUE]! + n]!;
  const held = heldNode(s, base);
  const thr = s[L.H_F_THR]!;
  const before = f[n]!;
  if (!(num === 1 && milli > 0 && milli < 1000)) {
    const whole = milli > 0 ? num : 0;
    const q = fgdQuantize(before - fragAfter(s, f, base, cpuLeft, -1, 0, whole), f, thr);
    const loss = value - nodeValue(s, f, base, cpuLeft, memLeft, -1, 0, whole);
    if (whole === 0) return (held ? -1e15 : 0) + -Math.round(loss) * 1e9 + q * 1e6 - s[base + L.N_FREE]!;
    const tie = s[base + L.N_WANTED] !== 0 ? 0 : 4294967296 - cpuLeft / (s[base + L.N_FULL]! - num + 1);
    return (num < 4 && held ? -1e18 : 0) + -Math.round(loss) * 1e12 + q * 8589934592 + tie;
  }
  let best = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < gpus; i++) {
    const g = s[gAt + i]!;
    if (g < milli) continue;
    let seen = false;
    for (let k = 0; k < i && !seen; k++) seen = s[gAt + k] === g;
    if (seen) continue;
    const q = fgdQuantize(before - fragAfter(s, f, base, cpuLeft, i, g - milli, 0), f, thr);
    const loss = value - nodeValue(s, f, base, cpuLeft, memLeft, i, milli, 0);
    const score = (held ? -1e15 : 0) + -Math.round(loss) * 1000 + q;
    if (score > best) {
      best = score;
      chosenGpu = i;
    }
  }
  return best;
}

/** Whether node base fits the CPU and GPUs of a pod class (cpu, num × milli): what every pod of the class needs alike. */
function fitsClass(s: Int32Array, base: number, cpu: number, num: number, milli: number): boolean {
  if (s[base + L.N_CPU]! < cpu) return false;
  if (num === 0 || milli === 0) return true;
  if (s[base + L.N_GPUS] === 0) return false;
  if (num === 1) return s[base + L.N_MAXFREE]! >= milli;
  return s[base + L.N_FULL]! >= num;
}

/** Whether node base has the pod's host memory and (a GPU pod) one of its GPU models: what pods of one class differ in. */
function fitsPod(s: Int32Array, base: number, mem: number, gpuPod: boolean, mask: number): boolean {
  return s[base + L.N_MEM]! >= mem && (!gpuPod || (mask & s[base + L.N_MODEL]!) !== 0);
}

/** Whether node base fits the pod. */
function fits(s: Int32Array, base: number, cpu: number, mem: number, num: number, milli: number, mask: number): boolean {
  return fitsClass(s, base, cpu, num, milli) && fitsPod(s, base, mem, num > 0 && milli > 0, mask);
}

/**
 * Recomputes node n's totals and fragmentation from its GPUs and marks its scores stale: in every
 * class, and on the stale list of every class whose tree is built (a node already stale is listed).
 */
function derive(s: Int32Array, f: Float64Array, n: number): void {
  const base = s[L.H_NODE_AT]! + n * s[L.H_STRIDE]!;
  const gAt = base + L.N_TAGS + s[L.H_MAXG]! + 1;
  const gpus = s[base + L.N_GPUS]!;
  let free = 0;
  let full = 0;
  let most = 0;
  for (let i = 0; i < gpus; i++) {
    const g = s[gAt + i]!;
    free += g;
    if (g === 1000) full++;
    if (g > most) most = g;
  }
  const idle8 = s[L.H_IDLE8]!;
  const now8 = idle8 + (gpus === 8 && full === 8 ? 1 : 0) - (gpus === 8 && s[base + L.N_FULL] === 8 ? 1 : 0);
  s[base + L.N_FREE] = free;
  s[base + L.N_FULL] = full;
  s[base + L.N_MAXFREE] = most;
  s[L.H_IDLE8] = now8;
  const frag = nodeFrag(s, gAt, gpus, s[base + L.N_CPU]!, s[base + L.N_MODEL]!, s, s[L.H_TYP_AT]!, s[L.H_TYPICAL]!, f, s[L.H_F_WEIGHT]!);
  f[s[L.H_F_FRAG]!]! += frag - f[n]!;
  f[n] = frag;
  if (++s[L.H_FRAG_SINCE]! >= s[L.H_NODES]!) sumFragmentation(s, f);
  if (s[L.H_LAMBDAS] !== 0) f[s[L.H_F_VALUE]! + n] = nodeValue(s, f, base, s[base + L.N_CPU]!, s[base + L.N_MEM]!, -1, 0, 0);
  markStale(s, n);
  // fgd-node's reserve turned on or off: every node it holds (4 GPUs or more, all wholly free) scores anew.
  const reserve = s[L.H_RESERVE]!;
  if (reserve >= 0 && idle8 <= reserve !== now8 <= reserve) {
    const stride = s[L.H_STRIDE]!;
    for (let k = 0, b = s[L.H_NODE_AT]!; k < s[L.H_NODES]!; k++, b += stride) if (s[b + L.N_GPUS]! >= 4 && s[b + L.N_FULL] === s[b + L.N_GPUS]) markStale(s, k);
  }
}

/** Marks node n's scores stale in every class, and lists it in every class whose tree is built (once: a node already stale is listed). */
function markStale(s: Int32Array, n: number): void {
  const classes = s[L.H_CLASSES]!;
  const nodes = s[L.H_NODES]!;
  const indexed = s[L.H_INDEX] !== 0;
  for (let c = 0, g = s[L.H_CACHE_AT]! + n; c < classes; c++, g += nodes) {
    if (s[g] === L.STALE) continue;
    s[g] = L.STALE;
    if (!indexed) continue;
    const state = s[L.H_CLASS_AT]! + 2 * c;
    if (s[state] !== 0) s[s[L.H_STALE_AT]! + c * nodes + s[state + 1]!++] = n;
  }
}

/** Sums every node's fragmentation afresh, in node order. */
function sumFragmentation(s: Int32Array, f: Float64Array): void {
  let sum = 0;
  for (let k = 0; k < s[L.H_NODES]!; k++) sum += f[k]!;
  f[s[L.H_F_FRAG]!] = sum;
  s[L.H_FRAG_SINCE] = 0;
}

/** Builds the index's static parts: each node's leaf, the node of each rank, the model bits below each position. */
function buildAggregates(s: Int32Array): void {
  const nodes = s[L.H_NODES]!;
  const inner = s[L.H_INNER]!;
  const stride = s[L.H_STRIDE]!;
  const leafAt = s[L.H_LEAF_AT]!;
  const modelsAt = s[L.H_MODELS_AT]!;
  for (let i = 0; i < 3 * inner + 1; i++) {
    if (i >= nodes) {
      s[modelsAt + inner + i] = 0;
      continue;
    }
    const n = s[leafAt + i]!;
    const base = s[L.H_NODE_AT]! + n * stride;
    s[leafAt + nodes + n] = i;
    s[leafAt + 2 * nodes + s[base + L.N_RANK]!] = n;
    s[modelsAt + inner + i] = s[base + L.N_MODEL]!;
  }
  for (let t = inner - 1; t >= 0; t--) {
    const c = modelsAt + 4 * t;
    s[modelsAt + t] = s[c + 1]! | s[c + 2]! | s[c + 3]! | s[c + 4]!;
  }
}

/** The child read last by readChild: its score and packed value (-1: no node). */
let childScore = 0;
let childPacked = -1;

/** Reads position c of a tree (inner entries at f[at + 2c], leaves from position `inner` at f[leaves + 2i]; a leaf past the nodes, or under the floor, reads as no node). */
function readChild(f: Float64Array, at: number, leaves: number, inner: number, nodes: number, floor: number, c: number): void {
  if (c < inner) {
    childScore = f[at + 2 * c]!;
    childPacked = f[at + 2 * c + 1]!;
    return;
  }
  const i = c - inner;
  if (i >= nodes) {
    childScore = 0;
    childPacked = -1;
    return;
  }
  const q = leaves + 2 * i;
  childScore = f[q]!;
  const p = f[q + 1]!;
  childPacked = p >= 0 && p % L.RANK_UNIT < floor ? -1 : p;
}

/**
 * Plays the match at inner entry t of a tree (entries at f[at + 2t]: score, packed; its class's
 * leaves at f[leaves + 2i]; leaves under the memory floor `floor` count as empty): the best of its
 * four children's winners (the higher score, then the smaller rank), with the most of their memories:
 * at least the most memory left below t (it may be more, after a node below lost memory). False when
 * the entry stands.
 */
function play(f: Float64Array, at: number, leaves: number, inner: number, nodes: number, floor: number, t: number): boolean {
  let score = 0;
  let packed = -1;
  let memory = -1;
  for (let c = 4 * t + 1; c <= 4 * t + 4; c++) {
    readChild(f, at, leaves, inner, nodes, floor, c);
    const p = childPacked;
    if (p < 0) continue;
    const m = p % L.RANK_UNIT;
    if (m > memory) memory = m;
    if (packed < 0 || childScore > score || (childScore === score && p < packed)) {
      score = childScore;
      packed = p;
    }
  }
  if (packed >= 0) packed = packed - (packed % L.RANK_UNIT) + memory;
  const e = at + 2 * t;
  // The same winner: the entry stands, and so does a larger memory it holds (a bound on the memory
  // below is all the descent needs), so a node that only lost memory stops its replay here.
  const old = f[e + 1]!;
  if (f[e] === score && (old === packed || (old >= 0 && packed >= 0 && old - (old % L.RANK_UNIT) === packed - (packed % L.RANK_UNIT) && packed <= old))) return false;
  f[e] = score;
  f[e + 1] = packed;
  return true;
}

/**
 * Scores node n for class c (the pod's cpu, num, milli) into its leaf i (f[leaves + 2i]) and its GPU
 * choice when it fits the class's CPU and GPUs; else marks it ABSENT and empties the leaf.
 */
function scoreLeaf(s: Int32Array, f: Float64Array, policy: number, c: number, n: number, leaves: number, i: number, cpu: number, mem: number, num: number, milli: number): void {
  const g = s[L.H_CACHE_AT]! + c * s[L.H_NODES]! + n;
  const base = s[L.H_NODE_AT]! + n * s[L.H_STRIDE]!;
  const q = leaves + 2 * i;
  if (!fitsClass(s, base, cpu, num, milli)) {
    s[g] = L.ABSENT;
    f[q] = 0;
    f[q + 1] = -1;
    return;
  }
  f[q] = scoreNode(s, f, policy, n, cpu, mem, num, milli);
  f[q + 1] = s[base + L.N_RANK]! * L.RANK_UNIT + s[base + L.N_MEM]!;
  s[g] = chosenGpu;
}

/**
 * The pod index's pick for a pod of class c through tree k: scores every node of the class on its
 * first pick, else rescores the class's stale nodes and replays them in each of the class's built
 * trees; builds tree k on its first pick; then descends from its root to the best node that also has
 * the pod's host memory and GPU model (-1: none).
 */
function pickIndexed(s: Int32Array, f: Float64Array, policy: number, c: number, k: number, cpu: number, mem: number, num: number, milli: number, mask: number, look: boolean): number {
  const nodes = s[L.H_NODES]!;
  const inner = s[L.H_INNER]!;
  const leaves = s[L.H_F_CACHE]! + c * 2 * nodes;
  const leafAt = s[L.H_LEAF_AT]!;
  const state = s[L.H_CLASS_AT]! + 2 * c;
  const treeAt = s[L.H_TREE_AT]!;
  if (s[state] === 0) {
    for (let i = 0; i < nodes; i++) scoreLeaf(s, f, policy, c, s[leafAt + i]!, leaves, i, cpu, mem, num, milli);
    s[state] = 1;
  } else if (s[state + 1]! > 0) {
    const listAt = s[L.H_STALE_AT]! + c * nodes;
    const count = s[state + 1]!;
    // The class's trees are in a row in the tree table, around tree k.
    let first = k;
    while (first > 0 && s[treeAt + (first - 1) * L.TREE_FIELDS] === c) first--;
    const trees = s[L.H_TREES]!;
    for (let j = 0; j < count; j++) {
      const n = s[listAt + j]!;
      const i = s[leafAt + nodes + n]!;
      scoreLeaf(s, f, policy, c, n, leaves, i, cpu, mem, num, milli);
      if (inner === 0) continue;
      for (let u = first; u < trees && s[treeAt + u * L.TREE_FIELDS] === c; u++) {
        const row = treeAt + u * L.TREE_FIELDS;
        if (s[row + 2] === 0) continue;
        const at = s[L.H_F_TREE]! + u * 2 * inner;
        // Up to the first entry the change leaves standing (nothing else below the entries above it changed).
        for (let t = (inner + i - 1) >> 2; play(f, at, leaves, inner, nodes, s[row + 1]!, t) && t > 0; t = (t - 1) >> 2);
      }
    }
    s[state + 1] = 0;
  }
  const row = treeAt + k * L.TREE_FIELDS;
  const at = s[L.H_F_TREE]! + k * 2 * inner;
  const floor = s[row + 1]!;
  if (s[row + 2] === 0) {
    for (let t = inner - 1; t >= 0; t--) play(f, at, leaves, inner, nodes, floor, t);
    s[row + 2] = 1;
  }
  const gpuPod = num > 0 && milli > 0;
  const modelsAt = s[L.H_MODELS_AT]!;
  const stackAt = s[L.H_STACK_AT]!;
  const nodeAt = s[L.H_NODE_AT]!;
  const rankAt = leafAt + 2 * nodes;
  const stride = s[L.H_STRIDE]!;
  let best = -1;
  let bestScore = 0;
  let bestRank = 0;
  let sp = 0;
  s[stackAt + sp++] = 0;
  while (sp > 0) {
    const t = s[stackAt + --sp]!;
    readChild(f, at, leaves, inner, nodes, floor, t);
    const packed = childPacked;
    // Nothing below t fits the class, has the memory (the tree's floor, then the pod's) or one of the models.
    if (packed < 0) continue;
    const left = packed % L.RANK_UNIT;
    if (left < mem || (gpuPod && (s[modelsAt + t]! & mask) === 0)) continue;
    const score = childScore;
    const rank = (packed - left) / L.RANK_UNIT;
    // Nothing below t beats the best found so far (a lookahead: the n-th best, or comes within δ of the best).
    if (look ? !lookWants(s, f, score, rank) : best >= 0 && (score < bestScore || (score === bestScore && rank > bestRank))) continue;
    const w = s[rankAt + rank]!;
    if (fitsPod(s, nodeAt + w * stride, mem, gpuPod, mask)) {
      // A lookahead keeps the best n, so the descent goes on below a winner for the runners-up.
      if (look) {
        if (!lookHas(s, w)) lookOffer(s, f, w, score, rank, s[s[L.H_CACHE_AT]! + c * nodes + w]!);
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
      if (holder < 0 && childPacked >= 0 && childPacked - (childPacked % L.RANK_UNIT) === packed - left) holder = ch;
      else s[stackAt + sp++] = ch;
    }
    if (holder >= 0) s[stackAt + sp++] = holder;
  }
  return look ? lookFirst(s) : best;
}

/** The TypeScript fleet kernels. */
export function fleetTsKernels(): FleetKernels {
  return {
    fleetAlloc(ints, floats): FleetMemory {
      let s: Int32Array | null = new Int32Array(ints);
      let f: Float64Array | null = new Float64Array(floats);
      const gone = (): never => {
        throw new Error('fleet memory used after free()');
      };
      return {
        ints: () => s ?? gone(),
        floats: () => f ?? gone(),
        free: () => {
          s = null;
          f = null;
        },
      };
    },
    fleetInit(memory) {
      const s = memory.ints();
      const f = memory.floats();
      const nodes = s[L.H_NODES]!;
      s.fill(L.STALE, s[L.H_CACHE_AT]!, s[L.H_CACHE_AT]! + nodes * s[L.H_CLASSES]!);
      if (s[L.H_INDEX] !== 0) {
        s.fill(0, s[L.H_CLASS_AT]!, s[L.H_CLASS_AT]! + 2 * s[L.H_CLASSES]!);
        for (let k = 0; k < s[L.H_TREES]!; k++) s[s[L.H_TREE_AT]! + k * L.TREE_FIELDS + 2] = 0;
      }
      for (let n = 0; n < nodes; n++) derive(s, f, n);
      sumFragmentation(s, f);
      if (s[L.H_INDEX] !== 0) buildAggregates(s);
    },
    fleetPick(memory, policy, cls, tree, cpu, mem, num, milli, mask, u1, u2) {
      if (!(policy >= 0 && policy < R.POLICY_COUNT)) throw unknownPolicy(policy);
      const s = memory.ints();
      const f = memory.floats();
      const nodes = s[L.H_NODES]!;
      const stride = s[L.H_STRIDE]!;
      const at = s[L.H_NODE_AT]!;
      const out = s[L.H_OUT_AT]!;
      const sharing = num === 1 && milli > 0 && milli < 1000;
      s[out] = 0;
      let pick = -1;
      let gpu = -1;
      if (policy === R.P_RANDOM) {
        let count = 0;
        for (let n = 0; n < nodes; n++) if (fits(s, at + n * stride, cpu, mem, num, milli, mask)) count++;
        if (count === 0) return -1;
        let k = randomIndex(u1, count);
        for (let n = 0; n < nodes; n++) {
          if (!fits(s, at + n * stride, cpu, mem, num, milli, mask)) continue;
          if (k === 0) {
            pick = n;
            break;
          }
          k--;
        }
        if (sharing) {
          const base = at + pick * stride;
          const gAt = base + L.N_TAGS + s[L.H_MAXG]! + 1;
          const gpus = s[base + L.N_GPUS]!;
          let room = 0;
          for (let i = 0; i < gpus; i++) if (s[gAt + i]! >= milli) room++;
          let r = randomIndex(u2, room);
          for (let i = 0; i < gpus; i++) {
            if (s[gAt + i]! < milli) continue;
            if (r === 0) {
              gpu = i;
              break;
            }
            r--;
          }
        }
      } else if (s[L.H_INDEX] !== 0 && tree >= 0 && tree < s[L.H_TREES]! && s[s[L.H_TREE_AT]! + tree * L.TREE_FIELDS] === cls) {
        const look = lookStart(s, num, milli);
        pick = pickIndexed(s, f, policy, cls, tree, cpu, mem, num, milli, mask, look);
        if (pick < 0) return -1;
        gpu = s[s[L.H_CACHE_AT]! + cls * nodes + pick]!;
        const chosen = look ? lookChoose(s, f, cpu, mem, num, milli) : -1;
        if (chosen >= 0) {
          pick = chosen;
          gpu = rolloutGpu;
        }
      } else {
        // The scan: every node filtered, scored from the cache where its score is not stale (a fleet with an index keeps no cache for the scan).
        const classes = s[L.H_CLASSES]!;
        const cached = cls >= 0 && cls < classes && s[L.H_INDEX] === 0;
        const cAt = s[L.H_CACHE_AT]!;
        const fAt = s[L.H_F_CACHE]!;
        let best = 0;
        let bestRank = 0;
        const look = lookStart(s, num, milli);
        for (let n = 0; n < nodes; n++) {
          const base = at + n * stride;
          if (!fits(s, base, cpu, mem, num, milli, mask)) continue;
          let score: number;
          let g: number;
          const slot = cls * nodes + n;
          if (cached && s[cAt + slot] !== L.STALE) {
            score = f[fAt + slot]!;
            g = s[cAt + slot]!;
          } else {
            score = scoreNode(s, f, policy, n, cpu, mem, num, milli);
            g = chosenGpu;
            if (cached) {
              f[fAt + slot] = score;
              s[cAt + slot] = g;
            }
          }
          const rank = s[base + L.N_RANK]!;
          if (look) lookOffer(s, f, n, score, rank, g);
          if (pick < 0 || score > best || (score === best && rank < bestRank)) {
            pick = n;
            best = score;
            bestRank = rank;
            gpu = g;
          }
        }
        if (pick < 0) return -1;
        // A policy with a lookahead: among close candidates, the one the pod damages least (src/baseline/fleet-rollout.ts).
        const chosen = look ? lookChoose(s, f, cpu, mem, num, milli) : -1;
        if (chosen >= 0) {
          pick = chosen;
          gpu = rolloutGpu;
        }
      }
      if (num > 0 && milli > 0) {
        if (sharing) {
          s[out] = 1;
          s[out + 1] = gpu;
        } else {
          // Exclusive: the lowest-index wholly free GPUs.
          const base = at + pick * stride;
          const gAt = base + L.N_TAGS + s[L.H_MAXG]! + 1;
          const gpus = s[base + L.N_GPUS]!;
          let taken = 0;
          for (let i = 0; i < gpus && taken < num; i++) {
            if (s[gAt + i] === 1000) {
              taken++;
              s[out + taken] = i;
            }
          }
          s[out] = taken;
        }
      }
      return pick;
    },
    fleetRefresh(memory, node) {
      const s = memory.ints();
      if (!(node >= 0 && node < s[L.H_NODES]!)) throw new RangeError(`fleetRefresh: node ${node} is not in the fleet`);
      derive(s, memory.floats(), node);
    },
  };
}
