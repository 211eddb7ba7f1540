// planPlacement: every viable way to place a model on a node's GPUs by memory, with per-GPU
// validation, stale-slot eviction and one documented ranking key (the Helix "planning" method).
import { AllocationError, type Reason } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { ctz, lexBefore, popcount } from '../shared/bits.js';
import { pairScoreMatrix, topologyFor, type Topology } from '../hardware/topology.js';
import { formatBytes } from '../shared/units.js';
import { compareNatural } from '../shared/natural-order.js';
import { describeValue, fail, keysOf, markEngineOwned, readError, readInput, requireArray, requireBoolean, requireInteger, requireObject, requireOneOf, requireString } from '../shared/validate.js';

/**
 * Work already placed on GPUs. memoryPerGpu in bytes; lastActivity in ms since the epoch. A pod's
 * slot (src/fleet/scheduler.ts) also has `milli`, its share of each of its GPUs in milli-GPU
 * (1..1000; it is charged memoryPerGpu = floor(milli × memoryTotal / 1000) bytes per GPU), and `cpu`
 * (milli-CPU) and `hostMemory` (bytes) held on the node. A slot has no GPUs (memoryPerGpu 0) only
 * when it holds cpu or hostMemory (a CPU-only pod).
 */
export type Slot = { id: string; model?: string; gpus: number[]; memoryPerGpu: number; lastActivity?: number; stale?: boolean; milli?: number; cpu?: number; hostMemory?: number };

/**
 * One way to place the model (or a pod). memoryPerGpu in bytes; score is the topology set score of
 * `gpus` (a pod's option: its policy score). `milli`, `cpu` (milli-CPU) and `hostMemory` (bytes)
 * become the slot's fields of the same names (see Slot); commit checks them against the node.
 */
export type PlacementOption = { node?: string; model?: string; gpus: number[]; memoryPerGpu: number; evict: string[]; score: number; milli?: number; cpu?: number; hostMemory?: number };

/** The keys of a PlacementOption (ClusterState.commit rejects any other). */
export const PLACEMENT_OPTION_KEYS = keysOf<PlacementOption>()(['node', 'model', 'gpus', 'memoryPerGpu', 'evict', 'score', 'milli', 'cpu', 'hostMemory']);

/** Why a GPU cannot take its share (REASON_CODES). shortBy in bytes. */
export type Rejection = { node?: string; gpu: number; code: string; message: string; shortBy?: number };

/** spread: keep the most free memory on the fullest chosen GPU; pack: leave the least memory over on the chosen GPUs. */
export type PlacementPolicy = 'spread' | 'pack';

/**
 * One GPU of a node. Memory in bytes. memoryUsed (default 0, at most memoryTotal) is memory held by
 * processes outside gpualloc's slots: it is never evicted, so a GPU's free memory is memoryTotal −
 * memoryUsed − the memoryPerGpu of the slots on it.
 */
export type NodeGpu = { index: number; memoryTotal: number; memoryUsed?: number };

/** Request of planPlacement (README: "Placing models by memory"). Memory in bytes. */
export type PlacementRequest = {
  gpus: NodeGpu[];
  slots?: Slot[];
  topology?: Topology;
  memory: number;
  model?: string;
  tensorParallelSizes?: number[];
  allowEviction?: boolean;
  policy?: PlacementPolicy;
  limit?: number;
};

/** Ranked options (best first) and per-GPU rejections; `reason` is set when there is no option. */
export type PlacementPlan = { options: PlacementOption[]; rejected: Rejection[]; reason?: Reason };

/** One node's search, in positions 0..gpus-1 (GPUs sorted by index). Memory in bytes. */
export type PlacementSearch = {
  /** GPUs on the node (at most 64). */
  gpus: number;
  /** memoryTotal − allocated per position (negative when the input over-schedules a GPU). */
  free: Float64Array;
  /** memoryTotal per position. */
  total: Float64Array;
  /** Allowed tensor-parallel sizes, ascending, each in 1..gpus. */
  sizes: Int32Array;
  /** ceil(memory / size) per entry of sizes. */
  shares: Float64Array;
  /** Evictable slots in eviction order: two i32 halves (low, high) of the position mask each. */
  staleMasks: Int32Array;
  /** memoryPerGpu of each evictable slot. */
  staleBytes: Float64Array;
  /** Pair-score matrix over positions (gpus × gpus), or null for a node without topology (score 0). */
  pairScores: Int32Array | null;
  /** Ranking: false = spread, true = pack. */
  pack: boolean;
  /** Most candidates to keep. */
  limit: number;
  /** Most subsets to enumerate before giving up (LIMIT_EXCEEDED). */
  budget: number;
};

/** Best candidates of one node's search, best first. */
export type PlacementFound = {
  /** Candidates kept. */
  count: number;
  /** Two i32 halves (low, high) of each candidate's position mask. */
  masks: Int32Array;
  /** Slots each candidate evicts. */
  evictCount: Int32Array;
  /** Bytes each candidate evicts in total (memoryPerGpu × GPUs spanned, summed). */
  evictedBytes: Float64Array;
  /** Topology set score of each candidate. */
  score: Int32Array;
  /** Smallest free memory left on a chosen GPU after eviction and placement. */
  remainMin: Float64Array;
  /** Free memory left on the chosen GPUs after eviction and placement, summed. */
  remainSum: Float64Array;
  /** evictions[evictStart[c] .. evictStart[c + 1]) are candidate c's evicted slots (indices into the stale list). */
  evictStart: Int32Array;
  evictions: Int32Array;
  /** 0, or the size whose enumeration would have passed the budget (nothing else is valid then). */
  overflowSize: number;
};

/**
 * Several nodes' searches in one kernel call (ClusterState.plan): the best `limit` candidates over
 * every node, by the ranking key, then the node tie-break (load, then rank), then lowest indices.
 * Memory in bytes.
 */
export type ClusterSearch = {
  /** Candidate nodes (entries 0..count-1 of the per-candidate arrays are read). */
  count: number;
  /** GPUs of each candidate. */
  gpus: Int32Array;
  /** Where each candidate's GPUs start in `free` and `total`. */
  offset: Int32Array;
  /** memoryTotal − allocated per GPU, all candidates' GPUs at their offsets. */
  free: Float64Array;
  /** memoryTotal per GPU, at the same offsets (free ≤ total must hold; read only for nodes with evictable slots). */
  total: Float64Array;
  /** Candidate i's evictable slots are entries staleStart[i] .. staleStart[i + 1] of staleMasks (pairs) and staleBytes. */
  staleStart: Int32Array;
  staleMasks: Int32Array;
  staleBytes: Float64Array;
  /** Each candidate's pair-score matrix over its positions, or null (every score 0). */
  matrices: ReadonlyArray<Int32Array | null>;
  /** Node tie-break: lower load, then lower rank, ranks first. */
  load: Float64Array;
  rank: Int32Array;
  /**
   * Each candidate's bound: no option of the node ranks before (bEv evictions, 0 bytes, bN GPUs,
   * bScore, bMetric, load, rank). A candidate whose bound ranks after the `limit` kept candidates is
   * skipped, so pass candidates best bound first.
   */
  bEv: Int32Array;
  bN: Int32Array;
  bScore: Float64Array;
  bMetric: Float64Array;
  /** Allowed sizes, ascending (a node uses those up to its GPU count), and ceil(memory / size). */
  sizes: Int32Array;
  shares: Float64Array;
  pack: boolean;
  limit: number;
  /** Most subsets one node's search may enumerate. */
  budget: number;
};

/**
 * Best candidates over the nodes of a ClusterSearch, best first; evictions index each candidate
 * node's stale list. Entries past `count` are undefined, and the arrays belong to the kernels: they
 * are valid until the next kernel call of any kind (the wasm kernels hand out views over the core's
 * scratch memory; ClusterState.plan reads them at once).
 */
export type ClusterFound = PlacementFound & {
  /** Candidate node (index into the ClusterSearch arrays) of each kept candidate. */
  node: Int32Array;
  /** With overflowSize > 0: the candidate node whose search would have passed the budget. */
  overflowNode: number;
};

/**
 * A kernel result with its fields in one fixed order, node column and overflowNode included (0 and
 * -1 for one node's search). Every result (the ts kernels', the wasm kernels' views, the empty one
 * planPlacement uses without a kernel call) is made here, so V8 gives them one hidden class and the
 * code that reads them stays monomorphic: with three shapes, a DGX-2 plan took 0.2-0.3 µs longer
 * after the other placement cases had run.
 */
export function makeFound(
  masks: Int32Array, evictCount: Int32Array, evictedBytes: Float64Array, score: Int32Array, remainMin: Float64Array, remainSum: Float64Array,
  node: Int32Array, evictStart: Int32Array, evictions: Int32Array,
): ClusterFound {
  return { count: 0, masks, evictCount, evictedBytes, score, remainMin, remainSum, node, evictStart, evictions, overflowSize: 0, overflowNode: -1 };
}

/** Kernels this capability needs. */
export interface PlacementKernels {
  /**
   * Enumerates every allowed-size subset of GPUs whose every member can take its share (after
   * evicting stale slots in order, each only while a chosen GPU lacks room and the slot frees memory
   * on such a GPU), and keeps the best `limit` by the ranking key (see compareCandidates). Entries
   * past `count` are undefined, and the arrays belong to the kernels: they are valid until the next
   * kernel call of any kind (the wasm kernels hand out views over the core's scratch memory, which
   * the next call reuses; planPlacement reads them at once).
   */
  placementSearch(search: PlacementSearch): PlacementFound;
  /** The same search over several nodes at once, merged across nodes (see ClusterSearch). */
  clusterSearch(search: ClusterSearch): ClusterFound;
}

/** Default number of options returned. */
export const DEFAULT_PLACEMENT_LIMIT = 16;
/** Largest `limit` accepted. */
export const MAX_PLACEMENT_LIMIT = 10_000;
/** Most GPU subsets one node's search may enumerate (all sizes of a 16-GPU node take 65,535). */
export const PLACEMENT_BUDGET = 1 << 22;

/** ceil(memory / n) exactly for memory < 2^53. */
export function shareOf(memory: number, n: number): number {
  let q = Math.floor(memory / n);
  while (q * n < memory) q++;
  while (q > 0 && (q - 1) * n >= memory) q--;
  return q;
}

/** Lowest-index-first comparison of two equal-size GPU sets given as mask halves: negative when a ranks first. */
export function compareMasks(aLo: number, aHi: number, bLo: number, bHi: number): number {
  if (aLo !== bLo) return lexBefore(aLo, bLo) ? -1 : 1;
  if (aHi !== bHi) return lexBefore(aHi, bHi) ? -1 : 1;
  return 0;
}

/**
 * The ranking key, written once: fewer evictions, fewer evicted bytes, fewer GPUs, higher topology
 * score, then spread (larger smallest remaining free) or pack (smaller total leftover), then lowest
 * indices. Negative when candidate a of `fa` ranks before candidate b of `fb`. The kernels use the same key.
 */
export function compareCandidates(fa: PlacementFound, a: number, fb: PlacementFound, b: number, pack: boolean, indices = true): number {
  if (fa.evictCount[a] !== fb.evictCount[b]) return fa.evictCount[a] - fb.evictCount[b];
  if (fa.evictedBytes[a] !== fb.evictedBytes[b]) return fa.evictedBytes[a] < fb.evictedBytes[b] ? -1 : 1;
  const na = popcount(fa.masks[2 * a]) + popcount(fa.masks[2 * a + 1]);
  const nb = popcount(fb.masks[2 * b]) + popcount(fb.masks[2 * b + 1]);
  if (na !== nb) return na - nb;
  if (fa.score[a] !== fb.score[b]) return fb.score[b] - fa.score[a];
  if (pack) {
    if (fa.remainSum[a] !== fb.remainSum[b]) return fa.remainSum[a] < fb.remainSum[b] ? -1 : 1;
  } else if (fa.remainMin[a] !== fb.remainMin[b]) return fa.remainMin[a] > fb.remainMin[b] ? -1 : 1;
  return indices ? compareMasks(fa.masks[2 * a], fa.masks[2 * a + 1], fb.masks[2 * b], fb.masks[2 * b + 1]) : 0;
}


/** Eviction order: lastActivity ascending (missing = oldest), then slot ID in natural order. */
export function compareEvictionOrder(a: Slot, b: Slot): number {
  const la = a.lastActivity;
  const lb = b.lastActivity;
  if (la !== lb) {
    if (la === undefined) return -1;
    if (lb === undefined) return 1;
    return la - lb;
  }
  return compareNatural(a.id, b.id);
}

/** The request fields every plan shares (planPlacement and ClusterState.plan). */
export type PlanRequest = { memory: number; model?: string; sizes?: number[]; allowEviction: boolean; pack: boolean; limit: number };

/** Validates the request part of a plan (memory, model, sizes, eviction, policy, limit). */
export function validatePlanRequest(r: Record<string, unknown>): PlanRequest {
  const memory = requireInteger('memory', r.memory, 1, LIMITS.maxBytes);
  const model = r.model === undefined ? undefined : requireString('model', r.model, LIMITS.maxIdLength);
  let sizes: number[] | undefined;
  if (r.tensorParallelSizes !== undefined) {
    const raw = requireArray('tensorParallelSizes', r.tensorParallelSizes, LIMITS.maxGpus);
    if (raw.length === 0) fail('INVALID_ARGUMENT', 'tensorParallelSizes', 'at least one size', raw);
    if (raw.length === 1 && _isCount(raw[0], LIMITS.maxGpus) && raw[0] >= 1) sizes = [raw[0]];
    else {
      const set = new Set<number>();
      raw.forEach((v, k) => set.add(requireInteger(`tensorParallelSizes[${k}]`, v, 1, LIMITS.maxGpus)));
      sizes = [...set].sort((x, y) => x - y);
    }
  }
  const allowEviction = r.allowEviction === undefined ? true : requireBoolean('allowEviction', r.allowEviction);
  const policy = r.policy === undefined ? 'spread' : requireOneOf('policy', r.policy, ['spread', 'pack'] as const, 'UNKNOWN_POLICY');
  const limit = r.limit === undefined ? DEFAULT_PLACEMENT_LIMIT : requireInteger('limit', r.limit, 1, MAX_PLACEMENT_LIMIT);
  return { memory, model, sizes, allowEviction, pack: policy === 'pack', limit };
}

/** One node, validated: positions sorted by GPU index. Memory in bytes. */
export type NodeModel = {
  /** GPU index at each position, ascending. */
  index: number[];
  total: number[];
  /** memoryUsed (memory of processes outside gpualloc's slots) per position, 0 when not given. */
  used: number[];
  slots: Slot[];
  topology?: Topology;
};

/** A non-negative integer up to `max` (what requireInteger(…, 0, max) accepts), -0 read as 0. */
function _isCount(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
}

/** A plain record (what requireObject accepts). */
function _isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `v` when it is a non-negative integer up to `max` (-0 read as 0), else requireInteger's error naming `field()`. */
function _count(v: unknown, max: number, field: () => string): number {
  if (_isCount(v, max)) return v === 0 ? 0 : v;
  return requireInteger(field(), v, 0, max);
}

/**
 * Validates GPUs, slots and topology of one node (field names prefixed by `prefix`). The checks
 * run in order and name the field that fails; names are only built for the error.
 */
export function validateNode(gpusValue: unknown, slotsValue: unknown, topologyValue: unknown, prefix: string): NodeModel {
  const rawGpus = requireArray(`${prefix}gpus`, gpusValue, LIMITS.maxGpus);
  const list: Array<{ index: number; memoryTotal: number; memoryUsed: number }> = new Array(rawGpus.length);
  const seen = new Set<number>();
  let sorted = true;
  for (let k = 0; k < rawGpus.length; k++) {
    const at = (): string => `${prefix}gpus[${k}]`;
    const raw = rawGpus[k];
    const g = _isRecord(raw) ? raw : requireObject(at(), raw);
    const index = _count(g.index, 0x7fffffff, () => `${at()}.index`);
    if (seen.has(index)) throw AllocationError.at('DUPLICATE_DEVICE', `${at()}.index`, `GPU index ${index} appears twice`);
    seen.add(index);
    if (k > 0 && list[k - 1].index > index) sorted = false;
    const memoryTotal = _count(g.memoryTotal, LIMITS.maxBytes, () => `${at()}.memoryTotal`);
    const memoryUsed = g.memoryUsed === undefined ? 0 : _count(g.memoryUsed, LIMITS.maxBytes, () => `${at()}.memoryUsed`);
    if (memoryUsed > memoryTotal) fail('INVALID_ARGUMENT', `${at()}.memoryUsed`, `at most memoryTotal (${memoryTotal})`, g.memoryUsed);
    list[k] = { index, memoryTotal, memoryUsed };
  }
  if (!sorted) list.sort((a, b) => a.index - b.index);
  let topology: Topology | undefined;
  if (topologyValue !== undefined) {
    topology = topologyFor(topologyValue, `${prefix}topology`).topology;
    for (const g of list) {
      if (g.index >= topology.gpus) throw new AllocationError('INVALID_TOPOLOGY', `${prefix}topology: GPU index ${g.index} is outside the topology of ${topology.gpus} GPUs`, { field: `${prefix}topology.gpus` });
    }
  }
  const slots = slotsValue === undefined ? [] : validateSlots(slotsValue, `${prefix}slots`, seen);
  return { index: list.map((g) => g.index), total: list.map((g) => g.memoryTotal), used: list.map((g) => g.memoryUsed), slots, topology };
}

/**
 * A node validated and packed once (Engine.prepare): its GPUs sorted by index, with memoryUsed, its
 * topology and pair-score matrix. Pass it as `node` in planPlacement instead of gpus and topology,
 * as often as needed: the engine does not copy or validate it again (slots, which change, are still
 * validated on every call). Immutable; only Engine.prepare makes one.
 */
export class PreparedNode {
  /** The node's GPUs, sorted by index (memoryUsed only where > 0). */
  readonly gpus: ReadonlyArray<Readonly<NodeGpu>>;
  /** Its validated topology, if any. */
  readonly topology?: Topology;
  /** @internal The validated node (no slots). */
  readonly _model: NodeModel;
  /** @internal Pair-score matrix over positions, or null. */
  readonly _matrix: Int32Array | null;
  /** @internal The GPU indices (slots are validated against them). */
  readonly _indices: ReadonlySet<number>;

  /** @internal Use Engine.prepare (a handle made any other way is refused). */
  constructor(token: symbol, model: NodeModel) {
    if (token !== _PREPARE) throw new AllocationError('INVALID_ARGUMENT', 'PreparedNode: made by engine.prepare({ gpus, topology }) only', { field: 'node' });
    this._model = model;
    this._matrix = positionMatrix(model.topology, model.index);
    this._indices = new Set(model.index);
    this.gpus = Object.freeze(model.index.map((index, p) => Object.freeze(model.used[p] > 0 ? { index, memoryTotal: model.total[p], memoryUsed: model.used[p] } : { index, memoryTotal: model.total[p] })));
    if (model.topology !== undefined) this.topology = model.topology;
    markEngineOwned(this);
    Object.freeze(this);
  }
}

/** Only prepareNode holds it: PreparedNode's constructor refuses any other caller. */
const _PREPARE = Symbol('prepare');

/** What Engine.prepare takes: a node's GPUs (and topology). Memory in bytes. */
export type PrepareRequest = { gpus: NodeGpu[]; topology?: Topology };

/** Validates a node once into a PreparedNode (errors name `gpus[k].…` and `topology.…`). */
export function prepareNode(request: PrepareRequest): PreparedNode {
  const r = requireObject('request', request);
  for (const key of Object.keys(r)) if (key !== 'gpus' && key !== 'topology') fail('INVALID_ARGUMENT', key, 'no such field (gpus, topology)', r[key]);
  return new PreparedNode(_PREPARE, validateNode(r.gpus, undefined, r.topology, ''));
}

/** The node of a request: a prepared node (`node`) with the request's slots, or gpus / slots / topology validated now. */
function _requestNode(r: Record<string, unknown>): { node: NodeModel; matrix: Int32Array | null } {
  if (r.node === undefined) {
    const base = validateNode(r.gpus, undefined, r.topology, '');
    const node = r.slots === undefined ? base : { ...base, slots: _validateCallerSlots(r.slots, 'slots', new Set(base.index)) };
    return { node, matrix: positionMatrix(node.topology, node.index) };
  }
  if (!(r.node instanceof PreparedNode)) fail('INVALID_ARGUMENT', 'node', 'a prepared node (engine.prepare({ gpus, topology }))', r.node);
  if (r.gpus !== undefined || r.topology !== undefined) fail('INVALID_ARGUMENT', r.gpus !== undefined ? 'gpus' : 'topology', 'nothing next to a prepared node (its GPUs and topology are in it)', r.gpus ?? r.topology);
  const prepared = r.node;
  const slots = r.slots === undefined ? [] : _validateCallerSlots(r.slots, 'slots', prepared._indices);
  return { node: { ...prepared._model, slots }, matrix: prepared._matrix };
}

/** What planPlacement derives from a node for one model and eviction setting. Memory in bytes. */
type _NodeState = {
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
function _nodeState(node: NodeModel, model: string | undefined, allowEviction: boolean): _NodeState {
  const n = node.index.length;
  const index = node.index;
  const slots = node.slots;
  const stale = allowEviction ? slots.filter((s) => isEvictable(s, model)).sort(compareEvictionOrder) : [];
  const S = stale.length;
  const free = _free.f64(n);
  const total = _total.f64(n);
  for (let p = 0; p < n; p++) free[p] = total[p] = node.total[p] - node.used[p];
  const maxBytes = LIMITS.maxBytes;
  for (let k = 0; k < slots.length; k++) {
    const s = slots[k];
    for (const g of s.gpus) {
      const p = _position(index, g);
      free[p] -= s.memoryPerGpu;
      if (total[p] - free[p] > maxBytes) fail('LIMIT_EXCEEDED', `slots`, `at most ${maxBytes} bytes allocated on GPU ${g}`, total[p] - free[p]);
    }
  }
  const staleMasks = _stale.i32(2 * S);
  const staleBytes = _stale.f64(S);
  const evictable = _evictable.f64(n, true);
  for (let k = 0; k < S; k++) {
    const s = stale[k];
    let lo = 0;
    let hi = 0;
    for (const g of s.gpus) {
      const p = _position(index, g);
      if (p < 32) lo |= 1 << p;
      else hi |= 1 << (p - 32);
      evictable[p] += s.memoryPerGpu;
    }
    staleMasks[2 * k] = lo;
    staleMasks[2 * k + 1] = hi;
    staleBytes[k] = s.memoryPerGpu;
  }
  const potential = potentialOf(n, free, staleMasks, staleBytes, _potential.f64(n));
  return { free, total, stale, staleMasks, staleBytes, evictable, potential };
}

/** Validates a slot list against the node's GPU indices; returns copies. */
export function validateSlots(value: unknown, field: string, indices: ReadonlySet<number>, ids: Set<string> = new Set()): Slot[] {
  const raw = requireArray(field, value, LIMITS.maxSlotsPerNode);
  const length = raw.length;
  const out: Slot[] = new Array(length);
  for (let k = 0; k < length; k++) out[k] = validateSlot(raw[k], field, k, indices, ids);
  return out;
}

/**
 * Validates slot `k` of the list `field` against the node's GPU indices and returns a copy; `ids`
 * collects slot IDs to catch duplicates. The checks run in order and name the field that fails
 * (`field[k].gpus[1]`); names are only built for the error.
 */
export function validateSlot(value: unknown, field: string, k: number, indices: ReadonlySet<number>, ids: Set<string>): Slot {
  // Field names are only built for an error (no closure per slot: this runs for every slot of every call).
  const s = _isRecord(value) ? value : requireObject(`${field}[${k}]`, value);
  // Each field read once: the caller's slots may reach here uncopied (planPlacement), and a getter
  // or proxy must not answer differently between the check and the use.
  const idV = s.id;
  const gpusV = s.gpus;
  const memoryV = s.memoryPerGpu;
  const modelV = s.model;
  const lastV = s.lastActivity;
  const staleV = s.stale;
  const milliV = s.milli;
  const cpuV = s.cpu;
  const hostV = s.hostMemory;
  const maxId = LIMITS.maxIdLength;
  const id = typeof idV === 'string' && idV.length <= maxId ? idV : requireString(`${field}[${k}].id`, idV, maxId);
  if (ids.has(id)) throw AllocationError.at('DUPLICATE_SLOT', `${field}[${k}].id`, `slot ID ${describeValue(id)} appears twice`);
  ids.add(id);
  const gpusRaw = Array.isArray(gpusV) ? gpusV : requireArray(`${field}[${k}].gpus`, gpusV, LIMITS.maxGpus);
  const length = gpusRaw.length;
  if (length > LIMITS.maxGpus) requireArray(`${field}[${k}].gpus`, gpusRaw, LIMITS.maxGpus);
  if (length === 0 && cpuV === undefined && hostV === undefined) fail('INVALID_ARGUMENT', `${field}[${k}].gpus`, 'at least one GPU index (or cpu / hostMemory for a slot without GPUs)', gpusRaw);
  const gpus: number[] = new Array(length);
  let sorted = true;
  for (let j = 0; j < length; j++) {
    const raw: unknown = gpusRaw[j];
    const idx = _isCount(raw, 0x7fffffff) ? (raw === 0 ? 0 : raw) : requireInteger(`${field}[${k}].gpus[${j}]`, raw, 0, 0x7fffffff);
    if (!indices.has(idx)) throw AllocationError.at('UNKNOWN_DEVICE_ID', `${field}[${k}].gpus[${j}]`, `GPU index ${idx} is not one of the node's GPUs`);
    for (let i = 0; i < j; i++) if (gpus[i] === idx) throw AllocationError.at('DUPLICATE_DEVICE', `${field}[${k}].gpus[${j}]`, `GPU index ${idx} appears twice`);
    if (j > 0 && gpus[j - 1] > idx) sorted = false;
    gpus[j] = idx;
  }
  if (!sorted) gpus.sort((a, b) => a - b);
  const memoryPerGpu = _isCount(memoryV, LIMITS.maxBytes) ? (memoryV === 0 ? 0 : memoryV) : requireInteger(`${field}[${k}].memoryPerGpu`, memoryV, 0, LIMITS.maxBytes);
  if (length === 0 && memoryPerGpu !== 0) fail('INVALID_ARGUMENT', `${field}[${k}].memoryPerGpu`, '0 (the slot has no GPUs)', memoryV);
  const slot: Slot = { id, gpus, memoryPerGpu };
  if (milliV !== undefined) {
    if (length === 0) fail('INVALID_ARGUMENT', `${field}[${k}].milli`, 'no share (the slot has no GPUs)', milliV);
    slot.milli = requireInteger(`${field}[${k}].milli`, milliV, 1, 1000);
  }
  if (cpuV !== undefined) slot.cpu = requireInteger(`${field}[${k}].cpu`, cpuV, 0, LIMITS.maxMilliCpu);
  if (hostV !== undefined) slot.hostMemory = requireInteger(`${field}[${k}].hostMemory`, hostV, 0, LIMITS.maxBytes);
  if (modelV !== undefined) slot.model = typeof modelV === 'string' && modelV.length <= maxId ? modelV : requireString(`${field}[${k}].model`, modelV, maxId);
  if (lastV !== undefined) {
    if (typeof lastV !== 'number' || !Number.isFinite(lastV)) fail('INVALID_ARGUMENT', `${field}[${k}].lastActivity`, 'a finite number (ms since the epoch)', lastV);
    slot.lastActivity = lastV;
  }
  if (staleV !== undefined) slot.stale = typeof staleV === 'boolean' ? staleV : requireBoolean(`${field}[${k}].stale`, staleV);
  return slot;
}

/**
 * validateSlots on slots that may come uncopied from the caller (planPlacement). On an error, the
 * slots are read again as a copy (readInput) and that copy's error is thrown: the same error, path
 * and rendering as for copied input, and anything a getter or proxy throws becomes an
 * AllocationError naming the path. Errors only: a valid list is read once.
 */
function _validateCallerSlots(value: unknown, field: string, indices: ReadonlySet<number>): Slot[] {
  try {
    return validateSlots(value, field, indices);
  } catch (error) {
    const copy = readInput(field, value);
    validateSlots(copy, field, indices);
    throw readError(field, error);
  }
}

/** The pair-score matrix over a node's positions (null without topology). */
export function positionMatrix(topology: Topology | undefined, index: readonly number[]): Int32Array | null {
  if (topology === undefined) return null;
  const full = pairScoreMatrix(topology);
  const n = index.length;
  let identity = topology.gpus === n;
  for (let p = 0; identity && p < n; p++) identity = index[p] === p;
  if (identity) return full;
  const m = new Int32Array(n * n);
  for (let p = 0; p < n; p++) for (let q = 0; q < n; q++) m[p * n + q] = p === q ? 0 : full[index[p] * topology.gpus + index[q]];
  return m;
}

/** The sizes to try on a node of `gpus` GPUs: the requested ones that fit, or 1..gpus. */
export function sizesFor(request: PlanRequest, gpus: number): number[] {
  if (request.sizes === undefined) return Array.from({ length: gpus }, (_, k) => k + 1);
  return request.sizes.filter((n) => n <= gpus);
}

/** True when the slot may be evicted for this request: stale, and not of the same model. */
export function isEvictable(slot: Slot, model: string | undefined): boolean {
  return slot.stale === true && (model === undefined || slot.model !== model);
}

/**
 * formatBytes, remembered in a direct-mapped table of 1,024 entries (a byte count's slot comes from a
 * hash of its two 32-bit halves; a new count takes the slot over): plans format the same sizes again
 * and again, and a lookup here costs about half of a Map's with number keys.
 */
const _formattedKeys = new Float64Array(1024).fill(NaN);
const _formattedTexts: string[] = new Array<string>(1024).fill('');
function formatBytesMemo(bytes: number): string {
  const slot = Math.imul((bytes >>> 0) ^ ((bytes / 4294967296) | 0), 0x9e3779b1) >>> 22;
  // NaN never equals itself, so an empty slot (or NaN bytes) always formats.
  if (_formattedKeys[slot] === bytes) return _formattedTexts[slot];
  const text = formatBytes(bytes);
  _formattedKeys[slot] = bytes;
  _formattedTexts[slot] = text;
  return text;
}

/**
 * Per-position availability used by rejections: memoryTotal, free memory and what eviction could add
 * (null: nothing). `used`: memoryUsed per position (null: none); a GPU with used memory that cannot
 * take its share says how much is in use by other processes (never evictable).
 */
export function rejectionsFor(index: readonly number[], total: ArrayLike<number>, free: ArrayLike<number>, evictable: ArrayLike<number> | null, memory: number, sizes: readonly number[], node?: string, out: Rejection[] = [], used: ArrayLike<number> | null = null): Rejection[] {
  const format = formatBytesMemo;
  if (sizes.length === 0) return out;
  const n = sizes[sizes.length - 1];
  const share = shareOf(memory, n);
  const where = node === undefined ? '' : ` on node ${node}`;
  // The message tails that name the share, formatted at the first rejection (most plans that find options have none).
  let inAll: string | undefined;
  let shortBy: string | undefined;
  for (let p = 0; p < index.length; p++) {
    if (total[p] < share) {
      inAll ??= ` in all, less than its share ${format(share)} (1/${n} of ${format(memory)})`;
      const head = `GPU ${index[p]}${where}: has ${format(total[p])}`;
      const r: Rejection = { gpu: index[p], code: 'GPU_TOO_SMALL', message: head + inAll, shortBy: share - total[p] };
      if (node !== undefined) r.node = node;
      out.push(r);
      continue;
    }
    const e = evictable === null ? 0 : evictable[p];
    const avail = free[p] + e;
    if (avail < share) {
      shortBy ??= `, less than its share ${format(share)} (1/${n} of ${format(memory)}); short by `;
      let head = `GPU ${index[p]}${where}: can free ${format(avail)}`;
      const u = used === null ? 0 : used[p];
      if (e > 0 && u > 0) head = `${head} (${format(e)} of it by evicting stale slots; ${format(u)} in use by other processes)`;
      else if (e > 0) head = `${head} (${format(e)} of it by evicting stale slots)`;
      else if (u > 0) head = `${head} (${format(u)} in use by other processes)`;
      const r: Rejection = { gpu: index[p], code: 'INSUFFICIENT_MEMORY', message: head + shortBy + format(share - avail), shortBy: share - avail };
      if (node !== undefined) r.node = node;
      out.push(r);
    }
  }
  return out;
}

/** The GPU indices of a kernel result's candidate `c`: the set bits of its mask, lowest first. */
function _optionGpus(found: PlacementFound, c: number, index: readonly number[]): number[] {
  const lo0 = found.masks[2 * c];
  const hi0 = found.masks[2 * c + 1];
  // An array of its final length (growing an empty one by push costs a third more here).
  const gpus: number[] = new Array(popcount(lo0) + popcount(hi0));
  let j = 0;
  for (let lo = lo0; lo !== 0; lo &= lo - 1) gpus[j++] = index[ctz(lo)];
  for (let hi = hi0; hi !== 0; hi &= hi - 1) gpus[j++] = index[32 + ctz(hi)];
  return gpus;
}

/** The IDs of the stale slots a kernel result's candidate `c` evicts, in eviction order. */
function _optionEvict(found: PlacementFound, c: number, stale: readonly Slot[]): string[] {
  const e0 = found.evictStart[c];
  const e1 = found.evictStart[c + 1];
  const evict: string[] = e1 === e0 ? [] : new Array(e1 - e0);
  for (let k = e0; k < e1; k++) evict[k - e0] = stale[found.evictions[k]].id;
  return evict;
}

/**
 * Turns a kernel result's candidate into a public option (nodeOptionOf adds the node). Literals, not
 * a spread of a built-up head: V8 clones such objects on a slow path (microseconds each); and one
 * function per shape: one that also chose whether to name a node took a fifth longer per option.
 */
export function optionOf(found: PlacementFound, c: number, index: readonly number[], memory: number, stale: readonly Slot[], model: string | undefined): PlacementOption {
  const gpus = _optionGpus(found, c, index);
  const evict = _optionEvict(found, c, stale);
  const memoryPerGpu = shareOf(memory, gpus.length);
  const score = found.score[c];
  return model !== undefined ? { model, gpus, memoryPerGpu, evict, score } : { gpus, memoryPerGpu, evict, score };
}

/** optionOf for a cluster plan: the option names its node. */
export function nodeOptionOf(found: PlacementFound, c: number, index: readonly number[], memory: number, stale: readonly Slot[], model: string | undefined, node: string): PlacementOption {
  const gpus = _optionGpus(found, c, index);
  const evict = _optionEvict(found, c, stale);
  const memoryPerGpu = shareOf(memory, gpus.length);
  const score = found.score[c];
  return model !== undefined ? { node, model, gpus, memoryPerGpu, evict, score } : { node, gpus, memoryPerGpu, evict, score };
}

/** Runs the kernel and turns a budget overflow into LIMIT_EXCEEDED. */
export function runSearch(kernels: PlacementKernels, search: PlacementSearch): PlacementFound {
  const found = kernels.placementSearch(search);
  if (found.overflowSize > 0) throw budgetError(found.overflowSize, search.gpus);
  return found;
}

/** LIMIT_EXCEEDED for a search whose size `size` on a node of `gpus` GPUs passed the budget. */
export function budgetError(size: number, gpus: number): AllocationError {
  return AllocationError.at('LIMIT_EXCEEDED', 'tensorParallelSizes', [`size ${size} on a node of ${gpus} GPUs needs more than ${PLACEMENT_BUDGET} GPU subsets; restrict `, { field: ['tensorParallelSizes'] }]);
}

/** Mask halves of a list of positions. */
export function maskOf(positions: Iterable<number>): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const p of positions) {
    if (p < 32) lo |= 1 << p;
    else hi |= 1 << (p - 32);
  }
  return [lo, hi];
}

/**
 * Typed arrays of one exact length, reused from call to call by planPlacement (a typed array of more
 * than 64 bytes costs a separate allocation of its memory: several hundred ns each). planPlacement
 * runs no caller code and keeps none of them past its return, so one set serves every call.
 */
class _Scratch {
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
const _potential = new _Scratch(256);
const _free = new _Scratch(256);
const _total = new _Scratch(256);
const _evictable = new _Scratch(256);
const _stale = new _Scratch(256);
const _sizes = new _Scratch(256);


/**
 * What a search that enumerates nothing finds. Not frozen (a frozen object has a hidden class of its
 * own, see makeFound); nothing writes to it. Exported for its shape test.
 */
export const NOTHING_FOUND: PlacementFound = makeFound(new Int32Array(0), new Int32Array(0), new Float64Array(0), new Int32Array(0), new Float64Array(0), new Float64Array(0), new Int32Array(0), new Int32Array(1), new Int32Array(0));

/**
 * planPlacement's request on a prepared node (Engine.prepare): `node` instead of gpus and topology.
 * Slots still go with each request.
 */
export type PreparedPlacementRequest = Omit<PlacementRequest, 'gpus' | 'topology'> & { node: PreparedNode };

/** Plans every viable option on one node, best first, with per-GPU rejections. */
export function planPlacement(kernels: PlacementKernels, request: PlacementRequest | PreparedPlacementRequest): PlacementPlan {
  const r = requireObject('request', request);
  const { node, matrix } = _requestNode(r);
  const req = validatePlanRequest(r);
  const n = node.index.length;
  const index = node.index;
  const { free, total, stale, staleMasks, staleBytes, evictable, potential } = _nodeState(node, req.model, req.allowEviction);
  const sizeList = sizesFor(req, n);
  const sizes = _sizes.i32(sizeList.length);
  const shares = _sizes.f64(sizeList.length);
  for (let k = 0; k < sizeList.length; k++) {
    sizes[k] = sizeList[k];
    shares[k] = shareOf(req.memory, sizeList[k]);
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
  const rejected = rejectionsFor(index, node.total, free, evictable, req.memory, sizeList, undefined, [], node.used);
  const plan: PlacementPlan = { options, rejected };
  if (options.length === 0) plan.reason = noOptionReason(req.memory, sizeList.length === 0 ? null : sizeList.join(', '), n, rejected.length);
  return plan;
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
    const size = sizes[si];
    if (size > n) break;
    const share = shares[si];
    for (let p = 0; p < n; p++) if (total[p] >= share && potential[p] >= share) return true;
  }
  return false;
}

/**
 * Free memory plus the bytes of every evictable slot, per position of `n`, into `out`: summed stale
 * slot by stale slot, the kernels' order (so anyGpuEligible and the kernels agree to the last bit).
 */
export function potentialOf(n: number, free: ArrayLike<number>, staleMasks: ArrayLike<number>, staleBytes: ArrayLike<number>, out: Float64Array): Float64Array {
  for (let p = 0; p < n; p++) out[p] = free[p];
  for (let k = 0; k < staleBytes.length; k++) {
    const lo = staleMasks[2 * k];
    const hi = staleMasks[2 * k + 1];
    for (let p = 0; p < n; p++) if (((p < 32 ? lo >>> p : hi >>> (p - 32)) & 1) !== 0) out[p] += staleBytes[k];
  }
  return out;
}

/** Position of GPU index `g` in the ascending `index` (it is there: slots were validated against it). */
function _position(index: readonly number[], g: number): number {
  let lo = 0;
  let hi = index.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (index[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The reason of an empty plan. */
export function noOptionReason(memory: number, sizes: string | null, gpus: number, rejectedCount: number, of?: { listed: number; nodes: number }): Reason {
  if (sizes === null) return { code: 'INSUFFICIENT_DEVICES', message: `no allowed tensor-parallel size fits ${gpus} GPUs` };
  const counted = of === undefined ? `${rejectedCount}/${gpus} GPUs cannot take their share` : `${rejectedCount}/${gpus} GPUs of the first ${of.listed} of ${of.nodes} nodes cannot take their share`;
  return { code: 'NO_VIABLE_OPTION', message: `no set of ${sizes} GPUs has room for ${formatBytes(memory)}, even after allowed evictions (${counted})` };
}
