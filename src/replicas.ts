// allocateReplicas: which replicas / MIG slices / plain devices a container gets (the job of NVIDIA's
// k8s-device-plugin GetPreferredAllocation for shared devices), with every tie broken deterministically.
import type { Kernels } from './kernels.js';
import type { Reason } from './errors.js';
import { checkIdList } from './natural-sort.js';
import { LIMITS } from './limits.js';
import { fail, own, ownKeys, requireInteger, requireObject, requireOneOf, requireString } from './validate.js';

/** Greedy policies of NVIDIA's device plugin. */
export type ReplicaPolicy = 'distributed' | 'packed' | 'spread';

/** Every replica policy, in documentation order; the first is the default. */
export const REPLICA_POLICIES: readonly ReplicaPolicy[] = ['distributed', 'packed', 'spread'];

/** The policy used when neither the request nor any configuration names one. */
export const DEFAULT_REPLICA_POLICY: ReplicaPolicy = 'distributed';

/** Integer code of each policy as the kernels take it (assembly/replicas.ts uses the same numbers). */
export const REPLICA_POLICY_CODE: Readonly<Record<ReplicaPolicy, number>> = { distributed: 0, packed: 1, spread: 2 };

/** Request of allocateReplicas (see DESIGN.md). */
export type ReplicaRequest = {
  /** Every device ID of the resource: `GPU-x::0` replicas, MIG UUIDs, plain IDs. */
  devices: string[];
  /** IDs that may be handed out now (a subset of `devices`). */
  available: string[];
  /** IDs that must be part of the result (a subset of `available`); they come first. */
  required?: string[];
  /** How many IDs the container gets in all, required ones included. */
  size: number;
  /** Greedy policy; default 'distributed'. */
  policy?: ReplicaPolicy;
  /** Device ID → physical GPU key (groups MIG slices by parent); keys not in `devices` are ignored. */
  parents?: Record<string, string>;
};

/** Result of allocateReplicas: chosen IDs (required first, then picks in pick order), or [] with a reason. */
export type ReplicaResult = { devices: string[]; reason?: Reason };

/** Kernels this capability needs. */
export interface ReplicaKernels {
  /**
   * Greedy picks over integer indices. Candidate c sits on GPU `candidateGpu[c]` and has natural
   * rank `candidateRank[c]` among the candidates (a permutation of 0..n-1). GPU g has
   * `gpuAllocated[g]` devices that are not candidates and natural rank `gpuKeyRank[g]` of its
   * physical key (a permutation of 0..G-1). Picks `count` times (fewer if candidates run out); the
   * next pick is the first GPU by the policy's keys (REPLICA_POLICY_CODE: 0 distributed = allocated
   * asc then picked-in-this-call asc, 1 packed = allocated desc then picked asc, 2 spread = picked
   * asc then allocated asc), then key rank; on it, the candidate of lowest rank. A pick counts as
   * allocated and as picked. Returns picked candidate indices in pick order.
   */
  pickReplicas(policy: number, candidateGpu: Int32Array, candidateRank: Int32Array, gpuAllocated: Int32Array, gpuKeyRank: Int32Array, count: number): Int32Array;
}

/** The physical key of a device: `parents[id]` when given, else the text before the first `::`, else the ID. */
export function physicalKey(id: string, parents?: Readonly<Record<string, string>>): string {
  if (parents !== undefined && Object.prototype.hasOwnProperty.call(parents, id)) return parents[id];
  const cut = id.indexOf('::');
  return cut >= 0 ? id.slice(0, cut) : id;
}

/** Inverse of a permutation: rank[order[r]] = r. */
function _ranks(order: Int32Array): Int32Array {
  const rank = new Int32Array(order.length);
  for (let r = 0; r < order.length; r++) rank[order[r]] = r;
  return rank;
}

/** Positions of IDs in `list`, rejecting duplicates (DUPLICATE_DEVICE naming the second position). */
function _indexOf(field: string, list: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let k = 0; k < list.length; k++) {
    const id = list[k];
    const first = index.get(id);
    if (first !== undefined) fail('DUPLICATE_DEVICE', `${field}[${k}]`, `an ID not already at ${field}[${first}]`, id);
    index.set(id, k);
  }
  return index;
}

/**
 * Picks `size` devices: the required ones in the order given, then `size − |required|` picks by the
 * policy (see ReplicaKernels.pickReplicas for the exact order). Infeasible → `devices: []` with
 * reason INSUFFICIENT_DEVICES. Throws AllocationError for malformed input.
 */
export function allocateReplicas(kernels: Kernels, request: ReplicaRequest): ReplicaResult {
  const req = requireObject('request', request);
  const devices = checkIdList('devices', own(req, 'devices'));
  const available = checkIdList('available', own(req, 'available'));
  const requiredValue = own(req, 'required');
  const required = requiredValue === undefined ? [] : checkIdList('required', requiredValue);
  const size = requireInteger('size', own(req, 'size'));
  const policyValue = own(req, 'policy');
  const policy = policyValue === undefined ? DEFAULT_REPLICA_POLICY : requireOneOf('policy', policyValue, REPLICA_POLICIES, 'UNKNOWN_POLICY');
  const parentsValue = own(req, 'parents');
  let parents: Record<string, string> | undefined;
  if (parentsValue !== undefined) {
    const record = requireObject('parents', parentsValue);
    const parentIds = ownKeys(record);
    if (parentIds.length > LIMITS.maxIds) fail('LIMIT_EXCEEDED', 'parents', `at most ${LIMITS.maxIds} entries`, `${parentIds.length} entries`);
    for (const key of parentIds) requireString(`parents[${JSON.stringify(key)}]`, record[key], LIMITS.maxIdLength);
    parents = record as Record<string, string>;
  }

  const deviceIndex = _indexOf('devices', devices);
  // Per device: its position in `available` (-1 if absent) and whether it is required; marks, not string maps.
  const availableAt = new Int32Array(devices.length).fill(-1);
  const availableDevice = new Int32Array(available.length);
  for (let k = 0; k < available.length; k++) {
    const d = deviceIndex.get(available[k]);
    if (d === undefined) fail('UNKNOWN_DEVICE_ID', `available[${k}]`, 'an ID listed in devices', available[k]);
    if (availableAt[d] >= 0) fail('DUPLICATE_DEVICE', `available[${k}]`, `an ID not already at available[${availableAt[d]}]`, available[k]);
    availableAt[d] = k;
    availableDevice[k] = d;
  }
  const requiredAt = new Int32Array(devices.length).fill(-1);
  for (let k = 0; k < required.length; k++) {
    const id = required[k];
    const d = deviceIndex.get(id);
    if (d === undefined) fail('UNKNOWN_DEVICE_ID', `required[${k}]`, 'an ID listed in devices', id);
    if (requiredAt[d] >= 0) fail('DUPLICATE_DEVICE', `required[${k}]`, `an ID not already at required[${requiredAt[d]}]`, id);
    if (availableAt[d] < 0) fail('REQUIRED_NOT_AVAILABLE', `required[${k}]`, 'an ID listed in available', id);
    requiredAt[d] = k;
  }
  if (required.length > size) fail('TOO_MANY_REQUIRED', 'required', `at most size = ${size} IDs`, required);

  const needed = size - required.length;
  const candidateCount = available.length - required.length;
  if (candidateCount < needed) {
    return {
      devices: [],
      reason: {
        code: 'INSUFFICIENT_DEVICES',
        message: `size ${size} needs ${needed} devices beyond the ${required.length} required, but only ${candidateCount} candidates are available`,
      },
    };
  }
  if (needed === 0) return { devices: required.slice() };

  // Candidates in `available` order. GPUs are the physical keys that have candidates; other keys can never be picked.
  const candidates = new Array<string>(candidateCount);
  const candidateGpu = new Int32Array(candidateCount);
  const gpuOfKey = new Map<string, number>();
  const keys: string[] = [];
  let c = 0;
  for (let k = 0; k < available.length; k++) {
    if (requiredAt[availableDevice[k]] >= 0) continue;
    const id = available[k];
    const key = physicalKey(id, parents);
    let g = gpuOfKey.get(key);
    if (g === undefined) {
      g = keys.length;
      gpuOfKey.set(key, g);
      keys.push(key);
    }
    candidates[c] = id;
    candidateGpu[c++] = g;
  }
  // Allocated = devices of the key that are not candidates (required ones included).
  const gpuAllocated = new Int32Array(keys.length);
  for (let d = 0; d < devices.length; d++) {
    if (availableAt[d] >= 0 && requiredAt[d] < 0) continue;
    const g = gpuOfKey.get(physicalKey(devices[d], parents));
    if (g !== undefined) gpuAllocated[g]++;
  }
  const gpuKeyRank = _ranks(kernels.naturalOrder(keys));
  const candidateRank = _ranks(kernels.naturalOrder(candidates));

  const picks = kernels.pickReplicas(REPLICA_POLICY_CODE[policy], candidateGpu, candidateRank, gpuAllocated, gpuKeyRank, needed);
  const out = required.slice();
  for (let k = 0; k < picks.length; k++) out.push(candidates[picks[k]]);
  return { devices: out };
}
