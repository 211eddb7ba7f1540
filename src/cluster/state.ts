// ClusterState: plan and commit placements across nodes without over-scheduling (the Helix
// "execution" method). Per-GPU memory lives in flat typed arrays; commit re-validates atomically.
import { AllocationError } from '../shared/errors.js';
import type { Inventory } from '../hardware/inventory.js';
import { nodeFromInventory, type ClusterNode } from './node.js';
import { TopologyClasses, type ScoreLevel } from './classes.js';
import { FreeIndex, type LevelTree } from './free-index.js';
import { StaleIndex } from './stale-index.js';
import type { Kernels } from '../kernels.js';
import { LIMITS } from '../shared/limits.js';
import { binomial, ctz } from '../shared/bits.js';
import { sortLargestFirst } from './sort.js';
import { shareBytes } from './share.js';
import {
  budgetError, compareEvictionOrder, isEvictable, maskOf, nodeOptionOf, noOptionReason, PLACEMENT_BUDGET, positionMatrix,
  PLACEMENT_OPTION_KEYS, rejectionsFor, shareOf, sizesFor, validateNode, validatePlanRequest, validateSlots,
  type ClusterSearch, type NodeGpu, type PlacementOption, type PlacementPlan, type PlacementRequest, type Slot,
} from '../placement/index.js';
import { compareNatural } from '../shared/natural-order.js';
import type { Link, Topology } from '../hardware/topology.js';
import { formatBytes } from '../shared/units.js';
import { describeValue, fail, keysOf, readInput, rejectUnknownKeys, requireArray, requireInteger, requireObject, requireString, type KeyShapeOf } from '../shared/validate.js';

import { createPodScheduler, type PodScheduler, type PodSchedulerOptions } from '../fleet/scheduler.js';

export type { ClusterNode } from './node.js';

/** Initial nodes of a cluster state, or one inventory (a single node named after its host). */
export type ClusterInit = { nodes: ClusterNode[] } | Inventory;

/** What `state.plan` takes: planPlacement's request without gpus, slots and topology. */
export type ClusterPlanRequest = Omit<PlacementRequest, 'gpus' | 'slots' | 'topology'>;

/** toJSON's output: everything needed to restore the state exactly (a node's cpu, hostMemory and gpuModel only when set). */
export type ClusterStateJSON = { version: 1; nextSlot: number; nodes: Array<{ id: string; gpus: NodeGpu[]; topology?: Topology; slots: Slot[]; cpu?: number; hostMemory?: number; gpuModel?: string }> };

/** One node of ClusterStateJSON. */
type _NodeJSON = ClusterStateJSON['nodes'][number];

/**
 * The keys of a state as toJSON writes it, and only those (checked against ClusterStateJSON at build
 * time): restore and the strict readers of state files (JsonFileStore, the CLI) reject any other.
 */
export const CLUSTER_STATE_KEYS = {
  version: null,
  nextSlot: null,
  nodes: {
    id: null,
    gpus: { index: null, memoryTotal: null, memoryUsed: null } satisfies KeyShapeOf<NodeGpu>,
    topology: { gpus: null, links: { a: null, b: null, pcie: null, nvlink: null } satisfies KeyShapeOf<Link> } satisfies KeyShapeOf<Topology>,
    slots: { id: null, model: null, gpus: null, memoryPerGpu: null, lastActivity: null, stale: null, milli: null, cpu: null, hostMemory: null } satisfies KeyShapeOf<Slot>,
    cpu: null, hostMemory: null, gpuModel: null,
  } satisfies KeyShapeOf<_NodeJSON>,
} as const satisfies KeyShapeOf<ClusterStateJSON>;

/** Options of commit: the new slot's ID (default `slot-<n>`) and lastActivity (ms since the epoch). */
export type CommitOptions = { id?: string; lastActivity?: number };

/** The keys of CommitOptions. */
const COMMIT_OPTION_KEYS = keysOf<CommitOptions>()(['id', 'lastActivity']);

/**
 * Memory of one GPU, in bytes: allocated is what gpualloc's slots hold; memoryUsed (present only when
 * > 0) is what processes outside the slots hold.
 */
export type GpuUsage = { node: string; gpu: number; memoryTotal: number; allocated: number; memoryUsed?: number };

/**
 * A plan with no option lists the per-GPU rejections of at most this many nodes (the first, in the
 * order given), and its reason counts theirs. Listing every GPU of 50,000 nodes took about a second
 * per failed plan, and even counting them grew with the node count.
 */
export const CLUSTER_REJECTED_NODES = 64;

/** The keys a node, a GPU and a slot of a state may have (load); any other is an error. */
const NODE_KEYS = Object.keys(CLUSTER_STATE_KEYS.nodes);
const GPU_KEYS = Object.keys(CLUSTER_STATE_KEYS.nodes.gpus);
const SLOT_KEYS = Object.keys(CLUSTER_STATE_KEYS.nodes.slots);

/** Fails naming the first key of `value` (when a plain object) not in `keys`. */
function onlyKeys(value: unknown, keys: readonly string[], field: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  rejectUnknownKeys(field, value as Record<string, unknown>, keys);
}

/** Schema version of toJSON's output. */
export const CLUSTER_STATE_VERSION = 1;

/** @internal What ClusterState tells an attached pod scheduler (src/fleet/scheduler.ts). */
export interface NodeListener {
  /** Node `node` (index in the state's node order) changed: re-read it. */
  _sync(node: number): void;
}

type SlotRecord = { slot: Slot; node: number; positions: number[]; lo: number; hi: number };

/** Shared empty slot list. */
const NO_SLOTS: Slot[] = [];
/** Shared empty level list (a class with no node, or too few GPUs, for a size). */
const NO_LEVELS: readonly ScoreLevel[] = [];

/** Holds GPUs and slots of one or many nodes; every change keeps each GPU's allocated memory within its total. */
export class ClusterState {
  private readonly kernels: Kernels;
  private readonly nodeIds: string[] = [];
  private readonly nodeOf = new Map<string, number>();
  private readonly topologies: Array<Topology | undefined> = [];
  private readonly indices: number[][] = [];
  private gpuStart!: Int32Array;
  private total!: Float64Array;
  /** memoryUsed per GPU: memory held by processes outside gpualloc's slots (never evicted). */
  private used!: Float64Array;
  /** memoryTotal − memoryUsed per GPU: what slots may ever hold (the kernels' `total`). */
  private capacity!: Float64Array;
  private free!: Float64Array;
  private freeViews: Float64Array[] = [];
  private totalViews: Float64Array[] = [];
  private usedViews: Float64Array[] = [];
  private nodeTotal!: Float64Array;
  private nodeAllocated!: Float64Array;
  /** (memoryTotal − free) / memoryTotal of each node, slots and used memory alike (the node tie-break). */
  private nodeLoad!: Float64Array;
  /** Per-plan scratch: each node's bound (evictions, GPUs, score, policy metric). */
  private bounds!: { bEv: Int32Array; bN: Int32Array; bScore: Float64Array; bMetric: Float64Array };
  private nodeStale!: Int32Array;
  /** Each node's free memory per GPU, largest first (same offsets as `free`): bounds a node's best option without a search. */
  private sortedFree!: Float64Array;
  /** Position of each node ID in natural order (the last tie-break across nodes). */
  private nodeRank!: Int32Array;
  /** Topology class of each node (same GPU count and pair-score matrix; 0: no topology). */
  private classOf!: Int32Array;
  private readonly classes = new TopologyClasses();
  /** Per plan: the score and policy metric of one option each taken node is known to have (see plan). */
  private gScore!: Float64Array;
  private gMetric!: Float64Array;
  private readonly slots = new Map<string, SlotRecord>();
  /** Allocatable CPU (milli-CPU) and host memory (bytes) of each node; -1: not tracked. */
  private nodeCpu!: Float64Array;
  private nodeHostMemory!: Float64Array;
  /** CPU (milli-CPU) and host memory (bytes) the slots of each node hold. */
  private cpuHeld!: Float64Array;
  private hostMemoryHeld!: Float64Array;
  private readonly gpuModels: Array<string | undefined> = [];
  /** Pod schedulers attached to this state (podScheduler): told of every change to a node. */
  private readonly attached = new Set<NodeListener>();
  private readonly nodeSlots: Array<Set<string>> = [];
  private readonly staleOrder: Array<Slot[] | undefined> = [];
  private nextSlot = 1;
  /** Free-memory trees per topology class and GPU position (see FreeIndex). */
  private freeIndex!: FreeIndex;
  /** What each node's stale slots could free, per topology class and size (see StaleIndex). */
  private staleIndex!: StaleIndex;
  /** refreshNode's per-GPU scratch: memory held by the node's stale slots. */
  private evictableScratch = new Float64Array(0);
  /** Per-plan list of the nodes the stale index returns. */
  private readonly staleFound: number[] = [];
  /** Most GPUs of a node. */
  private maxWidth = 0;
  /** evictionBound's per-GPU scratch. */
  private potentialScratch = new Float64Array(0);
  /** Per-plan marks (plan number) of nodes already taken from the trees. */
  private taken!: Int32Array;
  private planNumber = 0;
  /** Per-plan scratch of the kernel input, grown on demand. */
  private readonly search: ClusterSearch = {
    count: 0, gpus: new Int32Array(16), offset: new Int32Array(16), free: new Float64Array(0), total: new Float64Array(0),
    staleStart: new Int32Array(17), staleMasks: new Int32Array(0), staleBytes: new Float64Array(0), matrices: [],
    load: new Float64Array(16), rank: new Int32Array(16), bEv: new Int32Array(16), bN: new Int32Array(16),
    bScore: new Float64Array(16), bMetric: new Float64Array(16), sizes: new Int32Array(0), shares: new Float64Array(0),
    pack: false, limit: 1, budget: PLACEMENT_BUDGET,
  };

  private constructor(kernels: Kernels) {
    this.kernels = kernels;
  }

  /** Creates a state from nodes (or one inventory). */
  static create(kernels: Kernels, init: ClusterInit): ClusterState {
    const o = requireObject('init', init);
    let nodes: unknown;
    if (o.nodes === undefined && Array.isArray(o.gpus)) nodes = [nodeFromInventory(o as unknown as Inventory)];
    else nodes = o.nodes;
    const state = new ClusterState(kernels);
    state.load(requireArray('nodes', nodes, LIMITS.maxNodes), 'nodes');
    return state;
  }

  /** Restores a state from toJSON's output (the object or its JSON text); anything malformed is INVALID_STATE. */
  static restore(kernels: Kernels, json: unknown): ClusterState {
    let value = json;
    if (typeof json === 'string') {
      try {
        value = JSON.parse(json);
      } catch (cause) {
        throw new AllocationError('INVALID_STATE', `state: not valid JSON (${(cause as Error).message}); the text may be truncated`, { cause });
      }
    }
    try {
      const o = requireObject('state', value);
      if (o.version !== CLUSTER_STATE_VERSION) fail('INVALID_STATE', 'state.version', `${CLUSTER_STATE_VERSION}`, o.version);
      const state = new ClusterState(kernels);
      state.load(requireArray('state.nodes', o.nodes, LIMITS.maxNodes), 'state.nodes');
      state.nextSlot = requireInteger('state.nextSlot', o.nextSlot, 1);
      return state;
    } catch (error) {
      if (error instanceof AllocationError && error.code !== 'INVALID_STATE') {
        throw error.restated({ code: 'INVALID_STATE', origin: 'state' });
      }
      throw error;
    }
  }

  private load(nodes: unknown[], field: string): void {
    const models = nodes.map((raw, k) => {
      const f = `${field}[${k}]`;
      const n = requireObject(f, raw);
      // A misspelt key (a node's `cpus`, a slot's `hostmemory`) would silently leave the resource untracked.
      onlyKeys(n, NODE_KEYS, f);
      if (Array.isArray(n.gpus)) n.gpus.forEach((g, j) => onlyKeys(g, GPU_KEYS, `${f}.gpus[${j}]`));
      if (Array.isArray(n.slots)) n.slots.forEach((sl, j) => onlyKeys(sl, SLOT_KEYS, `${f}.slots[${j}]`));
      const id = requireString(`${f}.id`, n.id, LIMITS.maxIdLength);
      if (this.nodeOf.has(id)) fail('INVALID_ARGUMENT', `${f}.id`, 'a node ID not used before', id);
      this.nodeOf.set(id, k);
      this.nodeIds.push(id);
      const model = validateNode(n.gpus, undefined, n.topology, `${f}.`);
      const cpu = n.cpu === undefined ? -1 : requireInteger(`${f}.cpu`, n.cpu, 0, LIMITS.maxMilliCpu);
      const hostMemory = n.hostMemory === undefined ? -1 : requireInteger(`${f}.hostMemory`, n.hostMemory, 0, LIMITS.maxBytes);
      const gpuModel = n.gpuModel === undefined ? undefined : requireString(`${f}.gpuModel`, n.gpuModel, LIMITS.maxIdLength);
      return { ...model, cpu, hostMemory, gpuModel };
    });
    let gpuCount = 0;
    this.gpuStart = new Int32Array(models.length + 1);
    models.forEach((m, k) => {
      this.gpuStart[k] = gpuCount;
      gpuCount += m.index.length;
    });
    this.gpuStart[models.length] = gpuCount;
    this.total = new Float64Array(gpuCount);
    this.used = new Float64Array(gpuCount);
    this.capacity = new Float64Array(gpuCount);
    this.free = new Float64Array(gpuCount);
    this.nodeTotal = new Float64Array(models.length);
    this.nodeCpu = Float64Array.from(models, (m) => m.cpu);
    this.nodeHostMemory = Float64Array.from(models, (m) => m.hostMemory);
    this.cpuHeld = new Float64Array(models.length);
    this.hostMemoryHeld = new Float64Array(models.length);
    for (const m of models) this.gpuModels.push(m.gpuModel);
    this.nodeAllocated = new Float64Array(models.length);
    this.nodeLoad = new Float64Array(models.length);
    this.bounds = { bEv: new Int32Array(models.length), bN: new Int32Array(models.length), bScore: new Float64Array(models.length), bMetric: new Float64Array(models.length) };
    this.sortedFree = new Float64Array(gpuCount);
    this.nodeRank = new Int32Array(models.length);
    this.classOf = Int32Array.from(models, (m) => this.classes.classOf(positionMatrix(m.topology, m.index), m.index.length));
    this.gScore = new Float64Array(models.length);
    this.gMetric = new Float64Array(models.length);
    this.nodeIds.map((_, k) => k).sort((a, b) => compareNatural(this.nodeIds[a], this.nodeIds[b])).forEach((k, r) => (this.nodeRank[k] = r));
    this.nodeStale = new Int32Array(models.length);
    this.taken = new Int32Array(models.length);
    this.freeIndex = new FreeIndex({ gpuStart: this.gpuStart, free: this.free, sortedFree: this.sortedFree, nodeLoad: this.nodeLoad, nodeRank: this.nodeRank }, this.classOf, this.classes);
    this.staleIndex = new StaleIndex({ gpuStart: this.gpuStart, free: this.free }, this.classOf, this.classes.list.length);
    for (const m of models) if (m.index.length > this.maxWidth) this.maxWidth = m.index.length;
    this.evictableScratch = new Float64Array(this.maxWidth);
    models.forEach((m, k) => {
      const start = this.gpuStart[k];
      for (let p = 0; p < m.index.length; p++) {
        this.total[start + p] = m.total[p];
        this.used[start + p] = m.used[p];
        this.capacity[start + p] = m.total[p] - m.used[p];
        this.free[start + p] = m.total[p] - m.used[p];
        this.nodeTotal[k] += m.total[p];
      }
      this.indices.push(m.index);
      this.topologies.push(m.topology);
      this.nodeSlots.push(new Set());
      this.staleOrder.push(undefined);
      this.freeViews.push(this.free.subarray(start, this.gpuStart[k + 1]));
      this.totalViews.push(this.total.subarray(start, this.gpuStart[k + 1]));
      this.usedViews.push(this.used.subarray(start, this.gpuStart[k + 1]));
    });
    // Slots after every node, so slot IDs are unique across the state.
    const ids = new Set<string>();
    nodes.forEach((raw, k) => {
      const n = raw as Record<string, unknown>;
      if (n.slots === undefined) return;
      validateSlots(n.slots, `${field}[${k}].slots`, new Set(this.indices[k]), ids).forEach((slot, j) => {
        if (slot.milli !== undefined) {
          const f = `${field}[${k}].slots[${j}]`;
          this.checkShare(k, slot.gpus.map((g) => this.positionOf(k, g)), slot.milli, slot.memoryPerGpu, `${f}.`, () => `${f}.gpus`);
        }
        this.addSlot(k, slot);
      });
    });
    for (let k = 0; k < models.length; k++) {
      const start = this.gpuStart[k];
      for (let p = 0; p < this.indices[k].length; p++) {
        if (this.free[start + p] < 0) {
          const used = this.used[start + p];
          const others = used > 0 ? ` and ${formatBytes(used)} in use by other processes` : '';
          throw new AllocationError('OVERSCHEDULED', `${field}[${k}]: GPU ${this.indices[k][p]} of node ${this.nodeIds[k]} has ${formatBytes(this.capacity[start + p] - this.free[start + p])} of slots${others} on ${formatBytes(this.total[start + p])}`, { field: `${field}[${k}].slots` });
        }
      }
      if (this.nodeCpu[k] >= 0 && this.cpuHeld[k] > this.nodeCpu[k]) {
        throw new AllocationError('OVERSCHEDULED', `${field}[${k}]: node ${this.nodeIds[k]} has ${this.cpuHeld[k]} milli-CPU of slots on ${this.nodeCpu[k]}`, { field: `${field}[${k}].slots` });
      }
      if (this.nodeHostMemory[k] >= 0 && this.hostMemoryHeld[k] > this.nodeHostMemory[k]) {
        throw new AllocationError('OVERSCHEDULED', `${field}[${k}]: node ${this.nodeIds[k]} has ${formatBytes(this.hostMemoryHeld[k])} of host memory in slots on ${formatBytes(this.nodeHostMemory[k])}`, { field: `${field}[${k}].slots` });
      }
      this.refreshNode(k);
    }
  }

  /**
   * A share's charge, as commit and load both check it: GPUs (positions of node) of one memoryTotal,
   * of more than maxNoShareGpuMemory bytes, and memoryPerGpu = floor(milli × memoryTotal / 1000).
   * `gpuField(j)` names the j-th GPU; milli and memoryPerGpu are `${prefix}milli` and `${prefix}memoryPerGpu`.
   */
  private checkShare(node: number, positions: readonly number[], milli: number, memoryPerGpu: number, prefix: string, gpuField: (j: number) => string): void {
    const start = this.gpuStart[node];
    const total = this.total[start + positions[0]];
    const first = this.indices[node][positions[0]];
    for (let j = 1; j < positions.length; j++) {
      if (this.total[start + positions[j]] !== total) fail('INVALID_ARGUMENT', gpuField(j), `a GPU of ${formatBytes(total)} like GPU ${first} (a share is of GPUs of one memoryTotal)`, this.indices[node][positions[j]]);
    }
    if (total <= LIMITS.maxNoShareGpuMemory) {
      fail('INVALID_ARGUMENT', `${prefix}milli`, `no share: GPU ${first} of node ${this.nodeIds[node]} has ${total} bytes, and a share needs a GPU of more than ${LIMITS.maxNoShareGpuMemory} bytes (to be charged exactly)`, milli);
    }
    const charge = shareBytes(milli, total);
    if (memoryPerGpu !== charge) fail('INVALID_ARGUMENT', `${prefix}memoryPerGpu`, `${charge} (floor(milli × memoryTotal / 1000) for ${milli} milli of ${total} bytes)`, memoryPerGpu);
  }

  private positionOf(node: number, gpu: number): number {
    const list = this.indices[node];
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] === gpu) return mid;
      if (list[mid] < gpu) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private addSlot(node: number, slot: Slot): void {
    const positions = slot.gpus.map((g) => this.positionOf(node, g));
    const [lo, hi] = maskOf(positions);
    const start = this.gpuStart[node];
    for (const p of positions) this.free[start + p] -= slot.memoryPerGpu;
    this.cpuHeld[node] += slot.cpu ?? 0;
    this.hostMemoryHeld[node] += slot.hostMemory ?? 0;
    this.slots.set(slot.id, { slot, node, positions, lo, hi });
    this.nodeSlots[node].add(slot.id);
    if (slot.stale === true) {
      this.staleOrder[node] = undefined;
      this.nodeStale[node]++;
    }
  }

  private removeSlot(id: string): void {
    const r = this.slots.get(id)!;
    const start = this.gpuStart[r.node];
    for (const p of r.positions) this.free[start + p] += r.slot.memoryPerGpu;
    this.cpuHeld[r.node] -= r.slot.cpu ?? 0;
    this.hostMemoryHeld[r.node] -= r.slot.hostMemory ?? 0;
    this.slots.delete(id);
    this.nodeSlots[r.node].delete(id);
    if (r.slot.stale === true) {
      this.staleOrder[r.node] = undefined;
      this.nodeStale[r.node]--;
    }
  }

  /** Recomputes a node's summary: free memory per GPU largest first, allocated memory, what its stale slots hold. */
  private refreshNode(node: number): void {
    const start = this.gpuStart[node];
    const end = this.gpuStart[node + 1];
    const free = this.free;
    const sorted = this.sortedFree;
    // The sum in position order; the sorted copy largest first.
    let freeSum = 0;
    for (let i = start; i < end; i++) {
      freeSum += free[i];
      sorted[i] = free[i];
    }
    sortLargestFirst(sorted, start, end);
    this.nodeAllocated[node] = this.nodeTotal[node] - freeSum;
    this.nodeLoad[node] = this.nodeTotal[node] > 0 ? this.nodeAllocated[node] / this.nodeTotal[node] : 0;
    this.freeIndex.update(node);
    if (this.nodeStale[node] === 0) {
      this.staleIndex.update(node, null);
      return;
    }
    const evictable = this.evictableScratch;
    evictable.fill(0);
    for (const id of this.nodeSlots[node]) {
      const r = this.slots.get(id)!;
      if (r.slot.stale !== true) continue;
      for (const p of r.positions) evictable[p] += r.slot.memoryPerGpu;
    }
    this.staleIndex.update(node, evictable);
  }

  private staleSlots(node: number): Slot[] {
    let list = this.staleOrder[node];
    if (list === undefined) {
      list = [];
      for (const id of this.nodeSlots[node]) {
        const s = this.slots.get(id)!.slot;
        if (s.stale === true) list.push(s);
      }
      list.sort(compareEvictionOrder);
      this.staleOrder[node] = list;
    }
    return list;
  }

  private matrix(node: number): Int32Array | null {
    return this.classes.list[this.classOf[node]].matrix;
  }

  /**
   * Plans across every node: options ranked by planPlacement's key up to the policy metric, then
   * the least loaded node (lowest (memoryTotal − free) / memoryTotal), then node ID in natural order,
   * then lowest GPU indices (indices only order GPUs of one node). `rejected` lists the per-GPU
   * rejections of the first CLUSTER_REJECTED_NODES nodes when there is no option (empty otherwise,
   * to keep planning cheap); the reason counts theirs and says so when the state has more nodes.
   *
   * Which nodes are searched (spread): for each allowed size n in ascending order, the free-memory
   * trees of every topology class give the nodes whose n-th largest free memory takes the share,
   * best bound first across classes (bound: no eviction, n GPUs, the class's best n-GPU set score,
   * the n-th largest free memory minus the share, load, node ID). Each node taken has one option it
   * is known to reach (see knownOption); once `limit` of those rank before the next bound, no other
   * node can contribute. Nodes with stale slots are taken for their eviction options only when fewer
   * than `limit` options without eviction exist. Pack ranks by a sum no tree orders: it scans every node.
   */
  plan(request: ClusterPlanRequest): PlacementPlan {
    const req = validatePlanRequest(requireObject('request', readInput('request', request, false)));
    const limit = req.limit;
    const pack = req.pack;
    const nodeCount = this.nodeIds.length;
    // Sizes up to the widest node (a node uses those up to its GPU count) and their shares.
    const allSizes = req.sizes === undefined ? Array.from({ length: this.maxWidth }, (_, k) => k + 1) : req.sizes.filter((n) => n <= this.maxWidth);
    const sizes = Int32Array.from(allSizes);
    const shares = Float64Array.from(allSizes, (n) => shareOf(req.memory, n));
    // smallest[N]: share of the largest size a node of N GPUs may use (Infinity: none).
    const smallest = new Float64Array(this.maxWidth + 1).fill(Infinity);
    for (let si = 0; si < sizes.length; si++) for (let N = sizes[si]; N <= this.maxWidth; N++) smallest[N] = shares[si];
    const { bEv, bN, bScore, bMetric } = this.bounds;
    const { gScore, gMetric } = this;
    const bLoad = this.nodeLoad;
    const nodeRank = this.nodeRank;
    const better = (aMetric: number, bMetric_: number): boolean => (pack ? aMetric < bMetric_ : aMetric > bMetric_);
    // Bound of x against bound of y (negative: x first).
    const boundBefore = (x: number, y: number): number => {
      if (bEv[x] !== bEv[y]) return bEv[x] - bEv[y];
      if (bN[x] !== bN[y]) return bN[x] - bN[y];
      if (bScore[x] !== bScore[y]) return bScore[x] > bScore[y] ? -1 : 1;
      if (bMetric[x] !== bMetric[y]) return better(bMetric[x], bMetric[y]) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x] < bLoad[y] ? -1 : 1;
      return nodeRank[x] - nodeRank[y];
    };
    // Bound of x against the known option of y (no eviction, bN[y] GPUs, gScore, gMetric): negative when x's bound ranks first.
    const boundVsKnown = (x: number, y: number): number => {
      if (bEv[x] !== 0) return 1;
      if (bN[x] !== bN[y]) return bN[x] - bN[y];
      if (bScore[x] !== gScore[y]) return bScore[x] > gScore[y] ? -1 : 1;
      if (bMetric[x] !== gMetric[y]) return better(bMetric[x], gMetric[y]) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x] < bLoad[y] ? -1 : 1;
      return nodeRank[x] - nodeRank[y];
    };
    const knownBefore = (x: number, y: number): number => {
      if (bN[x] !== bN[y]) return bN[x] - bN[y];
      if (gScore[x] !== gScore[y]) return gScore[x] > gScore[y] ? -1 : 1;
      if (gMetric[x] !== gMetric[y]) return better(gMetric[x], gMetric[y]) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x] < bLoad[y] ? -1 : 1;
      return nodeRank[x] - nodeRank[y];
    };
    const candidates: number[] = [];
    const known: number[] = []; // up to `limit` taken nodes with the best known options, best first
    const keepKnown = (k: number): void => {
      if (known.length < limit || knownBefore(k, known[known.length - 1]) < 0) {
        let at = known.length;
        while (at > 0 && knownBefore(k, known[at - 1]) < 0) at--;
        known.splice(at, 0, k);
        if (known.length > limit) known.pop();
      }
    };
    const gpuStart = this.gpuStart;
    const sorted = this.sortedFree;
    const classes = this.classes;
    const classCount = classes.list.length;
    const plan = ++this.planNumber;
    if (!pack && nodeCount > 0) {
      const index = this.freeIndex;
      const removed: LevelTree[] = [];
      const removedNode: number[] = [];
      const lvl = new Int32Array(classCount);
      const levels: Array<readonly ScoreLevel[]> = new Array(classCount);
      let done = false;
      for (let si = 0; si < sizes.length && !done; si++) {
        const n = sizes[si];
        const share = shares[si];
        for (let c = 0; c < classCount; c++) {
          const cls = classes.list[c];
          levels[c] = index.size(c) === 0 || (c > 0 && cls.gpus < n) ? NO_LEVELS : classes.levels(c, n);
          lvl[c] = 0;
        }
        for (;;) {
          // Score levels are walked highest first across classes: an option of a higher score ranks first.
          let group = -Infinity;
          for (let c = 0; c < classCount; c++) if (lvl[c] < levels[c].length && levels[c][lvl[c]].score > group) group = levels[c][lvl[c]].score;
          if (group === -Infinity) break;
          // The best bound among the trees of that score (taken nodes are set aside as met).
          let best = -1;
          let bestTree: LevelTree | null = null;
          for (let c = 0; c < classCount; c++) {
            if (lvl[c] >= levels[c].length || levels[c][lvl[c]].score !== group) continue;
            const tree = index.tree(c, n, lvl[c]);
            let k = tree.win[1];
            while (k >= 0 && this.taken[k] === plan) {
              index.setLeaf(tree, k, true);
              removed.push(tree);
              removedNode.push(k);
              k = tree.win[1];
            }
            if (k < 0) continue;
            const key = index.keyOf(tree, k);
            if (!(key >= share)) continue;
            bEv[k] = 0;
            bN[k] = n;
            bScore[k] = group;
            bMetric[k] = key - share;
            if (best < 0 || boundBefore(k, best) < 0) {
              best = k;
              bestTree = tree;
            }
          }
          if (best < 0) {
            // No node of this score takes the share: the next level down.
            for (let c = 0; c < classCount; c++) if (lvl[c] < levels[c].length && levels[c][lvl[c]].score === group) lvl[c]++;
            continue;
          }
          // `limit` known options rank before this bound: neither it nor any later one can contribute.
          if (known.length === limit && boundVsKnown(best, known[limit - 1]) > 0) {
            done = true;
            break;
          }
          index.setLeaf(bestTree!, best, true);
          removed.push(bestTree!);
          removedNode.push(best);
          this.taken[best] = plan;
          if (bestTree!.level.exact) {
            gScore[best] = bScore[best];
            gMetric[best] = bMetric[best];
          } else this.knownOption(best, this.classOf[best], n, share);
          candidates.push(best);
          keepKnown(best);
        }
        if (known.length === limit) done = true; // larger sizes rank after every option known so far
        for (let r = removed.length - 1; r >= 0; r--) index.setLeaf(removed[r], removedNode[r]);
        removed.length = 0;
        removedNode.length = 0;
      }
      // Fewer than `limit` options without eviction exist: nodes with evictable slots may add some.
      // The stale index bounds what evicting every stale slot frees (any model): only the nodes it
      // returns for some size can have an eviction option, and each is then bounded exactly.
      if (known.length < limit && req.allowEviction) {
        const found = this.staleFound;
        found.length = 0;
        for (let si = 0; si < sizes.length; si++) {
          for (let c = 0; c < classCount; c++) {
            if (c > 0 && classes.list[c].gpus < sizes[si]) continue;
            this.staleIndex.collect(c, sizes[si], shares[si], found);
          }
        }
        for (const k of found) {
          if (this.taken[k] === plan) continue; // taken above, or returned for a smaller size
          this.taken[k] = plan;
          const first = this.evictionBound(k, req.model, sizes, shares);
          if (first === 0) continue;
          bEv[k] = 1;
          bN[k] = first;
          bScore[k] = Infinity;
          bMetric[k] = Infinity;
          candidates.push(k);
        }
      }
    } else if (nodeCount > 0) {
      const nodeStale = this.nodeStale;
      for (let k = 0; k < nodeCount; k++) {
        const start = gpuStart[k];
        const N = gpuStart[k + 1] - start;
        const canEvict = req.allowEviction && nodeStale[k] > 0;
        // Not even the smallest share fits on the emptiest GPU: nothing to search.
        if (!canEvict && !(sorted[start] >= smallest[N])) continue;
        let fits = false;
        let first = 0;
        for (let si = 0; si < sizes.length; si++) {
          const n = sizes[si];
          if (n > N) break;
          if (si === 0) first = n;
          const share = shares[si];
          if (sorted[start + n - 1] < share) continue;
          fits = true;
          bN[k] = n;
          // The n smallest GPUs that fit leave the least over.
          let j = n - 1;
          while (j + 1 < N && sorted[start + j + 1] >= share) j++;
          let left = 0;
          for (let t = j - n + 1; t <= j; t++) left += sorted[start + t] - share;
          bMetric[k] = left;
          break;
        }
        const c = this.classOf[k];
        if (fits) {
          bEv[k] = 0;
          bScore[k] = classes.maxScore(c, bN[k]);
        } else if (canEvict && first > 0) {
          bEv[k] = 1;
          bN[k] = first;
          bMetric[k] = -Infinity;
          bScore[k] = Infinity;
        } else continue; // no GPU set fits, even after evictions
        // Bounded below the current threshold: never contributes (the threshold only improves).
        if (known.length === limit && boundVsKnown(k, known[limit - 1]) > 0) continue;
        candidates.push(k);
        // A node whose every n-GPU set scores the same reaches its bound.
        if (fits && classes.uniform(c, bN[k])) {
          gScore[k] = bScore[k];
          gMetric[k] = bMetric[k];
          keepKnown(k);
        }
      }
    }
    // `limit` options at least as good as the threshold exist, so nodes bounded below it cannot contribute.
    const threshold = known.length === limit ? known[limit - 1] : -1;
    let count = 0;
    for (const k of candidates) if (threshold < 0 || boundVsKnown(k, threshold) <= 0) candidates[count++] = k;
    candidates.length = count;
    candidates.sort(boundBefore);
    if (!pack) candidates.length = this.enoughCandidates(candidates, limit, sizes, shares);
    const found = this.kernels.clusterSearch(this.fillSearch(candidates, req.allowEviction, req.model, sizes, shares, pack, limit));
    if (found.overflowSize > 0) throw budgetError(found.overflowSize, this.search.gpus[found.overflowNode]);
    const options: PlacementOption[] = [];
    for (let c = 0; c < found.count; c++) {
      const i = found.node[c];
      const k = candidates[i];
      options.push(nodeOptionOf(found, c, this.indices[k], req.memory, this.candidateStale[i], req.model, this.nodeIds[k]));
    }
    this.candidateStale.length = 0;
    const result: PlacementPlan = { options, rejected: [] };
    if (options.length === 0) {
      // The first CLUSTER_REJECTED_NODES nodes' rejections (a scan of every node would cost a failed
      // plan O(nodes)); whether any node allows a size is known from the widest node.
      const listed = Math.min(nodeCount, CLUSTER_REJECTED_NODES);
      let gpus = 0;
      const sizesOf = new Map<number, number[]>();
      const evictable = new Float64Array(this.maxWidth);
      for (let k = 0; k < listed; k++) {
        const N = this.indices[k].length;
        let sizes = sizesOf.get(N);
        if (sizes === undefined) {
          sizes = sizesFor(req, N);
          sizesOf.set(N, sizes);
        }
        gpus += N;
        let anyEvictable = false;
        if (req.allowEviction && this.nodeStale[k] > 0) {
          evictable.fill(0);
          for (const s of this.staleSlots(k)) {
            if (!isEvictable(s, req.model)) continue;
            anyEvictable = true;
            for (const p of this.slots.get(s.id)!.positions) evictable[p] += s.memoryPerGpu;
          }
        }
        rejectionsFor(this.indices[k], this.totalViews[k], this.freeViews[k], anyEvictable ? evictable : null, req.memory, sizes, this.nodeIds[k], result.rejected, this.usedViews[k]);
      }
      const noSizes = sizesFor(req, this.maxWidth).length === 0;
      result.reason = noOptionReason(req.memory, noSizes ? null : req.sizes === undefined ? '1..n' : req.sizes.join(', '), noSizes ? this.gpuStart[nodeCount] : gpus, result.rejected.length, listed < nodeCount ? { listed, nodes: nodeCount } : undefined);
    }
    return result;
  }

  /**
   * Spread: records in gScore / gMetric one option node k (of class c) is known to have with n GPUs
   * and no eviction (its n-th largest free memory takes the share). Where every n-GPU set of the class
   * scores the same, that is its bound. Otherwise, the best of the class's top-scoring sets whose GPUs
   * all take the share; failing that, the n GPUs with the most free memory (lowest positions on ties).
   */
  private knownOption(k: number, c: number, n: number, share: number): void {
    const classes = this.classes;
    const { bScore, bMetric } = this.bounds;
    if (classes.uniform(c, n)) {
      this.gScore[k] = bScore[k];
      this.gMetric[k] = bMetric[k];
      return;
    }
    const free = this.freeViews[k];
    const sets = classes.bestSets(c, n);
    if (sets !== null) {
      let metric = -Infinity;
      for (let q = 0; q < sets.length; q += 2) {
        let min = Infinity;
        for (let m = sets[q]; m !== 0; m &= m - 1) {
          const f = free[ctz(m)];
          if (f < min) min = f;
        }
        if (min >= share && min - share > metric) metric = min - share;
      }
      if (metric > -Infinity) {
        this.gScore[k] = bScore[k];
        this.gMetric[k] = metric;
        return;
      }
    }
    const N = free.length;
    const order = Array.from({ length: N }, (_, p) => p).sort((a, b) => free[b] - free[a] || a - b).slice(0, n);
    const matrix = classes.list[c].matrix!;
    let score = 0;
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) score += matrix[order[a] * N + order[b]];
    this.gScore[k] = score;
    this.gMetric[k] = free[order[n - 1]] - share;
  }

  /**
   * The fewest GPUs (an allowed size) node k could use after evicting every slot evictable for
   * `model`, or 0 when no size fits even then: a lower bound of its eviction options' GPU count.
   */
  private evictionBound(k: number, model: string | undefined, sizes: Int32Array, shares: Float64Array): number {
    const free = this.freeViews[k];
    const N = free.length;
    if (this.potentialScratch.length < N) this.potentialScratch = new Float64Array(this.maxWidth);
    const potential = this.potentialScratch;
    for (let p = 0; p < N; p++) potential[p] = free[p];
    for (const s of this.staleSlots(k)) {
      if (!isEvictable(s, model)) continue;
      for (const p of this.slots.get(s.id)!.positions) potential[p] += s.memoryPerGpu;
    }
    sortLargestFirst(potential, 0, N);
    for (let si = 0; si < sizes.length; si++) {
      const n = sizes[si];
      if (n > N) break;
      if (potential[n - 1] >= shares[si]) return n;
    }
    return 0;
  }

  /**
   * Spread only: how many of the candidates (sorted by bound) can contribute. Cut after candidate m
   * when m is exact (no eviction, no topology) and `limit` options are known to rank at or before
   * its bound T: every exact candidate i ≤ m of fewer GPUs contributes all its options without
   * eviction (C(c, n) of its c GPUs that take the share), one of T's GPU count contributes the sets
   * whose fullest GPU keeps more than T's metric (or as much, when its node ranks before T's), and
   * T is its own best option. Later candidates are bounded strictly after T, so cannot contribute.
   */
  private enoughCandidates(candidates: readonly number[], limit: number, sizes: Int32Array, shares: Float64Array): number {
    const { bEv, bN, bScore, bMetric } = this.bounds;
    const sorted = this.sortedFree;
    for (let m = 0; m < candidates.length; m++) {
      const t = candidates[m];
      if (bEv[t] !== 0 || bScore[t] !== 0) continue;
      let known = 1;
      for (let i = 0; i < m && known < limit; i++) {
        const k = candidates[i];
        if (bEv[k] !== 0 || bScore[k] !== 0) continue;
        const n = bN[k];
        let share = 0;
        for (let si = 0; si < sizes.length; si++) if (sizes[si] === n) share = shares[si];
        const start = this.gpuStart[k];
        const N = this.gpuStart[k + 1] - start;
        let c = 0;
        if (n < bN[t]) {
          while (c < N && sorted[start + c] >= share) c++;
        } else {
          const orEqual = this.nodeLoad[k] < this.nodeLoad[t] || (this.nodeLoad[k] === this.nodeLoad[t] && this.nodeRank[k] < this.nodeRank[t]);
          const x = bMetric[t];
          while (c < N && (sorted[start + c] - share > x || (orEqual && sorted[start + c] - share === x))) c++;
        }
        known += binomial(c, n);
      }
      if (known >= limit) return m + 1;
    }
    return candidates.length;
  }

  /** Each candidate's evictable slots (in eviction order) for the plan in progress. */
  private readonly candidateStale: Slot[][] = [];

  /** Fills the reusable kernel input with the candidate nodes (best bound first). */
  private fillSearch(candidates: readonly number[], allowEviction: boolean, model: string | undefined, sizes: Int32Array, shares: Float64Array, pack: boolean, limit: number): ClusterSearch {
    const s = this.search;
    const C = candidates.length;
    if (s.gpus.length < C) {
      let cap = s.gpus.length;
      while (cap < C) cap *= 2;
      s.gpus = new Int32Array(cap);
      s.offset = new Int32Array(cap);
      s.staleStart = new Int32Array(cap + 1);
      s.load = new Float64Array(cap);
      s.rank = new Int32Array(cap);
      s.bEv = new Int32Array(cap);
      s.bN = new Int32Array(cap);
      s.bScore = new Float64Array(cap);
      s.bMetric = new Float64Array(cap);
    }
    const matrices = s.matrices as Array<Int32Array | null>;
    matrices.length = C;
    const staleLists = this.candidateStale;
    staleLists.length = C;
    let S = 0;
    for (let i = 0; i < C; i++) {
      const k = candidates[i];
      const stale = allowEviction && this.nodeStale[k] > 0 ? this.staleSlots(k).filter((x) => isEvictable(x, model)) : NO_SLOTS;
      staleLists[i] = stale;
      S += stale.length;
    }
    if (s.staleBytes.length < S) {
      let cap = Math.max(16, s.staleBytes.length);
      while (cap < S) cap *= 2;
      s.staleMasks = new Int32Array(2 * cap);
      s.staleBytes = new Float64Array(cap);
    }
    const { bEv, bN, bScore, bMetric } = this.bounds;
    S = 0;
    for (let i = 0; i < C; i++) {
      const k = candidates[i];
      s.gpus[i] = this.gpuStart[k + 1] - this.gpuStart[k];
      s.offset[i] = this.gpuStart[k];
      s.staleStart[i] = S;
      for (const slot of staleLists[i]) {
        const r = this.slots.get(slot.id)!;
        s.staleMasks[2 * S] = r.lo;
        s.staleMasks[2 * S + 1] = r.hi;
        s.staleBytes[S] = slot.memoryPerGpu;
        S++;
      }
      matrices[i] = this.matrix(k);
      s.load[i] = this.nodeLoad[k];
      s.rank[i] = this.nodeRank[k];
      s.bEv[i] = bEv[k];
      s.bN[i] = bN[k];
      s.bScore[i] = bScore[k];
      s.bMetric[i] = bMetric[k];
    }
    s.staleStart[C] = S;
    s.count = C;
    s.free = this.free;
    s.total = this.capacity;
    s.sizes = sizes;
    s.shares = shares;
    s.pack = pack;
    s.limit = limit;
    return s;
  }

  /**
   * Applies an option atomically: re-validates it against the current state, evicts the slots it
   * lists and adds the new slot; returns the new slot's ID. Throws CONFLICT, changing nothing, when
   * the option no longer fits (memory taken since planning, an evicted slot gone or no longer stale).
   */
  commit(option: PlacementOption, options: CommitOptions = {}): string {
    const o = requireObject('option', readInput('option', option));
    // A misspelt key (a pod's `cpus`, `hostmemory`) would commit a slot that holds nothing of it.
    rejectUnknownKeys('option', o, PLACEMENT_OPTION_KEYS);
    const nodeId = requireString('option.node', o.node, LIMITS.maxIdLength);
    const node = this.nodeOf.get(nodeId);
    if (node === undefined) throw new AllocationError('UNKNOWN_NODE', `option.node: node ${describeValue(nodeId)} is not in the state`, { field: 'option.node' });
    const gpus = requireArray('option.gpus', o.gpus, LIMITS.maxGpus);
    const cpu = o.cpu === undefined ? undefined : requireInteger('option.cpu', o.cpu, 0, LIMITS.maxMilliCpu);
    const hostMemory = o.hostMemory === undefined ? undefined : requireInteger('option.hostMemory', o.hostMemory, 0, LIMITS.maxBytes);
    if (gpus.length === 0 && cpu === undefined && hostMemory === undefined) fail('INVALID_ARGUMENT', 'option.gpus', 'at least one GPU index (or cpu / hostMemory for a slot without GPUs)', gpus);
    const positions: number[] = [];
    gpus.forEach((g, j) => {
      const idx = requireInteger(`option.gpus[${j}]`, g, 0, 0x7fffffff);
      const p = this.positionOf(node, idx);
      if (p < 0) throw new AllocationError('UNKNOWN_DEVICE_ID', `option.gpus[${j}]: GPU index ${idx} is not on node ${nodeId}`, { field: `option.gpus[${j}]` });
      if (positions.includes(p)) throw new AllocationError('DUPLICATE_DEVICE', `option.gpus[${j}]: GPU index ${idx} appears twice`, { field: `option.gpus[${j}]` });
      positions.push(p);
    });
    const perGpu = gpus.length === 0 ? requireInteger('option.memoryPerGpu', o.memoryPerGpu, 0, 0) : requireInteger('option.memoryPerGpu', o.memoryPerGpu, 1, LIMITS.maxBytes);
    let milli: number | undefined;
    if (o.milli !== undefined) {
      if (gpus.length === 0) fail('INVALID_ARGUMENT', 'option.milli', 'no share (the option has no GPUs)', o.milli);
      milli = requireInteger('option.milli', o.milli, 1, 1000);
      this.checkShare(node, positions, milli, perGpu, 'option.', (j) => `option.gpus[${j}]`);
    }
    const model = o.model === undefined ? undefined : requireString('option.model', o.model, LIMITS.maxIdLength);
    const evict = o.evict === undefined ? [] : requireArray('option.evict', o.evict, LIMITS.maxSlotsPerNode);
    const opts = requireObject('options', readInput('options', options));
    rejectUnknownKeys('options', opts, COMMIT_OPTION_KEYS);
    let id: string | undefined;
    if (opts.id !== undefined) {
      id = requireString('options.id', opts.id, LIMITS.maxIdLength);
      if (this.slots.has(id)) throw new AllocationError('DUPLICATE_SLOT', `options.id: slot ID ${describeValue(id)} is already in the state`, { field: 'options.id' });
    }
    if (opts.lastActivity !== undefined && (typeof opts.lastActivity !== 'number' || !Number.isFinite(opts.lastActivity))) fail('INVALID_ARGUMENT', 'options.lastActivity', 'a finite number (ms since the epoch)', opts.lastActivity);
    // Re-validate against the current state; nothing changes before every check passes.
    const start = this.gpuStart[node];
    const gained = new Map<number, number>();
    const evictIds = new Set<string>();
    let cpuGained = 0;
    let hostGained = 0;
    evict.forEach((raw, j) => {
      const sid = requireString(`option.evict[${j}]`, raw, LIMITS.maxIdLength);
      const r = this.slots.get(sid);
      if (r === undefined || r.node !== node) throw new AllocationError('CONFLICT', `option.evict[${j}]: slot ${describeValue(sid)} is no longer on node ${nodeId}; nothing was changed`, { field: `option.evict[${j}]` });
      if (!isEvictable(r.slot, model)) throw new AllocationError('CONFLICT', `option.evict[${j}]: slot ${describeValue(sid)} is no longer evictable (not stale, or the same model); nothing was changed`, { field: `option.evict[${j}]` });
      if (evictIds.has(sid)) fail('INVALID_ARGUMENT', `option.evict[${j}]`, 'each slot once', sid);
      evictIds.add(sid);
      for (const p of r.positions) gained.set(p, (gained.get(p) ?? 0) + r.slot.memoryPerGpu);
      cpuGained += r.slot.cpu ?? 0;
      hostGained += r.slot.hostMemory ?? 0;
    });
    if (cpu !== undefined && this.nodeCpu[node] >= 0) {
      const left = this.nodeCpu[node] - this.cpuHeld[node] + cpuGained;
      if (left < cpu) throw new AllocationError('CONFLICT', `option: node ${nodeId} has ${left} milli-CPU left, less than the ${cpu} asked; nothing was changed`, { field: 'option.cpu', details: { shortBy: cpu - left } });
    }
    if (hostMemory !== undefined && this.nodeHostMemory[node] >= 0) {
      const left = this.nodeHostMemory[node] - this.hostMemoryHeld[node] + hostGained;
      if (left < hostMemory) throw new AllocationError('CONFLICT', `option: node ${nodeId} has ${formatBytes(left)} of host memory left, less than the ${formatBytes(hostMemory)} asked; nothing was changed`, { field: 'option.hostMemory', details: { shortBy: hostMemory - left } });
    }
    for (const p of positions) {
      const avail = this.free[start + p] + (gained.get(p) ?? 0);
      if (avail < perGpu) {
        throw new AllocationError('CONFLICT', `option: GPU ${this.indices[node][p]} of node ${nodeId} has ${formatBytes(avail)} free after the listed evictions, less than ${formatBytes(perGpu)}; nothing was changed`, { field: 'option.gpus', details: { gpu: this.indices[node][p], shortBy: perGpu - avail } });
      }
    }
    if (id === undefined) {
      while (this.slots.has(`slot-${this.nextSlot}`)) this.nextSlot++;
      id = `slot-${this.nextSlot++}`;
    }
    for (const sid of evictIds) this.removeSlot(sid);
    const slot: Slot = { id, gpus: positions.map((p) => this.indices[node][p]).sort((a, b) => a - b), memoryPerGpu: perGpu };
    if (model !== undefined) slot.model = model;
    if (opts.lastActivity !== undefined) slot.lastActivity = opts.lastActivity as number;
    if (milli !== undefined) slot.milli = milli;
    if (cpu !== undefined) slot.cpu = cpu;
    if (hostMemory !== undefined) slot.hostMemory = hostMemory;
    this.addSlot(node, slot);
    this.refreshNode(node);
    this.changed(node);
    return id;
  }

  /** Removes a slot and frees its memory on every GPU it spans. */
  release(slotId: string): void {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const r = this.slots.get(id);
    if (r === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${describeValue(id)} is not in the state`, { field: 'slotId' });
    this.removeSlot(id);
    this.refreshNode(r.node);
    this.changed(r.node);
  }

  /** Tells every attached pod scheduler that node `node` changed. */
  private changed(node: number): void {
    for (const l of this.attached) l._sync(node);
  }

  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale = true): void {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const r = this.slots.get(id);
    if (r === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${describeValue(id)} is not in the state`, { field: 'slotId' });
    if (typeof stale !== 'boolean') fail('INVALID_ARGUMENT', 'stale', 'a boolean', stale);
    if ((r.slot.stale === true) !== stale) this.nodeStale[r.node] += stale ? 1 : -1;
    r.slot.stale = stale;
    this.staleOrder[r.node] = undefined;
    this.refreshNode(r.node);
  }

  /** Copies of the slots, of one node or of all, in the order they were added. */
  listSlots(node?: string): Slot[] {
    const out: Slot[] = [];
    const nodes = node === undefined ? this.nodeSlots.map((_, k) => k) : [this.nodeIndex(node)];
    for (const k of nodes) for (const id of this.nodeSlots[k]) out.push(copySlot(this.slots.get(id)!.slot));
    return out;
  }

  /** Allocated memory of every GPU (bytes), node by node, GPUs by index. */
  usage(): GpuUsage[] {
    const out: GpuUsage[] = [];
    this.nodeIds.forEach((id, k) => {
      const start = this.gpuStart[k];
      this.indices[k].forEach((gpu, p) => {
        const u: GpuUsage = { node: id, gpu, memoryTotal: this.total[start + p], allocated: this.capacity[start + p] - this.free[start + p] };
        if (this.used[start + p] > 0) u.memoryUsed = this.used[start + p];
        out.push(u);
      });
    });
    return out;
  }

  /** Node IDs in the order they were given. */
  nodes(): string[] {
    return [...this.nodeIds];
  }

  /**
   * A pod scheduler attached to this state (src/fleet/scheduler.ts): it plans pods (CPU, host memory,
   * a GPU share or whole GPUs, allowed GPU models) by a fleet policy over this state's nodes, and
   * `commit` applies its options like any other; every commit or release re-syncs the changed node
   * in every attached scheduler. `close()` it when done.
   */
  podScheduler(options: PodSchedulerOptions = {}): PodScheduler {
    return createPodScheduler(this.kernels, this, options);
  }

  /** @internal Attaches a scheduler: told of every change to a node until detached. */
  _attach(listener: NodeListener): void {
    this.attached.add(listener);
  }

  /** @internal */
  _detach(listener: NodeListener): void {
    this.attached.delete(listener);
  }

  /** @internal Index of node `id` in the state's node order (UNKNOWN_NODE naming `field`). */
  _nodeIndex(id: string, field = 'node'): number {
    const k = this.nodeOf.get(id);
    if (k === undefined) throw new AllocationError('UNKNOWN_NODE', `${field}: node ${describeValue(id)} is not in the state`, { field });
    return k;
  }

  /** @internal Node k's GPUs: indices (ascending), memoryTotal and free bytes (memoryTotal − memoryUsed − slots) per position; live views. */
  _gpus(k: number): { indices: readonly number[]; total: Float64Array; free: Float64Array } {
    return { indices: this.indices[k], total: this.totalViews[k], free: this.freeViews[k] };
  }

  /** @internal Node k's CPU left in milli-CPU (-1: not tracked). */
  _cpuLeft(k: number): number {
    return this.nodeCpu[k] < 0 ? -1 : this.nodeCpu[k] - this.cpuHeld[k];
  }

  /** @internal Node k's host memory left in bytes (-1: not tracked). */
  _hostMemoryLeft(k: number): number {
    return this.nodeHostMemory[k] < 0 ? -1 : this.nodeHostMemory[k] - this.hostMemoryHeld[k];
  }

  /** @internal Node k's GPU model and topology. */
  _gpuModel(k: number): string | undefined {
    return this.gpuModels[k];
  }

  /** @internal */
  _topology(k: number): Topology | undefined {
    return this.topologies[k];
  }

  /** @internal Calls `fn` with each slot of node k and the positions of its GPUs (not copies: read only). */
  _forEachSlot(k: number, fn: (slot: Readonly<Slot>, positions: readonly number[]) => void): void {
    for (const id of this.nodeSlots[k]) {
      const r = this.slots.get(id)!;
      fn(r.slot, r.positions);
    }
  }

  private nodeIndex(node: string): number {
    const k = this.nodeOf.get(node);
    if (k === undefined) throw new AllocationError('UNKNOWN_NODE', `node: node ${describeValue(node)} is not in the state`, { field: 'node' });
    return k;
  }

  /** A plain object that restoreClusterState turns back into an identical state. */
  toJSON(): ClusterStateJSON {
    return {
      version: CLUSTER_STATE_VERSION,
      nextSlot: this.nextSlot,
      nodes: this.nodeIds.map((id, k) => {
        const start = this.gpuStart[k];
        const gpus = this.indices[k].map((index, p): NodeGpu => {
          const g: NodeGpu = { index, memoryTotal: this.total[start + p] };
          // Only when > 0: a state without used memory writes the same JSON as before memoryUsed existed.
          if (this.used[start + p] > 0) g.memoryUsed = this.used[start + p];
          return g;
        });
        const node: ClusterStateJSON['nodes'][number] = { id, gpus, slots: [] };
        const t = this.topologies[k];
        if (t !== undefined) node.topology = { gpus: t.gpus, links: t.links.map((l) => ({ ...l })) };
        if (this.nodeCpu[k] >= 0) node.cpu = this.nodeCpu[k];
        if (this.nodeHostMemory[k] >= 0) node.hostMemory = this.nodeHostMemory[k];
        const gpuModel = this.gpuModels[k];
        if (gpuModel !== undefined) node.gpuModel = gpuModel;
        for (const sid of this.nodeSlots[k]) node.slots.push(copySlot(this.slots.get(sid)!.slot));
        return node;
      }),
    };
  }
}

/**
 * The state file's text: toJSON as JSON indented by 2 and a final newline. One format for what
 * `gpualloc plan --state FILE` writes, what the JSON file store keeps and what the page exports,
 * so the three exchange files byte for byte.
 */
export function stateFileText(state: Pick<ClusterState, 'toJSON'>): string {
  return JSON.stringify(state.toJSON(), null, 2) + '\n';
}

function copySlot(s: Slot): Slot {
  const c: Slot = { id: s.id, gpus: [...s.gpus], memoryPerGpu: s.memoryPerGpu };
  if (s.model !== undefined) c.model = s.model;
  if (s.lastActivity !== undefined) c.lastActivity = s.lastActivity;
  if (s.stale !== undefined) c.stale = s.stale;
  if (s.milli !== undefined) c.milli = s.milli;
  if (s.cpu !== undefined) c.cpu = s.cpu;
  if (s.hostMemory !== undefined) c.hostMemory = s.hostMemory;
  return c;
}

function sum(a: Float64Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k];
  return s;
}
