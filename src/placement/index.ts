// planPlacement: every viable way to place a model on a node's GPUs by memory, with per-GPU
// validation, stale-slot eviction and one documented ranking key (the Helix "planning" method).
// The placement room's front: other rooms import from here (or the shared types from types.ts);
//   types.ts     Slot, PlacementOption, NodeGpu, PlacementPlan, Rejection, the kernels' search types
//   validate.ts  the plan request, a node's GPUs and topology, slots
//   prepared.ts  PreparedNode (Engine.prepare) and the node of a request
//   search.ts    shares, ranking, options from kernel results, rejections, reasons
import { LIMITS } from '../shared/limits.js';
import { fail, hasUnknownKey, rejectUnknownKeys, requireObject } from '../shared/validate.js';
import { type PreparedNode, requestNode } from './prepared.js';
import { compareEvictionOrder, isEvictable, noOptionReason, optionOf, rejectionsFor, runSearch, shareOf, sizesFor } from './search.js';
import {
  NOTHING_FOUND,
  type NodeModel,
  PLACEMENT_BUDGET,
  PLACEMENT_REQUEST_KEYS,
  type PlacementKernels,
  type PlacementOption,
  type PlacementPlan,
  type PlacementRequest,
  type PlacementSearch,
  type Slot,
} from './types.js';
import { validatePlanRequest } from './validate.js';

export { PreparedNode, prepareNode } from './prepared.js';
export {
  budgetError,
  compareCandidates,
  compareEvictionOrder,
  compareMasks,
  isEvictable,
  maskOf,
  migMessage,
  nodeOptionOf,
  noOptionReason,
  optionOf,
  positionMatrix,
  rejectionsFor,
  runSearch,
  shareOf,
  sizesFor,
} from './search.js';
export * from './types.js';
export { MAX_PARTS, validateNode, validateParts, validatePlanRequest, validateSlot, validateSlots } from './validate.js';

/**
 * Typed arrays of one exact length, reused from call to call by planPlacement (a typed array of more
 * than 64 bytes costs a separate allocation of its memory: several hundred ns each). planPlacement
 * runs no caller code and keeps none of them past its return, so one set serves every call.
 */
class Scratch {
  private readonly f64s = new Map<number, Float64Array>();
  private readonly i32s = new Map<number, Int32Array>();
  constructor(private readonly keep: number) {}

  /** A Float64Array of `length` items (contents undefined unless `zero`). */
  f64(length: number, zero = false): Float64Array {
    let a = this.f64s.get(length);
    if (a === undefined) {
      a = new Float64Array(length);
      if (length <= this.keep) this.f64s.set(length, a);
    } else if (zero) a.fill(0);
    return a;
  }

  /** An Int32Array of `length` items (contents undefined). */
  i32(length: number): Int32Array {
    let a = this.i32s.get(length);
    if (a === undefined) {
      a = new Int32Array(length);
      if (length <= this.keep) this.i32s.set(length, a);
    }
    return a;
  }
}

// One per role (a role's array must not be another's), lengths up to 256 kept.
const potentialScratch = new Scratch(256);
const freeScratch = new Scratch(256);
const totalScratch = new Scratch(256);
const evictableScratch = new Scratch(256);
const staleScratch = new Scratch(256);
const sizesScratch = new Scratch(256);

/**
 * planPlacement's request on a prepared node (Engine.prepare): `node` instead of gpus and topology.
 * Slots still go with each request.
 */
export type PreparedPlacementRequest = Omit<PlacementRequest, 'gpus' | 'topology'> & { node: PreparedNode };

/** Plans every viable option on one node, best first, with per-GPU rejections. */
export function planPlacement(kernels: PlacementKernels, request: PlacementRequest | PreparedPlacementRequest): PlacementPlan {
  const r = requireObject('request', request);
  if (hasUnknownKey(r, PLACEMENT_REQUEST_KEYS)) rejectUnknownKeys('', r, PLACEMENT_REQUEST_KEYS);
  const { node, matrix } = requestNode(r);
  const req = validatePlanRequest(r);
  const n = node.index.length;
  const index = node.index;
  // GPUs in MIG mode are left out unless the request allows them (their free memory reads -Infinity: no share fits).
  const mig = node.mig !== undefined && !req.allowMig ? node.mig : null;
  const { free, total, stale, staleMasks, staleBytes, evictable, potential } = nodeState(node, req.model, req.allowEviction, mig);
  const sizeList = sizesFor(req, n);
  const sizes = sizesScratch.i32(sizeList.length);
  const shares = sizesScratch.f64(sizeList.length);
  for (let k = 0; k < sizeList.length; k++) {
    const size = sizeList[k]!;
    sizes[k] = size;
    shares[k] = shareOf(req.memory, size);
  }
  const search: PlacementSearch = {
    gpus: n,
    free,
    total,
    sizes,
    shares,
    staleMasks,
    staleBytes,
    pairScores: matrix,
    pack: req.pack,
    limit: req.limit,
    budget: PLACEMENT_BUDGET,
  };
  // Nothing to enumerate (no GPU can take any size's share): the same empty result on both backends, without a kernel call.
  const found = anyGpuEligible(search, potential) ? runSearch(kernels, search) : NOTHING_FOUND;
  const options: PlacementOption[] = new Array(found.count);
  for (let c = 0; c < found.count; c++) options[c] = optionOf(found, c, index, req.memory, stale, req.model);
  const rejected = rejectionsFor(index, node.total, free, evictable, req.memory, sizeList, undefined, [], node.used, mig);
  if (options.length > 0) return { options, rejected };
  return { options: [], rejected, reason: noOptionReason(req.memory, sizeList.length === 0 ? null : sizeList.join(', '), n, rejected.length, undefined, mig === null ? 0 : countTrue(mig)) };
}

/** How many entries are true. */
function countTrue(flags: readonly boolean[]): number {
  let c = 0;
  for (const f of flags) if (f) c++;
  return c;
}

/** What planPlacement derives from a node for one model and eviction setting. Memory in bytes. */
type NodeState = {
  free: Float64Array;
  /** What the kernels read as `total`: memoryTotal − memoryUsed (what gpualloc's slots may ever hold). */
  total: Float64Array;
  /** Evictable slots in eviction order, their position masks (two i32 halves) and memoryPerGpu. */
  stale: Slot[];
  staleMasks: Int32Array;
  staleBytes: Float64Array;
  /** Bytes eviction could free per position. */
  evictable: Float64Array;
  /** Free memory plus the bytes of every evictable slot per position, summed in the kernels' order (see anyGpuEligible). */
  potential: Float64Array;
};

/**
 * Free memory, the eviction order and masks of a node, in the reusable scratch arrays. Nothing reads
 * the state after planPlacement returns, and nothing writes to it.
 */
function nodeState(node: NodeModel, model: string | undefined, allowEviction: boolean, mig: readonly boolean[] | null): NodeState {
  const n = node.index.length;
  const index = node.index;
  const slots = node.slots;
  const stale = allowEviction ? slots.filter((s) => isEvictable(s, model)).sort(compareEvictionOrder) : [];
  const S = stale.length;
  const free = freeScratch.f64(n);
  const total = totalScratch.f64(n);
  // Positions p < n index the node's per-GPU lists and the scratch arrays sized n (hence the `!`).
  for (let p = 0; p < n; p++) free[p] = total[p] = node.total[p]! - node.used[p]!;
  const maxBytes = LIMITS.maxBytes;
  for (const s of slots) {
    for (const g of s.gpus) {
      const p = positionIn(index, g);
      free[p]! -= s.memoryPerGpu;
      const allocated = total[p]! - free[p]!;
      if (allocated > maxBytes) fail('LIMIT_EXCEEDED', `slots`, `at most ${maxBytes} bytes allocated on GPU ${g}`, allocated);
    }
  }
  const staleMasks = staleScratch.i32(2 * S);
  const staleBytes = staleScratch.f64(S);
  const evictable = evictableScratch.f64(n, true);
  for (let k = 0; k < S; k++) {
    const s = stale[k]!;
    let lo = 0;
    let hi = 0;
    for (const g of s.gpus) {
      const p = positionIn(index, g);
      if (p < 32) lo |= 1 << p;
      else hi |= 1 << (p - 32);
      evictable[p]! += s.memoryPerGpu;
    }
    staleMasks[2 * k] = lo;
    staleMasks[2 * k + 1] = hi;
    staleBytes[k] = s.memoryPerGpu;
  }
  if (mig !== null) for (let p = 0; p < n; p++) if (mig[p]) free[p] = -Infinity;
  const potential = potentialOf(n, free, staleMasks, staleBytes, potentialScratch.f64(n));
  return { free, total, stale, staleMasks, staleBytes, evictable, potential };
}

/**
 * False when no GPU of a search can take its share of any allowed size (total ≥ share, and free plus
 * the bytes of every evictable slot on it ≥ share, summed in the kernels' order): every GPU is then
 * rejected, the kernels would enumerate nothing and find nothing (count 0, no overflow), and
 * planPlacement does not call them. `potential`: those sums per position (potentialOf; the node
 * state keeps them).
 */
export function anyGpuEligible(search: PlacementSearch, potential: ArrayLike<number>): boolean {
  const { gpus: n, total, sizes, shares } = search;
  for (let si = 0; si < sizes.length; si++) {
    const size = sizes[si]!; // sizes and shares have one entry per size; total and potential one per position
    if (size > n) break;
    const share = shares[si]!;
    for (let p = 0; p < n; p++) if (total[p]! >= share && potential[p]! >= share) return true;
  }
  return false;
}

/**
 * Free memory plus the bytes of every evictable slot, per position of `n`, into `out`: summed stale
 * slot by stale slot, the kernels' order (so anyGpuEligible and the kernels agree to the last bit).
 */
export function potentialOf(n: number, free: ArrayLike<number>, staleMasks: ArrayLike<number>, staleBytes: ArrayLike<number>, out: Float64Array): Float64Array {
  // free and out hold n positions; staleMasks two halves per stale slot.
  for (let p = 0; p < n; p++) out[p] = free[p]!;
  for (let k = 0; k < staleBytes.length; k++) {
    const lo = staleMasks[2 * k]!;
    const hi = staleMasks[2 * k + 1]!;
    const bytes = staleBytes[k]!;
    for (let p = 0; p < n; p++) if (((p < 32 ? lo >>> p : hi >>> (p - 32)) & 1) !== 0) out[p]! += bytes;
  }
  return out;
}

/** Position of GPU index `g` in the ascending `index` (it is there: slots were validated against it). */
function positionIn(index: readonly number[], g: number): number {
  let lo = 0;
  let hi = index.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (index[mid]! < g)
      lo = mid + 1; // lo ≤ mid < hi < index.length
    else hi = mid;
  }
  return lo;
}
