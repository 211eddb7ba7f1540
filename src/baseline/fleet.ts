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

/** Whether node base fits the pod. */
function fits(s: Int32Array, base: number, cpu: number, mem: number, num: number, milli: number, mask: number): boolean {
  if (s[base + L.N_CPU] < cpu || s[base + L.N_MEM] < mem) return false;
  if (num === 0 || milli === 0) return true;
  if (s[base + L.N_GPUS] === 0) return false;
  if ((mask & s[base + L.N_MODEL]) === 0) return false;
  if (num === 1) return s[base + L.N_MAXFREE] >= milli;
  return s[base + L.N_FULL] >= num;
}

/** Recomputes node n's totals and fragmentation from its GPUs. */
function refresh(s: Int32Array, f: Float64Array, n: number): void {
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
  const c = s[L.H_CACHE_AT] + n * classes;
  for (let k = 0; k < classes; k++) s[c + k] = -2;
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
      for (let n = 0; n < nodes; n++) refresh(s, f, n);
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
      } else {
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
          const slot = n * classes + cls;
          if (cached && s[cAt + slot] !== -2) {
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
      refresh(s, memory.floats(), node);
    },
  };
}
