// The pure-TypeScript twin of assembly/fleet.ts: the same loop, over the layout of src/fleet/layout.ts.
import type { FleetKernels, FleetMemory } from '../fleet/kernels.js';
import * as L from '../fleet/layout.js';
import { nodeFrag } from '../fleet/frag.js';
import { randomIndex } from '../fleet/policies/random.js';
import { dotprodScore } from '../fleet/policies/dotprod.js';
import { bestfitScore } from '../fleet/policies/bestfit.js';
import { clusteringScore, podTag } from '../fleet/policies/clustering.js';
import { packingScore } from '../fleet/policies/packing.js';
import { fgdQuantize } from '../fleet/policies/fgd.js';

/** The GPU a sharing pod takes on the node last scored (-1: none / exclusive). */
let chosenGpu = -1;

/** Frag(node') where node' is node `n` with cpuLeft `cpu`, GPU `j` at `v` (j -1: none) and `drop` wholly free GPUs taken. */
function fragAfter(s: Int32Array, f: Float64Array, base: number, cpu: number, j: number, v: number, drop: number): number {
  const gpus = s[base + L.N_GPUS];
  const gAt = base + L.N_TAGS + s[L.H_MAXG] + 1;
  const sc = s[L.H_SCRATCH_AT];
  let left = drop;
  for (let i = 0; i < gpus; i++) {
    let g = s[gAt + i];
    if (i === j) g = v;
    else if (left > 0 && g === 1000) {
      g = 0;
      left--;
    }
    s[sc + i] = g;
  }
  return nodeFrag(s, sc, gpus, cpu, s[base + L.N_MODEL], s, s[L.H_TYP_AT], s[L.H_TYPICAL], f, s[L.H_F_WEIGHT]);
}

/** The score of node `n` for the pod (sets chosenGpu for a sharing pod). */
function scoreNode(s: Int32Array, f: Float64Array, policy: number, n: number, cpu: number, num: number, milli: number): number {
  const base = s[L.H_NODE_AT] + n * s[L.H_STRIDE];
  const maxG = s[L.H_MAXG];
  const gAt = base + L.N_TAGS + maxG + 1;
  const gpus = s[base + L.N_GPUS];
  const cpuLeft = s[base + L.N_CPU];
  const free = s[base + L.N_FREE];
  const sharing = num === 1 && milli > 0 && milli < 1000;
  const request = num * milli;
  chosenGpu = -1;
  if (policy === L.P_FGD || policy === L.P_OURS) {
    const before = f[n];
    if (!sharing) {
      const delta = before - fragAfter(s, f, base, cpuLeft - cpu, -1, 0, milli > 0 ? num : 0);
      const q = fgdQuantize(delta, f, s[L.H_F_THR]);
      if (policy !== L.P_OURS) return q;
      // Ours: a CPU-only pod, among nodes of equal FGD score, goes where the least GPU milli is free;
      // whole GPUs go to the node left with the least CPU per wholly free GPU (+1), unless a
      // model-constrained typical pod wants the node's model (those nodes come after, by rank).
      if (num === 0 || milli === 0) return q * 1e6 - free;
      return q * 8589934592 + (s[base + L.N_WANTED] !== 0 ? 0 : 4294967296 - (cpuLeft - cpu) / (s[base + L.N_FULL] - num + 1));
    }
    // Ours: a clean placement (a wholly free GPU, or a remainder the clean-remainder table accepts) comes first.
    const ours = policy === L.P_OURS;
    const clean = s[L.H_CLEAN_AT];
    let best = -1;
    for (let i = 0; i < gpus; i++) {
      const g = s[gAt + i];
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
      const score = fgdQuantize(delta, f, s[L.H_F_THR]) + (ours && (g === 1000 || s[clean + g - milli] !== 0) ? 1000 : 0);
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
      const g = s[gAt + i];
      if (g >= milli && g < least) {
        least = g;
        chosenGpu = i;
      }
    }
  }
  if (policy === L.P_DOTPROD) return dotprodScore(cpuLeft, free, cpu, request);
  if (policy === L.P_BESTFIT) return bestfitScore(cpuLeft, free, cpu, request);
  if (policy === L.P_CLUSTERING) return clusteringScore(free, s, base + L.N_TAGS, maxG, podTag(num, milli));
  return packingScore(s, gAt, gpus, s[base + L.N_FULL], num, milli);
}

/** Whether node base fits the CPU and GPUs of a pod class (cpu, num × milli): what every pod of the class needs alike. */
function fitsClass(s: Int32Array, base: number, cpu: number, num: number, milli: number): boolean {
  if (s[base + L.N_CPU] < cpu) return false;
  if (num === 0 || milli === 0) return true;
  if (s[base + L.N_GPUS] === 0) return false;
  if (num === 1) return s[base + L.N_MAXFREE] >= milli;
  return s[base + L.N_FULL] >= num;
}

/** Whether node base has the pod's host memory and (a GPU pod) one of its GPU models: what pods of one class differ in. */
function fitsPod(s: Int32Array, base: number, mem: number, gpuPod: boolean, mask: number): boolean {
  return s[base + L.N_MEM] >= mem && (!gpuPod || (mask & s[base + L.N_MODEL]) !== 0);
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
  const base = s[L.H_NODE_AT] + n * s[L.H_STRIDE];
  const gAt = base + L.N_TAGS + s[L.H_MAXG] + 1;
  const gpus = s[base + L.N_GPUS];
  let free = 0;
  let full = 0;
  let most = 0;
  for (let i = 0; i < gpus; i++) {
    const g = s[gAt + i];
    free += g;
    if (g === 1000) full++;
    if (g > most) most = g;
  }
  s[base + L.N_FREE] = free;
  s[base + L.N_FULL] = full;
  s[base + L.N_MAXFREE] = most;
  f[n] = nodeFrag(s, gAt, gpus, s[base + L.N_CPU], s[base + L.N_MODEL], s, s[L.H_TYP_AT], s[L.H_TYPICAL], f, s[L.H_F_WEIGHT]);
  const classes = s[L.H_CLASSES];
  const nodes = s[L.H_NODES];
  const indexed = s[L.H_INDEX] !== 0;
  for (let c = 0, g = s[L.H_CACHE_AT] + n; c < classes; c++, g += nodes) {
    if (s[g] === L.STALE) continue;
    s[g] = L.STALE;
    if (!indexed) continue;
    const state = s[L.H_CLASS_AT] + 2 * c;
    if (s[state] !== 0) s[s[L.H_STALE_AT] + c * nodes + s[state + 1]++] = n;
  }
}

/** After node n's host memory changed: its leaf's memory aggregate and the entries above it. */
function replayMemory(s: Int32Array, n: number): void {
  const nodes = s[L.H_NODES];
  const at = s[L.H_MEM_AT];
  let t = nodes + s[s[L.H_LEAF_AT] + nodes + n];
  s[at + t] = s[s[L.H_NODE_AT] + n * s[L.H_STRIDE] + L.N_MEM];
  for (t >>= 1; t >= 1; t >>= 1) s[at + t] = Math.max(s[at + 2 * t], s[at + 2 * t + 1]);
}

/** Builds the index's shared aggregates (memory left, model bits) over the leaf order. */
function buildAggregates(s: Int32Array): void {
  const nodes = s[L.H_NODES];
  const stride = s[L.H_STRIDE];
  const leafAt = s[L.H_LEAF_AT];
  const memAt = s[L.H_MEM_AT];
  const modelsAt = s[L.H_MODELS_AT];
  for (let i = 0; i < nodes; i++) {
    const n = s[leafAt + i];
    s[leafAt + nodes + n] = i;
    const base = s[L.H_NODE_AT] + n * stride;
    s[memAt + nodes + i] = s[base + L.N_MEM];
    s[modelsAt + nodes + i] = s[base + L.N_MODEL];
  }
  for (let t = nodes - 1; t >= 1; t--) {
    s[memAt + t] = Math.max(s[memAt + 2 * t], s[memAt + 2 * t + 1]);
    s[modelsAt + t] = s[modelsAt + 2 * t] | s[modelsAt + 2 * t + 1];
  }
}

/** True when node a wins over node b (-1: none) for the class whose scores start at f[scoreAt]: the higher score, then the smaller rank (the scan's rule). */
function beats(s: Int32Array, f: Float64Array, scoreAt: number, a: number, b: number): boolean {
  if (b < 0) return true;
  const sa = f[scoreAt + a];
  const sb = f[scoreAt + b];
  if (sa !== sb) return sa > sb;
  const at = s[L.H_NODE_AT] + L.N_RANK;
  const stride = s[L.H_STRIDE];
  return s[at + a * stride] < s[at + b * stride];
}

/** Replays the matches above entry t of the class tree at s[winAt] (a leaf that changed), up to the root. */
function replayAbove(s: Int32Array, f: Float64Array, winAt: number, scoreAt: number, t: number): void {
  for (t >>= 1; t >= 1; t >>= 1) {
    const a = s[winAt + 2 * t];
    const b = s[winAt + 2 * t + 1];
    s[winAt + t] = a < 0 ? b : b < 0 || beats(s, f, scoreAt, a, b) ? a : b;
  }
}

/** Scores node n for class c (the pod's cpu, num, milli) into the cache when it fits the class's CPU and GPUs; else marks it ABSENT. True when it fits. */
function scoreInto(s: Int32Array, f: Float64Array, policy: number, c: number, n: number, cpu: number, num: number, milli: number): boolean {
  const nodes = s[L.H_NODES];
  const g = s[L.H_CACHE_AT] + c * nodes + n;
  if (!fitsClass(s, s[L.H_NODE_AT] + n * s[L.H_STRIDE], cpu, num, milli)) {
    s[g] = L.ABSENT;
    return false;
  }
  f[s[L.H_F_CACHE] + c * nodes + n] = scoreNode(s, f, policy, n, cpu, num, milli);
  s[g] = chosenGpu;
  return true;
}

/**
 * The pod index's pick for a pod of class c: builds the class's tree on its first pick, else rescores
 * the class's stale nodes and replays their leaves; then descends from the root to the best node that
 * also has the pod's host memory and GPU model (-1: none).
 */
function pickIndexed(s: Int32Array, f: Float64Array, policy: number, c: number, cpu: number, mem: number, num: number, milli: number, mask: number): number {
  const nodes = s[L.H_NODES];
  const winAt = s[L.H_WIN_AT] + c * 2 * nodes;
  const scoreAt = s[L.H_F_CACHE] + c * nodes;
  const leafAt = s[L.H_LEAF_AT];
  const state = s[L.H_CLASS_AT] + 2 * c;
  if (s[state] === 0) {
    for (let i = 0; i < nodes; i++) {
      const n = s[leafAt + i];
      s[winAt + nodes + i] = scoreInto(s, f, policy, c, n, cpu, num, milli) ? n : -1;
    }
    for (let t = nodes - 1; t >= 1; t--) {
      const a = s[winAt + 2 * t];
      const b = s[winAt + 2 * t + 1];
      s[winAt + t] = a < 0 ? b : b < 0 || beats(s, f, scoreAt, a, b) ? a : b;
    }
    s[state] = 1;
    s[state + 1] = 0;
  } else {
    const listAt = s[L.H_STALE_AT] + c * nodes;
    const count = s[state + 1];
    for (let k = 0; k < count; k++) {
      const n = s[listAt + k];
      const t = nodes + s[leafAt + nodes + n];
      s[winAt + t] = scoreInto(s, f, policy, c, n, cpu, num, milli) ? n : -1;
      replayAbove(s, f, winAt, scoreAt, t);
    }
    s[state + 1] = 0;
  }
  const gpuPod = num > 0 && milli > 0;
  const memAt = s[L.H_MEM_AT];
  const modelsAt = s[L.H_MODELS_AT];
  const stackAt = s[L.H_STACK_AT];
  const nodeAt = s[L.H_NODE_AT];
  const stride = s[L.H_STRIDE];
  let best = -1;
  let sp = 0;
  s[stackAt + sp++] = 1;
  while (sp > 0) {
    const t = s[stackAt + --sp];
    const w = s[winAt + t];
    if (w < 0 || (best >= 0 && !beats(s, f, scoreAt, w, best))) continue;
    if (s[memAt + t] < mem || (gpuPod && (s[modelsAt + t] & mask) === 0)) continue;
    if (fitsPod(s, nodeAt + w * stride, mem, gpuPod, mask)) {
      best = w;
      continue;
    }
    if (t >= nodes) continue;
    // The child that holds the winner is searched first (pushed last).
    if (s[winAt + 2 * t] === w) {
      s[stackAt + sp++] = 2 * t + 1;
      s[stackAt + sp++] = 2 * t;
    } else {
      s[stackAt + sp++] = 2 * t;
      s[stackAt + sp++] = 2 * t + 1;
    }
  }
  return best;
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
      const nodes = s[L.H_NODES];
      s.fill(L.STALE, s[L.H_CACHE_AT], s[L.H_CACHE_AT] + nodes * s[L.H_CLASSES]);
      if (s[L.H_INDEX] !== 0) s.fill(0, s[L.H_CLASS_AT], s[L.H_CLASS_AT] + 2 * s[L.H_CLASSES]);
      for (let n = 0; n < nodes; n++) derive(s, f, n);
      if (s[L.H_INDEX] !== 0) buildAggregates(s);
    },
    fleetPick(memory, policy, cls, cpu, mem, num, milli, mask, u1, u2) {
      const s = memory.ints();
      const f = memory.floats();
      const nodes = s[L.H_NODES];
      const stride = s[L.H_STRIDE];
      const at = s[L.H_NODE_AT];
      const out = s[L.H_OUT_AT];
      const sharing = num === 1 && milli > 0 && milli < 1000;
      s[out] = 0;
      let pick = -1;
      let gpu = -1;
      if (policy === L.P_RANDOM) {
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
          const gAt = base + L.N_TAGS + s[L.H_MAXG] + 1;
          const gpus = s[base + L.N_GPUS];
          let room = 0;
          for (let i = 0; i < gpus; i++) if (s[gAt + i] >= milli) room++;
          let r = randomIndex(u2, room);
          for (let i = 0; i < gpus; i++) {
            if (s[gAt + i] < milli) continue;
            if (r === 0) {
              gpu = i;
              break;
            }
            r--;
          }
        }
      } else if (s[L.H_INDEX] !== 0 && cls >= 0 && cls < s[L.H_CLASSES]) {
        pick = pickIndexed(s, f, policy, cls, cpu, mem, num, milli, mask);
        if (pick < 0) return -1;
        gpu = s[s[L.H_CACHE_AT] + cls * nodes + pick];
      } else {
        // The scan: every node filtered, scored from the cache where its score is not stale.
        const classes = s[L.H_CLASSES];
        const cached = cls >= 0 && cls < classes;
        const cAt = s[L.H_CACHE_AT];
        const fAt = s[L.H_F_CACHE];
        let best = 0;
        let bestRank = 0;
        for (let n = 0; n < nodes; n++) {
          const base = at + n * stride;
          if (!fits(s, base, cpu, mem, num, milli, mask)) continue;
          let score: number;
          let g: number;
          const slot = cls * nodes + n;
          if (cached && s[cAt + slot] !== L.STALE) {
            score = f[fAt + slot];
            g = s[cAt + slot];
          } else {
            score = scoreNode(s, f, policy, n, cpu, num, milli);
            g = chosenGpu;
            if (cached) {
              f[fAt + slot] = score;
              s[cAt + slot] = g;
            }
          }
          const rank = s[base + L.N_RANK];
          if (pick < 0 || score > best || (score === best && rank < bestRank)) {
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
          s[out] = 1;
          s[out + 1] = gpu;
        } else {
          // Exclusive: the lowest-index wholly free GPUs.
          const base = at + pick * stride;
          const gAt = base + L.N_TAGS + s[L.H_MAXG] + 1;
          const gpus = s[base + L.N_GPUS];
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
      if (!(node >= 0 && node < s[L.H_NODES])) throw new RangeError(`fleetRefresh: node ${node} is not in the fleet`);
      derive(s, memory.floats(), node);
      if (s[L.H_INDEX] !== 0) replayMemory(s, node);
    },
  };
}
