// allocateAligned: whole GPUs picked by topology. Two policies over one integer pair-score matrix:
// 'besteffort' (go-gpuallocator's BestEffort, result for result, without its padding defect) and
// 'topology' (the default: the best-connected set that leaves the best-connected remainder).
import { AllocationError, type Reason } from './errors.js';
import type { Kernels } from './kernels.js';
import { LIMITS } from './limits.js';
import { linkScore, PCIE_LEVELS, setScore, validateTopology, type Topology } from './topology.js';
import { fail, requireArray, requireInteger, requireObject, requireOneOf } from './validate.js';

/** besteffort: go-gpuallocator's BestEffort, exactly; topology: the default, see the README. */
export type AlignedPolicy = 'besteffort' | 'topology';

/** Request of allocateAligned (see DESIGN.md). */
export type AlignedRequest = { topology: Topology; available: number[]; required?: number[]; size: number; policy?: AlignedPolicy };

/** Result of allocateAligned: GPU indices in ascending order, and their set score (sum of pair scores). */
export type AlignedResult = { devices: number[]; score: number; reason?: Reason };

/** The policies, default first. */
export const ALIGNED_POLICIES: readonly AlignedPolicy[] = ['topology', 'besteffort'];

/**
 * Most available GPUs for which 'besteffort' runs (its subset DP keeps a table of 2^available
 * entries). Upstream needs billions of partitions long before this; larger requests get LIMIT_EXCEEDED.
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
   * subset DP over positions that keeps the first optimal partition in upstream's enumeration order.
   * Preconditions (checked by allocateAligned): size ≤ available.length, required ⊆ available,
   * required.length ≤ size. Returns the chosen GPU indices, ascending.
   */
  alignedBestEffort(matrix: Int32Array, gpus: number, available: Int32Array, required: Int32Array, size: number): Int32Array;
  /**
   * The 'topology' policy: the size-subset of `available` containing `required` with the highest set
   * score, then the best-connected remainder, then the lowest sorted indices. Exact when the candidate
   * count is at most `exactSubsets`, else multi-start greedy plus best-swap search. Same preconditions.
   */
  alignedTopology(matrix: Int32Array, gpus: number, available: Int32Array, required: Int32Array, size: number, exactSubsets: number): Int32Array;
}

type _CachedTopology = { gpus: number; snapshot: Int32Array; matrix: Int32Array };
const _topologies = new WeakMap<object, _CachedTopology>();

/** The fields of each link as numbers (pcie: index in PCIE_LEVELS, or -1; nvlink: -1 when absent), to spot in-place edits. */
function _snapshot(links: readonly unknown[]): Int32Array | null {
  const out = new Int32Array(links.length * 4);
  for (let k = 0; k < links.length; k++) {
    const l = links[k] as Record<string, unknown> | null;
    if (l === null || typeof l !== 'object') return null;
    const { a, b, pcie, nvlink } = l;
    if (typeof a !== 'number' || typeof b !== 'number' || (nvlink !== undefined && typeof nvlink !== 'number')) return null;
    out[k * 4] = a;
    out[k * 4 + 1] = b;
    out[k * 4 + 2] = pcie === undefined ? -1 : (PCIE_LEVELS as readonly unknown[]).indexOf(pcie);
    out[k * 4 + 3] = nvlink === undefined ? -1 : nvlink;
    if (out[k * 4] !== a || out[k * 4 + 1] !== b || (nvlink !== undefined && out[k * 4 + 3] !== nvlink)) return null;
  }
  return out;
}

/**
 * Validates a topology and returns its pair-score matrix. Cached per caller's topology object: while
 * its links read the same, the same Int32Array comes back (no re-validation) and the core skips
 * reloading it; an edit in place is noticed and validated afresh.
 */
function _matrixFor(value: unknown): { gpus: number; matrix: Int32Array } {
  const key = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  const cached = key === null ? undefined : _topologies.get(key);
  if (cached !== undefined && key !== null && key.gpus === cached.gpus && Array.isArray(key.links) && key.links.length * 4 === cached.snapshot.length) {
    const now = _snapshot(key.links);
    if (now !== null && now.every((v, k) => v === cached.snapshot[k])) return cached;
  }
  const topology = validateTopology(value, 'topology');
  const n = topology.gpus;
  const matrix = new Int32Array(n * n);
  for (const l of topology.links) {
    const s = linkScore(l);
    matrix[l.a * n + l.b] = s;
    matrix[l.b * n + l.a] = s;
  }
  const links = key === null ? undefined : key.links;
  const snapshot = Array.isArray(links) ? _snapshot(links) : links === undefined ? new Int32Array(0) : null;
  if (key !== null && snapshot !== null) _topologies.set(key, { gpus: n, snapshot, matrix });
  return { gpus: n, matrix };
}

/** A list of distinct GPU indices inside the topology. */
function _indexList(field: string, value: unknown, gpus: number): number[] {
  const list = requireArray(field, value, LIMITS.maxGpus);
  const seen = new Set<number>();
  return list.map((raw, k) => {
    const f = `${field}[${k}]`;
    const g = requireInteger(f, raw, 0, Number.MAX_SAFE_INTEGER);
    if (g >= gpus) throw new AllocationError('UNKNOWN_DEVICE_ID', `${f}: GPU index ${g} is outside the topology of ${gpus} GPUs`, { field: f });
    if (seen.has(g)) throw new AllocationError('DUPLICATE_DEVICE', `${f}: GPU index ${g} appears twice in ${field}`, { field: f });
    seen.add(g);
    return g;
  });
}

function _empty(code: 'INSUFFICIENT_DEVICES' | 'TOO_MANY_REQUIRED' | 'REQUIRED_NOT_AVAILABLE', message: string): AlignedResult {
  return { devices: [], score: 0, reason: { code, message } };
}

/**
 * Picks `size` whole GPUs. Malformed input throws AllocationError; a request that cannot be met
 * returns `devices: []` with a reason (checked in upstream's order: too few available, too many
 * required, a required GPU not available).
 */
export function allocateAligned(kernels: Kernels, request: AlignedRequest): AlignedResult {
  const req = requireObject('request', request);
  const { gpus: n, matrix } = _matrixFor(req.topology);
  const size = requireInteger('size', req.size, 1, LIMITS.maxGpus);
  const policy = req.policy === undefined ? 'topology' : requireOneOf('policy', req.policy, ALIGNED_POLICIES, 'UNKNOWN_POLICY');
  const available = _indexList('available', req.available, n);
  const required = req.required === undefined ? [] : _indexList('required', req.required, n);

  if (available.length < size) return _empty('INSUFFICIENT_DEVICES', `size ${size}: only ${available.length} GPUs are available`);
  if (required.length > size) return _empty('TOO_MANY_REQUIRED', `required: ${required.length} GPUs are required but size is ${size}`);
  const availableSet = new Set(available);
  const missing = required.filter((g) => !availableSet.has(g));
  if (missing.length > 0) return _empty('REQUIRED_NOT_AVAILABLE', `required: GPU ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not available`);

  if (policy === 'besteffort' && available.length > BESTEFFORT_MAX_AVAILABLE && size > 1 && size < available.length) {
    fail('LIMIT_EXCEEDED', 'available', `at most ${BESTEFFORT_MAX_AVAILABLE} GPUs for policy 'besteffort' (use 'topology' on larger nodes)`, req.available);
  }

  const avail = Int32Array.from(available);
  const reqd = Int32Array.from(required);
  const chosen = policy === 'besteffort' ? kernels.alignedBestEffort(matrix, n, avail, reqd, size) : kernels.alignedTopology(matrix, n, avail, reqd, size, TOPOLOGY_EXACT_SUBSETS);
  if (chosen.length !== size) throw new AllocationError('INTERNAL', `allocateAligned: the ${kernels.backend} kernel returned ${chosen.length} GPUs for size ${size}`);
  const devices = Array.from(chosen);
  return { devices, score: setScore(matrix, n, devices) };
}
