// The shared types of model placement: slots, options, rejections, node GPUs and plans (what the
// cluster, fleet, store and CLI rooms import), the kernel search's input and output, and the limits
// every plan shares. planPlacement itself is in index.ts, the room's front.

import type { Topology } from '../hardware/topology.js';
import type { Reason, ReasonCode } from '../shared/errors.js';
import { keysOf } from '../shared/validate.js';

/**
 * Work already placed on GPUs. memoryPerGpu in bytes; lastActivity in ms since the epoch. A pod's
 * slot (src/fleet/scheduler.ts) also has `milli`, its share of each of its GPUs in milli-GPU
 * (1..1000; it is charged memoryPerGpu = floor(milli × memoryTotal / 1000) bytes per GPU), and `cpu`
 * (milli-CPU) and `hostMemory` (bytes) held on the node. A slot has no GPUs (memoryPerGpu 0) only
 * when it holds cpu or hostMemory (a CPU-only pod).
 */
export type Slot = {
  id: string;
  model?: string;
  gpus: number[];
  memoryPerGpu: number;
  lastActivity?: number;
  stale?: boolean;
  milli?: number;
  cpu?: number;
  hostMemory?: number;
  /**
   * A model placed across several nodes (pipeline stages): every part of the one slot, in order. The
   * slot is listed on each of those nodes with that node's `gpus` and `memoryPerGpu`; it is
   * released, marked stale, touched and evicted as one.
   */
  parts?: SlotPart[];
};

/** One node's share of a slot or an option that spans several nodes: its GPUs there and the bytes on each. */
export type SlotPart = { node: string; gpus: number[]; memoryPerGpu: number };

/** The keys of a SlotPart. */
export const SLOT_PART_KEYS = keysOf<SlotPart>()(['node', 'gpus', 'memoryPerGpu']);

/**
 * One way to place the model (or a pod). memoryPerGpu in bytes; score is the topology set score of
 * `gpus` (a pod's option: its policy score). `milli`, `cpu` (milli-CPU) and `hostMemory` (bytes)
 * become the slot's fields of the same names (see Slot); commit checks them against the node.
 */
export type PlacementOption = {
  node?: string;
  model?: string;
  gpus: number[];
  memoryPerGpu: number;
  evict: string[];
  score: number;
  milli?: number;
  cpu?: number;
  hostMemory?: number;
  /**
   * An option across several nodes (ClusterState.plan, a model no node holds alone): one part per
   * node, each of `tensorParallel` GPUs, `pipelineParallel` parts in all. Such an option has no
   * `node`, `gpus` is empty and `evict` too; memoryPerGpu is what every GPU of every part holds, and
   * score the parts' topology set scores summed.
   */
  parts?: SlotPart[];
  /** With `parts`: the tensor-parallel size (GPUs of each part). */
  tensorParallel?: number;
  /** With `parts`: the pipeline-parallel size (the number of parts, one per node). */
  pipelineParallel?: number;
};

/** The keys of a PlacementOption (ClusterState.commit rejects any other). */
export const PLACEMENT_OPTION_KEYS = keysOf<PlacementOption>()([
  'node',
  'model',
  'gpus',
  'memoryPerGpu',
  'evict',
  'score',
  'milli',
  'cpu',
  'hostMemory',
  'parts',
  'tensorParallel',
  'pipelineParallel',
]);

/** Why a GPU cannot take its share (REASON_CODES). shortBy in bytes. */
export type Rejection = { node?: string; gpu: number; code: RejectionCode; message: string; shortBy?: number };

/** Why one GPU cannot take a share (a subset of the reason codes). */
export type RejectionCode = Extract<ReasonCode, 'MIG_MODE' | 'GPU_TOO_SMALL' | 'INSUFFICIENT_MEMORY' | 'GPU_LOST'>;

/** spread: keep the most free memory on the fullest chosen GPU; pack: leave the least memory over on the chosen GPUs. */
export type PlacementPolicy = 'spread' | 'pack';

/**
 * One GPU of a node. Memory in bytes. memoryUsed (default 0, at most memoryTotal) is memory held by
 * processes outside gpualloc's slots: it is never evicted, so a GPU's free memory is memoryTotal −
 * memoryUsed − the memoryPerGpu of the slots on it. `mig: true` marks a GPU in MIG mode: plans
 * leave it out (rejection MIG_MODE) unless the request sets allowMig, since its slices, not the
 * whole GPU, are what it hands out (gpualloc replicas allocates them).
 */
export type NodeGpu = { index: number; memoryTotal: number; memoryUsed?: number; mig?: boolean };

/** Request of planPlacement (README: "Placing models by memory"). Memory in bytes. */
export type PlacementRequest = {
  gpus: readonly NodeGpu[];
  slots?: readonly Slot[];
  topology?: Topology;
  memory: number;
  model?: string;
  tensorParallelSizes?: readonly number[];
  allowEviction?: boolean;
  /** Let GPUs in MIG mode (NodeGpu.mig) take the model as whole GPUs (default false: they are rejected with MIG_MODE). */
  allowMig?: boolean;
  policy?: PlacementPolicy;
  limit?: number;
};

/** The keys of a plan request that are not the node (ClusterState.plan takes these only). */
export const PLAN_REQUEST_KEYS = keysOf<Omit<PlacementRequest, 'gpus' | 'slots' | 'topology'>>()(['memory', 'model', 'tensorParallelSizes', 'allowEviction', 'allowMig', 'policy', 'limit']);

/** The keys of planPlacement's request: on plain GPUs (gpus, slots, topology) or on a prepared node (node, slots). */
export const PLACEMENT_REQUEST_KEYS: readonly string[] = Object.freeze([...PLAN_REQUEST_KEYS, 'gpus', 'slots', 'topology', 'node']);

/** The keys of a NodeGpu. */
export const NODE_GPU_KEYS = keysOf<NodeGpu>()(['index', 'memoryTotal', 'memoryUsed', 'mig']);

/** The keys of a Slot. */
export const SLOT_KEYS = keysOf<Slot>()(['id', 'model', 'gpus', 'memoryPerGpu', 'lastActivity', 'stale', 'milli', 'cpu', 'hostMemory', 'parts']);

/** The keys of a PrepareRequest. */
export const PREPARE_REQUEST_KEYS = keysOf<PrepareRequest>()(['gpus', 'topology']);

/**
 * Ranked options (best first) and per-GPU rejections; `reason` is set exactly when there is no option
 * (narrow on it: `if (plan.reason) …` leaves `options: []`).
 */
export type PlacementPlan = { options: PlacementOption[]; rejected: Rejection[]; reason?: undefined } | { options: []; rejected: Rejection[]; reason: Reason };

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
  masks: Int32Array,
  evictCount: Int32Array,
  evictedBytes: Float64Array,
  score: Int32Array,
  remainMin: Float64Array,
  remainSum: Float64Array,
  node: Int32Array,
  evictStart: Int32Array,
  evictions: Int32Array,
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

/** The request fields every plan shares (planPlacement and ClusterState.plan). */
export type PlanRequest = { memory: number; model?: string; sizes?: number[]; allowEviction: boolean; allowMig: boolean; pack: boolean; limit: number };

/** One node, validated: positions sorted by GPU index. Memory in bytes. */
export type NodeModel = {
  /** GPU index at each position, ascending. */
  index: number[];
  total: number[];
  /** memoryUsed (memory of processes outside gpualloc's slots) per position, 0 when not given. */
  used: number[];
  /** Per position: true for a GPU in MIG mode; undefined when the node has none. */
  mig?: boolean[];
  slots: Slot[];
  topology?: Topology;
};

/** What Engine.prepare takes: a node's GPUs (and topology). Memory in bytes. */
export type PrepareRequest = { gpus: readonly NodeGpu[]; topology?: Topology };

/**
 * What a search that enumerates nothing finds. Not frozen (a frozen object has a hidden class of its
 * own, see makeFound); nothing writes to it. Exported for its shape test.
 */
export const NOTHING_FOUND: PlacementFound = makeFound(
  new Int32Array(0),
  new Int32Array(0),
  new Float64Array(0),
  new Int32Array(0),
  new Float64Array(0),
  new Float64Array(0),
  new Int32Array(0),
  new Int32Array(1),
  new Int32Array(0),
);
