// allocateAligned: whole GPUs picked by topology. Two policies over one integer pair-score matrix:
// 'besteffort' (go-gpuallocator's BestEffort, result for result, without its padding defect) and
// 'topology' (the default: the best-connected set that leaves the best-connected remainder).

import { setScore, type Topology, topologyFor } from '../hardware/topology.js';
import { AllocationError, parsePath, type Reason } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { fail, keysOf, rejectUnknownKeys, requireArray, requireInteger, requireObject, requireOneOf } from '../shared/validate.js';

/** besteffort: go-gpuallocator's BestEffort, exactly; topology: the default, see the README. */
export type AlignedPolicy = 'besteffort' | 'topology';

/** Request of allocateAligned (README: "Whole GPUs by topology"). `available`: GPU indices in the caller's order; default every GPU of the topology (0 .. gpus-1). */
export type AlignedRequest = { topology: Topology; available?: readonly number[]; required?: readonly number[]; size: number; policy?: AlignedPolicy };

const ALIGNED_REQUEST_KEYS = keysOf<AlignedRequest>()(['topology', 'available', 'required', 'size', 'policy']);

/** Result of allocateAligned: GPU indices in ascending order, and their set score (sum of pair scores). */
export type AlignedResult = { devices: number[]; score: number; reason?: undefined } | { devices: []; score: number; reason: Reason };

/** The policies, default first. */
export const ALIGNED_POLICIES: readonly AlignedPolicy[] = ['topology', 'besteffort'];

/**
 * Most available GPUs for which 'besteffort' runs (its search keeps a table of 2^available entries
 * and enumerates every group once). Upstream needs billions of partitions long before this; larger
 * requests get LIMIT_EXCEEDED.
 */
export const BESTEFFORT_MAX_AVAILABLE = 20;

/**
 * 'topology' searches every candidate set when there are at most this many (C(free, size - required));
 * that covers every request on nodes of up to 22 GPUs. Above it: multi-start greedy plus swap search.
 */
export const TOPOLOGY_EXACT_SUBSETS = 1 << 20;

/** Kernels this capability needs. Both take the n×n pair-score matrix of the node (cached per topology). */
export interface AlignedKernels {
  /**
   * BestEffort over `available` (GPU indices, caller's order, at most BESTEFFORT_MAX_AVAILABLE):
   * the first optimal partition in upstream's enumeration order, found with LP-dual bounds over sets
   * of positions (docs/besteffort.md).
   * Preconditions (checked by allocateAligned): size ≤ available.length, required ⊆ available,
   * required.length ≤ size. Returns the chosen GPU indices, ascending, in a new array.
   */
  alignedBestEffort(matrix: Int32Array, gpus: number, available: ArrayLike<number>, required: ArrayLike<number>, size: number): number[];
  /**
   * The 'topology' policy: the size-subset of `available` containing `required` with the highest set
   * score, then the best-connected remainder, then the lowest sorted indices. Exact when the candidate
   * count is at most `exactSubsets`, else multi-start greedy plus best-swap search. Same preconditions.
   */
  alignedTopology(matrix: Int32Array, gpus: number, available: ArrayLike<number>, required: ArrayLike<number>, size: number, exactSubsets: number): number[];
}

/** A list of distinct GPU indices inside the topology (at most 64 GPUs: seen as two 32-bit halves). */
function _indexList(field: string, value: unknown, gpus: number): number[] {
  const list = requireArray(field, value, LIMITS.maxGpus);
  const out = new Array<number>(list.length);
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < list.length; k++) {
    const raw = list[k];
    // The common case (an in-range integer) without building the field name.
    const g = typeof raw === 'number' && raw >= 0 && raw < gpus && Number.isInteger(raw) ? raw | 0 : _checkIndex(`${field}[${k}]`, raw, gpus);
    const bit = 1 << (g & 31);
    if (((g < 32 ? lo : hi) & bit) !== 0) throw AllocationError.at('DUPLICATE_DEVICE', `${field}[${k}]`, [`GPU index ${g} appears twice in `, { field: parsePath(field) }]);
    if (g < 32) lo |= bit;
    else hi |= bit;
    out[k] = g;
  }
  return out;
}

/** The checks of one index that is not a plain in-range integer: throws the error naming it. */
function _checkIndex(f: string, raw: unknown, gpus: number): number {
  const g = requireInteger(f, raw, 0, Number.MAX_SAFE_INTEGER);
  if (g >= gpus) throw AllocationError.at('UNKNOWN_DEVICE_ID', f, `GPU index ${g} is outside the topology of ${gpus} GPUs`);
  return g;
}

function _empty(code: 'INSUFFICIENT_DEVICES' | 'TOO_MANY_REQUIRED' | 'REQUIRED_NOT_AVAILABLE', message: string): AlignedResult {
  return { devices: [], score: 0, reason: { code, message } };
}

/**
 * Picks `size` whole GPUs. Malformed input throws AllocationError; a request that cannot be met
 * returns `devices: []` with a reason (checked in upstream's order: too few available, too many
 * required, a required GPU not available).
 */
export function allocateAligned(kernels: AlignedKernels & { readonly backend: string }, request: AlignedRequest): AlignedResult {
  const req = requireObject('request', request);
  rejectUnknownKeys('', req, ALIGNED_REQUEST_KEYS);
  const { topology, matrix } = topologyFor(req.topology, 'topology');
  const n = topology.gpus;
  const size = requireInteger('size', req.size, 1, LIMITS.maxGpus);
  const policy = req.policy === undefined ? 'topology' : requireOneOf('policy', req.policy, ALIGNED_POLICIES, 'UNKNOWN_POLICY');
  const available = req.available === undefined ? Array.from({ length: n }, (_, g) => g) : _indexList('available', req.available, n);
  const required = req.required === undefined ? [] : _indexList('required', req.required, n);

  if (available.length < size) return _empty('INSUFFICIENT_DEVICES', `size ${size}: only ${available.length} GPUs are available`);
  if (required.length > size) return _empty('TOO_MANY_REQUIRED', `required: ${required.length} GPUs are required but size is ${size}`);
  let missing: number[] | undefined;
  for (const g of required) if (!available.includes(g)) (missing ??= []).push(g);
  if (missing !== undefined) return _empty('REQUIRED_NOT_AVAILABLE', `required: GPU ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not available`);

  // No search needed: every available GPU, or a single GPU (the same answers as the kernels give).
  if (size === available.length) {
    const devices = available.slice().sort((a, b) => a - b);
    return { devices, score: setScore(matrix, n, devices) };
  }
  // available holds at least size = 1 GPU (checked above).
  if (size === 1) return { devices: [required.length > 0 ? required[0]! : policy === 'besteffort' ? available[0]! : _leastConnected(matrix, n, available)], score: 0 };

  if (policy === 'besteffort' && available.length > BESTEFFORT_MAX_AVAILABLE) {
    fail('LIMIT_EXCEEDED', 'available', `at most ${BESTEFFORT_MAX_AVAILABLE} GPUs for policy 'besteffort' (use 'topology' on larger nodes)`, req.available);
  }

  const devices = policy === 'besteffort' ? kernels.alignedBestEffort(matrix, n, available, required, size) : kernels.alignedTopology(matrix, n, available, required, size, TOPOLOGY_EXACT_SUBSETS);
  if (devices.length !== size) throw new AllocationError('INTERNAL', `allocateAligned: the ${kernels.backend} kernel returned ${devices.length} GPUs for size ${size}`);
  return { devices, score: setScore(matrix, n, devices) };
}

/**
 * 'topology' at size 1 without required GPUs: the available GPU with the lowest sum of pair scores to
 * the available GPUs (it leaves the best-connected remainder), ties to the lowest index.
 */
function _leastConnected(matrix: Int32Array, n: number, available: readonly number[]): number {
  let best = -1;
  let bestSum = 0;
  for (const g of available) {
    let sum = 0;
    const row = g * n;
    for (const h of available) sum += matrix[row + h]!; // g, h < n: inside the n×n matrix
    if (best < 0 || sum < bestSum || (sum === bestSum && g < best)) {
      best = g;
      bestSum = sum;
    }
  }
  return best;
}
