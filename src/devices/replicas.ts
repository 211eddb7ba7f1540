// allocateReplicas: which replicas / MIG slices / plain devices a container gets (the job of NVIDIA's
// k8s-device-plugin GetPreferredAllocation for shared devices), with every tie broken deterministically.

import { AllocationError, type Reason } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { describeValue, fail, keysOf, own, ownKeys, rejectUnknownKeys, requireInteger, requireObject, requireOneOf, requireString } from '../shared/validate.js';
import type { SortKernels } from './natural-sort.js';
import { checkIdList } from './natural-sort.js';

/** Greedy policies of NVIDIA's device plugin. */
export type ReplicaPolicy = 'distributed' | 'pack' | 'spread';

/** Every replica policy, in documentation order; the first is the default. */
export const REPLICA_POLICIES: readonly ReplicaPolicy[] = ['distributed', 'pack', 'spread'];

/**
 * The device plugin's own spelling of a policy, accepted in its config file only: upstream says
 * `packed`, gpualloc says `pack` everywhere (the placement policy is `pack` too).
 */
export const UPSTREAM_POLICY_ALIASES: Readonly<Record<string, ReplicaPolicy>> = { packed: 'pack' };

/** ` (did you mean pack? 'packed' is the device plugin's spelling, …)` for an upstream spelling, else ''. */
export function upstreamSpellingHint(value: unknown): string {
  if (typeof value !== 'string' || !Object.prototype.hasOwnProperty.call(UPSTREAM_POLICY_ALIASES, value)) return '';
  return ` (did you mean ${UPSTREAM_POLICY_ALIASES[value]}? '${value}' is the device plugin's spelling, accepted in its config file)`;
}

/** The policy used when neither the request nor any configuration names one. */
export const DEFAULT_REPLICA_POLICY: ReplicaPolicy = 'distributed';

/** Integer code of each policy as the kernels take it (assembly/replicas.ts uses the same numbers). */
export const REPLICA_POLICY_CODE: Readonly<Record<ReplicaPolicy, number>> = { distributed: 0, pack: 1, spread: 2 };

/** Request of allocateReplicas (README: "Replicas and MIG slices"). */
export type ReplicaRequest = {
  /** Every device ID of the resource: `GPU-x::0` replicas, MIG UUIDs, plain IDs. */
  devices: readonly string[];
  /** IDs that may be handed out now (a subset of `devices`). */
  available: readonly string[];
  /** IDs that must be part of the result (a subset of `available`); they come first. */
  required?: readonly string[];
  /** How many IDs the container gets in all, required ones included. */
  size: number;
  /** Greedy policy; default 'distributed'. */
  policy?: ReplicaPolicy;
  /** Device ID → physical GPU key (groups MIG slices by parent); keys not in `devices` are ignored. */
  parents?: Readonly<Record<string, string>>;
};

const REPLICA_REQUEST_KEYS = keysOf<ReplicaRequest>()(['devices', 'available', 'required', 'size', 'policy', 'parents']);

/** Result of allocateReplicas: chosen IDs (required first, then picks in pick order), or [] with a reason. */
export type ReplicaResult = { devices: string[]; reason?: undefined } | { devices: []; reason: Reason };

/** Kernels this capability needs. */
export interface ReplicaKernels {
  /**
   * Greedy picks over integer indices. Candidate c sits on GPU `candidateGpu[c]` and has natural
   * rank `candidateRank[c]` among the candidates (a permutation of 0..n-1). GPU g has
   * `gpuAllocated[g]` devices that are not candidates and natural rank `gpuKeyRank[g]` of its
   * physical key (a permutation of 0..G-1). Picks `count` times (fewer if candidates run out); the
   * next pick is the first GPU by the policy's keys (REPLICA_POLICY_CODE: 0 distributed = allocated
   * asc then picked-in-this-call asc, 1 pack = allocated desc then picked asc, 2 spread = picked
   * asc then allocated asc), then key rank; on it, the candidate of lowest rank. A pick counts as
   * allocated and as picked. Returns picked candidate indices in pick order.
   */
  pickReplicas(policy: number, candidateGpu: Int32Array, candidateRank: Int32Array, gpuAllocated: Int32Array, gpuKeyRank: Int32Array, count: number): Int32Array;
}

/** A device's physical key when `parents` does not name one: the text before the first `::`, else the ID. */
function _defaultKey(id: string): string {
  const cut = id.indexOf('::');
  return cut >= 0 ? id.slice(0, cut) : id;
}

/** Inverse of a permutation: rank[order[r]] = r. */
function _ranks(order: Int32Array): Int32Array {
  const rank = new Int32Array(order.length);
  for (let r = 0; r < order.length; r++) rank[order[r]!] = r;
  return rank;
}

/** The interned-ID table is dropped (at the start of a call) once it holds more IDs or characters than this. */
const _INTERN_MAX_IDS = 1 << 16;
const _INTERN_MAX_CHARS = 1 << 22;

/**
 * Device IDs seen by recent calls, interned to numbers, with each ID's default physical key (text
 * before `::`, else the ID) interned too. Callers pass the same ID strings again and again, so an ID
 * costs one Map lookup of a string whose hash V8 has cached, instead of a fresh substring hashed on
 * every call; per-call marks are epoch-stamped typed arrays indexed by those numbers (no per-call Map).
 * Bounded: cleared at the start of a call once over _INTERN_MAX_IDS IDs or _INTERN_MAX_CHARS characters.
 * ID and key numbers come from id() and key(), which grow the per-number arrays to cover them (hence the `!`).
 */
class _Interned {
  private idNum = new Map<string, number>();
  private chars = 0;
  /** Per ID number: its default key's number. */
  private idKey: Int32Array = new Int32Array(1024);
  private keyNum = new Map<string, number>();
  /** Per key number: the key. */
  readonly keyText: string[] = [];
  /** Per ID number: the call's epoch when the ID was seen in this call's `devices`, and its position there. */
  private idStamp: Int32Array = new Int32Array(1024);
  private idPos: Int32Array = new Int32Array(1024);
  /** Per key number: the call's epoch when the key got a GPU in this call, and that GPU. */
  private keyStamp: Int32Array = new Int32Array(1024);
  private keyGpu: Int32Array = new Int32Array(1024);
  private epoch = 0;

  /** Starts a call: a new epoch (and a cleared table when it grew past its bounds). */
  begin(): void {
    if (this.idNum.size > _INTERN_MAX_IDS || this.chars > _INTERN_MAX_CHARS || this.keyText.length > 2 * _INTERN_MAX_IDS) {
      this.idNum = new Map();
      this.keyNum = new Map();
      this.keyText.length = 0;
      this.chars = 0;
      this.idStamp.fill(0);
      this.keyStamp.fill(0);
      this.epoch = 0;
    }
    if (++this.epoch === 0x40000000) {
      this.idStamp.fill(0);
      this.keyStamp.fill(0);
      this.epoch = 1;
    }
  }

  /** The number of a key string. */
  key(text: string): number {
    let k = this.keyNum.get(text);
    if (k === undefined) {
      k = this.keyText.length;
      this.keyNum.set(text, k);
      this.keyText.push(text);
      this.chars += text.length;
      if (k >= this.keyStamp.length) {
        this.keyStamp = _grow(this.keyStamp, k);
        this.keyGpu = _grow(this.keyGpu, k);
      }
    }
    return k;
  }

  /** The number of an ID. */
  id(text: string): number {
    let n = this.idNum.get(text);
    if (n === undefined) {
      n = this.idNum.size;
      this.idNum.set(text, n);
      this.chars += text.length;
      if (n >= this.idKey.length) {
        this.idKey = _grow(this.idKey, n);
        this.idStamp = _grow(this.idStamp, n);
        this.idPos = _grow(this.idPos, n);
      }
      this.idKey[n] = this.key(_defaultKey(text));
    }
    return n;
  }

  /** Default key number of ID number n. */
  defaultKey(n: number): number {
    return this.idKey[n]!;
  }

  /** Marks ID number n at position k of `devices`; returns the earlier position when it is already marked in this call, else -1. */
  markDevice(n: number, k: number): number {
    if (this.idStamp[n] === this.epoch) return this.idPos[n]!;
    this.idStamp[n] = this.epoch;
    this.idPos[n] = k;
    return -1;
  }

  /** Position in `devices` of ID `text` in this call, or -1. */
  deviceOf(text: string): number {
    const n = this.idNum.get(text);
    return n !== undefined && this.idStamp[n] === this.epoch ? this.idPos[n]! : -1;
  }

  /** GPU of key number k in this call, or -1. */
  gpuOf(k: number): number {
    return this.keyStamp[k] === this.epoch ? this.keyGpu[k]! : -1;
  }

  /** Gives key number k GPU g in this call. */
  setGpu(k: number, g: number): void {
    this.keyStamp[k] = this.epoch;
    this.keyGpu[k] = g;
  }
}

function _grow(a: Int32Array, index: number): Int32Array {
  let size = a.length;
  while (size <= index) size *= 2;
  const out = new Int32Array(size);
  out.set(a);
  return out;
}

const _interned = new _Interned();

/**
 * Picks `size` devices: the required ones in the order given, then `size − |required|` picks by the
 * policy (see ReplicaKernels.pickReplicas for the exact order). Infeasible → `devices: []` with
 * reason INSUFFICIENT_DEVICES. Throws AllocationError for malformed input.
 */
export function allocateReplicas(kernels: ReplicaKernels & SortKernels, request: ReplicaRequest): ReplicaResult {
  const req = requireObject('request', request);
  rejectUnknownKeys('', req, REPLICA_REQUEST_KEYS);
  const devices = checkIdList('devices', own(req, 'devices'));
  const available = checkIdList('available', own(req, 'available'));
  const requiredValue = own(req, 'required');
  const required = requiredValue === undefined ? [] : checkIdList('required', requiredValue);
  const size = requireInteger('size', own(req, 'size'));
  const policyValue = own(req, 'policy');
  const upstream = upstreamSpellingHint(policyValue);
  if (upstream !== '') {
    const expected = `one of ${REPLICA_POLICIES.map((p) => `'${p}'`).join(', ')}`;
    throw AllocationError.at('UNKNOWN_POLICY', 'policy', `expected ${expected}, got ${describeValue(policyValue)}${upstream}`, { expected, received: describeValue(policyValue) });
  }
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

  const ids = _interned;
  ids.begin();
  // Per device: its physical key's number, parents[id] when given, else the ID's default key (one
  // pass; a substring only for IDs not seen before).
  const deviceKey = new Int32Array(devices.length);
  for (let d = 0; d < devices.length; d++) {
    const id = devices[d]!;
    const n = ids.id(id);
    const first = ids.markDevice(n, d);
    if (first >= 0) fail('DUPLICATE_DEVICE', `devices[${d}]`, `an ID not already at devices[${first}]`, id);
    deviceKey[d] = parents !== undefined && Object.prototype.hasOwnProperty.call(parents, id) ? ids.key(parents[id]!) : ids.defaultKey(n); // an own key, checked as a string above
  }
  // Per device: its position in `available` (-1 if absent) and whether it is required; marks, not string maps.
  const availableAt = new Int32Array(devices.length).fill(-1);
  const availableDevice = new Int32Array(available.length);
  for (let k = 0; k < available.length; k++) {
    const id = available[k]!;
    const d = ids.deviceOf(id); // a position in devices, or -1
    if (d < 0) fail('UNKNOWN_DEVICE_ID', `available[${k}]`, 'an ID listed in devices', id);
    const earlier = availableAt[d]!;
    if (earlier >= 0) fail('DUPLICATE_DEVICE', `available[${k}]`, `an ID not already at available[${earlier}]`, id);
    availableAt[d] = k;
    availableDevice[k] = d;
  }
  const requiredAt = new Int32Array(devices.length).fill(-1);
  for (let k = 0; k < required.length; k++) {
    const id = required[k]!;
    const d = ids.deviceOf(id); // a position in devices, or -1
    if (d < 0) fail('UNKNOWN_DEVICE_ID', `required[${k}]`, 'an ID listed in devices', id);
    const earlier = requiredAt[d]!;
    if (earlier >= 0) fail('DUPLICATE_DEVICE', `required[${k}]`, `an ID not already at required[${earlier}]`, id);
    if (availableAt[d]! < 0) fail('REQUIRED_NOT_AVAILABLE', `required[${k}]`, 'an ID listed in available', id);
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
  const keys: string[] = [];
  let c = 0;
  for (let k = 0; k < available.length; k++) {
    const d = availableDevice[k]!; // positions in devices, all three arrays
    if (requiredAt[d]! >= 0) continue;
    const key = deviceKey[d]!;
    let g = ids.gpuOf(key);
    if (g < 0) {
      g = keys.length;
      ids.setGpu(key, g);
      keys.push(ids.keyText[key]!);
    }
    candidates[c] = available[k]!;
    candidateGpu[c++] = g;
  }
  // Allocated = devices of the key that are not candidates (required ones included).
  const gpuAllocated = new Int32Array(keys.length);
  for (let d = 0; d < devices.length; d++) {
    if (availableAt[d]! >= 0 && requiredAt[d]! < 0) continue; // d < devices.length, the arrays' length
    const g = ids.gpuOf(deviceKey[d]!);
    if (g >= 0) gpuAllocated[g]!++;
  }
  const gpuKeyRank = _ranks(kernels.naturalOrder(keys));
  const candidateRank = _ranks(kernels.naturalOrder(candidates));

  const picks = kernels.pickReplicas(REPLICA_POLICY_CODE[policy], candidateGpu, candidateRank, gpuAllocated, gpuKeyRank, needed);
  const out = required.slice();
  for (const pick of picks) out.push(candidates[pick]!); // the kernel returns candidate indices
  return { devices: out };
}
