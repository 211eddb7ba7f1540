// The pod scheduler: fractional, multi-resource pods placed by a fleet policy over the nodes of a
// cluster state, seen through its read-only NodeView (src/fleet/node-view.ts). It plans only;
// ClusterState.commit applies its options like any memory-placed model, and after every change to a
// node the view tells each subscribed scheduler (onChange), which re-syncs that node: CPU and
// host memory left, each GPU's free milli (from its free bytes, src/shared/share.ts) and, for the
// clustering policy (the one that scores by them), the GPU-pod tag counts are written into the fleet
// kernels' arrays and fleetRefresh recomputes that node's totals and fragmentation and marks its
// scores stale. A plan finds its node through the kernels' pod index (per pod shape and memory, a
// tournament tree over the nodes' cached scores; src/fleet/layout.ts) or, where a score cannot be
// cached, by a pass over every node.
// Index reads carry `!`: the kernel arrays are read at offsets the layout's header gives (sized by
// layout.ts for every node, GPU and tree), the per-node arrays at node numbers below the view's count.

import { type AlignedKernels, allocateAligned } from '../devices/aligned.js';
import { type Topology, topologyFor } from '../hardware/topology.js';
import type { PlacementOption } from '../placement/index.js';
import { DISPOSE } from '../shared/dispose.js';
import { AllocationError, type Reason } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { freeMilli, shareBytes } from '../shared/share.js';
import { fail, own, readInput, rejectUnknownKeys, requireArray, requireInteger, requireObject } from '../shared/validate.js';
import { FitCounts } from './fit-counts.js';
import type { FleetKernels, FleetMemory } from './kernels.js';
import * as L from './layout.js';
import { decisionSeed, type Lookahead, lookaheadSize, samplingShapes, validateLookahead, writeLookahead } from './lookahead.js';
import type { NodeGpus, NodeView } from './node-view.js';
import {
  cleanRemainders,
  DEFAULT_POLICY,
  deadHole,
  type FleetPolicy,
  type FleetPolicyName,
  LEAST_SHAPE_COUNT,
  type NodeValues,
  nodeValueTables,
  P_CLUSTERING,
  P_FGD,
  P_LP,
  P_NODE,
  P_OURS,
  P_RANDOM,
  planTables,
  policyByName,
  RESERVE,
  THETAS,
} from './policies/index.js';
import { Prng } from './prng.js';
import { type FleetPod, modelMask, type NodeSpec, type Pod, validatePod, validatePods } from './types.js';
import { type TypicalPod, typicalPods } from './typical.js';

/**
 * What a forgotten scheduler leaves behind, released when the garbage collector takes it: its
 * subscription to the state's changes and its kernel memory (wasm: a block of the core's heap).
 */
const forgotten = new FinalizationRegistry<{ unsubscribe: () => void; memory: FleetMemory }>((left) => {
  left.unsubscribe();
  left.memory.free();
});

/** What `state.podScheduler` takes. */
/** The kernels a pod scheduler calls: the fleet's, and the aligned pick for whole GPUs on a topology. */
export type PodSchedulerKernels = FleetKernels & AlignedKernels & { readonly backend: string };

/** Options of a pod scheduler. */
export type PodSchedulerOptions = {
  /** Policy name (default 'fgd-node'): one of FLEET_POLICIES' names. */
  policy?: FleetPolicyName;
  /** The workload whose typical-pod distribution defines fragmentation, whose share sizes set fgd-close's dead hole (their 1st percentile), fgd-lp's share prices and fgd-node's node-level LP and rollouts; required for fgd, fgd-close, fgd-lp and fgd-node. */
  typical?: readonly FleetPod[];
  /** Each node's tie-break rank, in the state's node order: a permutation of 0..nodes−1, the smallest wins (default: node order). */
  ranks?: readonly number[];
  /** Pods whose shapes (CPU, share, GPU count; and host memory) get a score class and a tree of the pod index (default: the typical workload's); plans do not depend on it, a pod of another shape is planned by the scan. */
  shapes?: readonly FleetPod[];
  /** Seed of the random policy's draws and of a lookahead's continuations (default 42). */
  seed?: number;
  /**
   * How a pod's node is found (default 'index'): 'index' walks the pod index (per-class tournament
   * trees of cached scores, O(log N) a pick) wherever the policy's score can be cached and the pod's
   * shape has a class; 'scan' filters and scores every node. Both give the same plans.
   */
  search?: PodSearch;
};

/** How the pod scheduler finds a pod's node: the pod index, or the scan of every node (same plans). */
export type PodSearch = 'index' | 'scan';

/** A pod's plan: one option, or none and why (infeasible is not an error). */
export type PodPlan = { options: PlacementOption[]; reason?: undefined } | { options: []; reason: Reason };

/**
 * What the scheduler sees of a node: CPU left (milli-CPU), host memory left (MiB, rounded down) and
 * each GPU's free milli in GPU-index order. Untracked CPU or memory reads 2^31 − 1; a node whose GPUs
 * differ in memoryTotal, or are of at most 10^6 bytes (LIMITS.maxNoShareGpuMemory), shows no GPUs (it
 * is offered to CPU-only pods only).
 */
export type PodNodeView = { cpu: number /** Host memory left, in MiB. */; memoryMiB: number; gpus: number[] };

const KEYS = ['policy', 'typical', 'ranks', 'shapes', 'seed', 'search'];
const MAX_INT = 0x7fffffff;
const MIB = 1048576;

/** A score class: pods of one shape (cpu, milli, GPU count) score every node alike. */
type ShapeClass = { cls: number; firstTree: number; floors: number[] };

/** The shape key of the score cache: allowed models never change a score, and memory only fgd-node's (its node value counts host memory). */
function shapeKey(p: Pod, policy: number): string {
  return policy === P_NODE ? `${p.cpu},${p.milli},${p.gpus},${p.memory}` : `${p.cpu},${p.milli},${p.gpus}`;
}

/** Validates the options and makes a scheduler over `nodes`, a state's NodeView (ClusterState.podScheduler). */
export function createPodScheduler(kernels: PodSchedulerKernels, nodes: NodeView, options: PodSchedulerOptions): PodScheduler {
  const o = requireObject('options', readInput('options', options));
  rejectUnknownKeys('options', o, KEYS);
  const policy = policyByName(own(o, 'policy') ?? DEFAULT_POLICY, 'options.policy');
  const rawTypical = own(o, 'typical');
  if (rawTypical === undefined && (policy.id === P_FGD || policy.id === P_OURS || policy.id === P_LP || policy.id === P_NODE)) {
    fail('INVALID_ARGUMENT', 'options.typical', `the workload whose typical pods define fragmentation (policy '${policy.name}' scores by it)`, rawTypical);
  }
  const typical = rawTypical === undefined ? [] : validatePods('options.typical', rawTypical);
  const count = nodes.count;
  let ranks: number[];
  const rawRanks = own(o, 'ranks');
  if (rawRanks === undefined) ranks = Array.from({ length: count }, (_, k) => k);
  else {
    const list = requireArray('options.ranks', rawRanks, LIMITS.maxNodes);
    if (list.length !== count) fail('INVALID_ARGUMENT', 'options.ranks', `one rank per node (${count})`, list.length);
    const seen = new Uint8Array(count);
    ranks = list.map((r, k) => {
      const rank = requireInteger(`options.ranks[${k}]`, r, 0, count - 1);
      if (seen[rank] !== 0) fail('INVALID_ARGUMENT', `options.ranks[${k}]`, 'a rank not given before (a permutation)', rank);
      seen[rank] = 1;
      return rank;
    });
  }
  const shapes = own(o, 'shapes') === undefined ? typical : validatePods('options.shapes', own(o, 'shapes'));
  const seed = own(o, 'seed') === undefined ? 42 : requireInteger('options.seed', own(o, 'seed'), 0, 0xffffffff);
  const search = podSearch('options.search', own(o, 'search'));
  return new PodScheduler(kernels, nodes, policy, typicalPods(typical), ranks, shapes, seed, undefined, search, typical);
}

/** The GPUs the kernels see on each node: all of them, or 0 when their memoryTotal differs or is at most 10^6 bytes (GPUs that small take no share, src/shared/share.ts: such a node is offered to CPU-only pods only). */
function kernelWidths(gpus: readonly NodeGpus[]): Int32Array {
  return Int32Array.from(gpus, (g) => (g.total.every((t) => t === g.total[0] && t > LIMITS.maxNoShareGpuMemory) ? g.total.length : 0));
}

/**
 * fgd-node's node values for the nodes of `view` (each one's capacity: what is left and what its slots
 * hold; the GPUs the kernels see) and `workload`: what a PodScheduler of fgd-node computes when it is
 * given none. None (every loss 0) for a fleet without GPUs or a workload without GPU pods, which the
 * node-level LP cannot scale. They depend on the capacities and the workload only, not on what is
 * placed where nor on the seed: a caller that replays one workload on one fleet several times (the
 * simulator's seeds) solves the LP once and passes the result to each scheduler (its `values`).
 */
export function fgdNodeValues(view: NodeView, workload: readonly Pod[]): NodeValues | undefined {
  const ids = view.nodeIds();
  const width = kernelWidths(ids.map((_, k) => view.gpus(k)));
  const specs = ids.map((id, k): NodeSpec => {
    let cpu = view.cpuLeft(k);
    let host = view.hostMemoryLeft(k);
    view.forEachSlot(k, (slot) => {
      cpu += slot.cpu ?? 0;
      host += slot.hostMemory ?? 0;
    });
    const memory = view.hostMemoryLeft(k) < 0 ? MAX_INT : Math.min(Math.floor(host / MIB), MAX_INT);
    return { id, cpu: view.cpuLeft(k) < 0 ? MAX_INT : Math.min(cpu, MAX_INT), memory, gpus: width[k]!, model: view.gpuModel(k) ?? '', gpuMemory: 0 };
  });
  if (specs.every((x) => x.gpus === 0) || workload.every((p) => p.gpus === 0 || p.milli === 0)) return undefined;
  return nodeValueTables(specs, workload, { thetas: THETAS, least: LEAST_SHAPE_COUNT });
}

/** Validates a PodSearch (absent: 'index'). */
export function podSearch(field: string, value: unknown): PodSearch {
  if (value === undefined) return 'index';
  if (value !== 'index' && value !== 'scan') fail('INVALID_ARGUMENT', field, "'index' or 'scan'", value);
  return value;
}

/**
 * Plans pods over a ClusterState by one fleet policy (state.podScheduler). Its view of the nodes is
 * the state's NodeView, re-synced node by node on every change; `plan` never changes the state.
 */
export class PodScheduler {
  /** The policy it plans by. */
  readonly policy: FleetPolicy;
  private readonly kernels: PodSchedulerKernels;
  private readonly nodes: NodeView;
  /** Stops the view's change notifications (close). */
  private readonly unsubscribe: () => void;
  /** With the index: how many nodes have each part of a declared shape's request, for NO_NODE_FITS. */
  private readonly fitCounts: FitCounts | null;
  private readonly memory: FleetMemory;
  /** Bytes of the kernel arrays (see memoryBytes). */
  private readonly bytes: number;
  private readonly nodeIds: string[];
  private readonly bits = new Map<string, number>();
  /** Score classes by shape key: the class number, and its trees (first tree number, memory floors ascending; none without an index). */
  private readonly classes = new Map<string, ShapeClass>();
  private readonly maxGpus: number;
  /** GPUs the kernels see per node: all of them, or 0 when their memoryTotal differs or is at most 10^6 bytes. */
  private readonly width: Int32Array;
  private readonly gpus: NodeGpus[];
  private readonly topologies: Array<{ topology: Topology; matrix: Int32Array } | undefined>;
  private readonly rng: Prng;
  private readonly seed: number;
  /** The policy's lookahead, and its block in the kernel arrays (0: none). */
  private readonly lookahead: Lookahead | undefined;
  private readonly lookAt: number;
  /** Node changes seen (sync calls): with the seed and the pod, a lookahead decision's seed. */
  private changes = 0;
  private closed = false;

  /**
   * Use state.podScheduler (it validates the options); the simulator and tests build one directly.
   * @param nodes the state's NodeView (state.nodeView())
   * @param typical the typical-pod distribution of the fragmentation measure
   * @param ranks each node's tie-break rank in the state's node order (a permutation)
   * @param shapes pods whose shapes get a score class and a tree of the pod index (others are planned by the scan)
   * @param dead fgd-close's dead hole in milli (default: deadHole(workload): the workload's, whatever shapes the index is given)
   * @param search the pod index or the scan (see PodSchedulerOptions.search)
   * @param workload the pods whose share sizes fgd-lp's configuration LP prices, and whose shapes fgd-node's node-level LP prices (default: shapes, for callers whose shapes are the workload)
   * @param values fgd-node's node values (default: fgdNodeValues(nodes, workload); a caller replaying the same nodes and workload again passes the ones it has)
   */
  constructor(
    kernels: PodSchedulerKernels,
    nodes: NodeView,
    policy: FleetPolicy,
    typical: readonly TypicalPod[],
    ranks: readonly number[],
    shapes: readonly Pod[] = [],
    seed = 42,
    dead: number | undefined = undefined,
    search: PodSearch = 'index',
    workload: readonly Pod[] = shapes,
    values?: NodeValues,
  ) {
    this.policy = policy;
    this.kernels = kernels;
    this.nodes = nodes;
    this.rng = new Prng(seed);
    this.seed = seed;
    this.lookahead = policy.lookahead === undefined ? undefined : validateLookahead('policy.lookahead', policy.lookahead);
    this.nodeIds = nodes.nodeIds();
    const n = this.nodeIds.length;
    this.gpus = this.nodeIds.map((_, k) => nodes.gpus(k));
    this.width = kernelWidths(this.gpus);
    this.topologies = this.nodeIds.map((_, k) => {
      const t = nodes.topology(k);
      return t === undefined ? undefined : topologyFor(t);
    });
    // Model bits in order of first appearance; nodes with GPUs but no gpuModel share one more bit, which no pod can list.
    const nodeBit = new Int32Array(n);
    let anonymousBit = 0;
    let used = 0;
    const nextBit = (): number => {
      if (used === LIMITS.maxFleetModels) throw AllocationError.at('LIMIT_EXCEEDED', 'state', `more than ${LIMITS.maxFleetModels} GPU models`);
      return used++;
    };
    for (let k = 0; k < n; k++) {
      if (this.width[k] === 0) continue;
      const model = nodes.gpuModel(k);
      if (model === undefined) {
        if (anonymousBit === 0) anonymousBit = 1 << nextBit();
        nodeBit[k] = anonymousBit;
      } else {
        let b = this.bits.get(model);
        if (b === undefined) {
          b = nextBit();
          this.bits.set(model, b);
        }
        nodeBit[k] = 1 << b;
      }
    }
    const floors: number[][] = [];
    for (const p of shapes) {
      const key = shapeKey(p, policy.id);
      let c = this.classes.get(key);
      if (c === undefined) {
        c = { cls: this.classes.size, firstTree: 0, floors: [] };
        this.classes.set(key, c);
        floors.push([]);
      }
      if (!floors[c.cls]!.includes(p.memory)) floors[c.cls]!.push(p.memory);
    }
    this.maxGpus = this.width.reduce((most, w) => Math.max(most, w), 0);
    // The random policy has no score to cache: it always scans, and gets no index.
    // One tree per (class, memory asked by a shape of the class), a class's trees in a row by floor.
    const indexed = search === 'index' && policy.id !== P_RANDOM;
    const trees: number[] = [];
    if (indexed) {
      for (const c of this.classes.values()) {
        c.firstTree = trees.length / 2;
        c.floors = floors[c.cls]!.sort((a, b) => a - b);
        for (const floor of c.floors) trees.push(c.cls, floor);
      }
    }
    const node = policy.id === P_NODE ? (values ?? fgdNodeValues(nodes, workload)) : undefined;
    const entries = node === undefined ? 0 : node.core.length;
    const { ints, floats, header } = L.fleetLayout(n, this.maxGpus, typical.length, this.classes.size, trees.length / 2, node?.lambdas ?? 0, entries);
    // The lookahead block after the layout: its sampling table has a row per model bit, and one for nodes without GPUs.
    const sampling = this.lookahead === undefined ? undefined : samplingShapes(workload, this.bits);
    const look = this.lookahead === undefined || sampling === undefined ? { ints: 0, floats: 0 } : lookaheadSize(this.lookahead, sampling, used + 1, this.maxGpus);
    this.lookAt = this.lookahead === undefined ? 0 : ints;
    this.memory = kernels.fleetAlloc(ints + look.ints, floats + look.floats);
    this.bytes = (ints + look.ints) * 4 + (floats + look.floats) * 8;
    const s = this.memory.ints();
    const f = this.memory.floats();
    s.set(header, 0);
    if (this.lookahead !== undefined && sampling !== undefined) writeLookahead(s, f, ints, floats, this.lookahead, sampling, used + 1);
    s[L.H_DEAD] = dead ?? deadHole(workload);
    s.set(cleanRemainders(typical, s[L.H_DEAD]), header[L.H_CLEAN_AT]);
    // fgd-lp's plan tables: solved only for that policy (the LP takes a fraction of a second on openb).
    if (policy.id === P_LP) {
      const { value, price } = planTables(workload);
      f.set(value, header[L.H_F_PLAN]);
      f.set(price, header[L.H_F_PLAN]! + L.PLAN_SIZE);
    }
    // fgd-node's node values: per value entry its prices per core and per GiB, then its table; each node's type; the reserve.
    if (node !== undefined) {
      const at = header[L.H_F_VALUE]! + n;
      f.set(node.core, at);
      f.set(node.gib, at + entries);
      f.set(node.table, at + 2 * entries);
      s[L.H_VALUE_NONNEG] = node.table.every((v) => v >= 0) ? 1 : 0;
      s[L.H_RESERVE] = RESERVE;
    }
    // The model bits some model-constrained typical GPU pod accepts (N_WANTED).
    let wanted = 0;
    typical.forEach((t, i) => {
      const q = header[L.H_TYP_AT]! + i * L.T_FIELDS;
      const mask = modelMask(t.models, this.bits);
      s[q] = t.cpu;
      s[q + 1] = t.milli;
      s[q + 2] = t.gpus;
      s[q + 3] = mask;
      f[header[L.H_F_WEIGHT]! + i] = t.weight;
      if (t.gpus > 0 && t.models.length > 0) wanted |= mask;
    });
    const stride = header[L.H_STRIDE]!;
    for (let k = 0; k < n; k++) {
      const base = header[L.H_NODE_AT]! + k * stride;
      const bit = nodeBit[k]!;
      s[base + L.N_MODEL] = bit;
      s[base + L.N_GPUS] = this.width[k]!;
      s[base + L.N_RANK] = ranks[k]!;
      s[base + L.N_WANTED] = (bit & wanted) !== 0 ? 1 : 0;
      s[base + L.N_TYPE] = node === undefined ? 0 : node.typeOf[k]!;
    }
    f.set(L.fgdThresholds(), header[L.H_F_THR]);
    if (trees.length > 0) {
      s.set(L.leafOrder(nodeBit), header[L.H_LEAF_AT]);
      for (let k = 0; k < trees.length / 2; k++) {
        s[header[L.H_TREE_AT]! + k * L.TREE_FIELDS] = trees[2 * k]!;
        s[header[L.H_TREE_AT]! + k * L.TREE_FIELDS + 1] = trees[2 * k + 1]!;
      }
    }
    for (let k = 0; k < n; k++) this.write(s, k);
    kernels.fleetInit(this.memory);
    this.fitCounts = indexed ? new FitCounts(shapes, this.memory.ints()) : null;
    this.unsubscribe = subscribeWeakly(nodes, this, this.memory);
  }

  /** Writes node k's resources from the state into the kernel arrays (the caller refreshes it). */
  private write(s: Int32Array, k: number): void {
    const base = s[L.H_NODE_AT]! + k * s[L.H_STRIDE]!;
    const cpu = this.nodes.cpuLeft(k);
    const host = this.nodes.hostMemoryLeft(k);
    s[base + L.N_CPU] = cpu < 0 ? MAX_INT : Math.min(cpu, MAX_INT);
    s[base + L.N_MEM] = host < 0 ? MAX_INT : Math.min(Math.floor(host / MIB), MAX_INT);
    const maxG = this.maxGpus;
    const tags = base + L.N_TAGS;
    const { total, free } = this.gpus[k]!;
    // The GPU-pod tag counts: only the clustering policy scores by them (they stay 0 for the others).
    if (this.policy.id === P_CLUSTERING) {
      s.fill(0, tags, tags + maxG + 1);
      // A slot's tag: 0 for one GPU below a whole GPU (a share), else its GPU count; no GPUs: none.
      this.nodes.forEachSlot(k, (slot, positions) => {
        const count = positions.length;
        if (count === 0) return;
        const tag = count === 1 && slot.memoryPerGpu < total[positions[0]!]! ? 0 : count;
        if (tag <= maxG) s[tags + tag]!++;
      });
    }
    const gAt = tags + maxG + 1;
    const width = this.width[k]!;
    for (let p = 0; p < width; p++) s[gAt + p] = freeMilli(free[p]!, total[p]!);
  }

  /** Node k of the state changed: re-sync it (called by the view's listener, see subscribeWeakly). */
  sync(k: number): void {
    this.changes++;
    this.fitCounts?.take(this.memory.ints(), k);
    this.write(this.memory.ints(), k);
    this.kernels.fleetRefresh(this.memory, k);
    this.fitCounts?.apply(this.memory.ints(), k);
  }

  private checkOpen(): void {
    if (this.closed) throw new AllocationError('INVALID_ARGUMENT', 'podScheduler: used after close()', { field: 'scheduler' });
  }

  /**
   * The best node for `pod` by the policy, as an option for state.commit: GPU indices, memoryPerGpu =
   * floor(milli × memoryTotal / 1000), milli (GPU pods), cpu, hostMemory (bytes: the pod's MiB × 2^20),
   * no evictions (pods never evict), score = the topology set score of the GPUs (0 without a topology).
   * Or no option and a NO_NODE_FITS reason naming what no node has. Does not change the state.
   */
  plan(pod: FleetPod): PodPlan {
    this.checkOpen();
    const p = validatePod('pod', readInput('pod', pod));
    const random = this.policy.gpuChoice === 'random';
    const u1 = random ? this.rng.float() : 0;
    const u2 = random ? this.rng.float() : 0;
    const option = this.planWithDraws(p, u1, u2);
    return option === null ? { options: [], reason: this.reasonFor(p) } : { options: [option] };
  }

  /** plan for a validated pod with the random policy's draws u1, u2 ∈ [0, 1) (the simulator draws them); null when no node fits. */
  planWithDraws(pod: Pod, u1: number, u2: number): PlacementOption | null {
    this.checkOpen();
    const shape = this.classes.get(shapeKey(pod, this.policy.id));
    const cls = shape === undefined ? -1 : shape.cls;
    // The tree of the class with the highest memory floor the pod reaches (none: the scan).
    let tree = -1;
    if (shape !== undefined) for (let k = shape.floors.length - 1; k >= 0 && tree < 0; k--) if (shape.floors[k]! <= pod.memory) tree = shape.firstTree + k;
    const mask = pod.gpus === 0 ? -1 : modelMask(pod.models, this.bits);
    if (this.lookAt !== 0) this.memory.ints()[this.lookAt + L.LK_SEED] = decisionSeed(this.seed, this.changes, pod.cpu, pod.memory, pod.gpus, pod.milli, mask);
    const node = this.kernels.fleetPick(this.memory, this.policy.id, cls, tree, pod.cpu, pod.memory, pod.gpus, pod.milli, mask, u1, u2);
    if (node < 0) return null;
    const s = this.memory.ints();
    const out = s[L.H_OUT_AT]!;
    const { indices, total } = this.gpus[node]!;
    let gpus: number[] = [];
    for (let k = 1; k <= s[out]!; k++) gpus.push(indices[s[out + k]!]!);
    const aligned = this.topologies[node];
    if (aligned !== undefined && gpus.length > 0 && this.policy.gpuChoice !== 'random') gpus = this.topologyChoice(node, aligned.topology, gpus);
    const option: PlacementOption = { node: this.nodeIds[node], gpus, memoryPerGpu: 0, evict: [], score: 0 };
    if (gpus.length > 0) {
      option.memoryPerGpu = shareBytes(pod.milli, total[0]!);
      option.score = aligned === undefined ? 0 : setScore(aligned.matrix, aligned.topology.gpus, gpus);
      option.milli = pod.milli;
    }
    option.cpu = pod.cpu;
    option.hostMemory = pod.memory * MIB;
    return option;
  }

  /**
   * GPU choice on a node with a topology. Every policy here scores a node by its multiset of free
   * milli, so wholly free GPUs are interchangeable for the score: whole GPUs (several, or one for a
   * whole-GPU pod, or one a share opens) are picked among the wholly free ones by the topology search
   * (allocateAligned, policy 'topology': the best-connected set that leaves the best-connected rest;
   * for one GPU, the least connected to the other free ones). A share on a partly used GPU stays where
   * the policy put it.
   */
  private topologyChoice(node: number, topology: Topology, gpus: number[]): number[] {
    const s = this.memory.ints();
    const gAt = s[L.H_NODE_AT]! + node * s[L.H_STRIDE]! + L.N_TAGS + this.maxGpus + 1;
    const { indices } = this.gpus[node]!;
    const available: number[] = [];
    for (let p = 0; p < this.width[node]!; p++) if (s[gAt + p] === 1000) available.push(indices[p]!);
    if (gpus.some((g) => !available.includes(g))) return gpus;
    const result = allocateAligned(this.kernels, { topology, available, size: gpus.length, policy: 'topology' });
    return result.devices.length === gpus.length ? result.devices : gpus;
  }

  /** NO_NODE_FITS: how many nodes have each part of the request, so the message names what is missing. */
  private reasonFor(pod: Pod): Reason {
    const s = this.memory.ints();
    const stride = s[L.H_STRIDE]!;
    const gpuPod = pod.gpus > 0 && pod.milli > 0;
    const mask = gpuPod ? modelMask(pod.models, this.bits) : -1;
    const kept = this.fitCounts?.fits(pod, mask) ?? null;
    let cpu = kept?.cpu ?? 0;
    let memory = kept?.memory ?? 0;
    let model = kept?.model ?? 0;
    let room = kept?.room ?? 0;
    // A threshold no declared shape has: a pass over every node.
    for (let k = 0; kept === null && k < this.nodeIds.length; k++) {
      const base = s[L.H_NODE_AT]! + k * stride;
      if (s[base + L.N_CPU]! >= pod.cpu) cpu++;
      if (s[base + L.N_MEM]! >= pod.memory) memory++;
      if (!gpuPod) continue;
      if ((s[base + L.N_MODEL]! & mask) !== 0) model++;
      if (s[base + L.N_GPUS]! > 0 && (pod.gpus === 1 ? s[base + L.N_MAXFREE]! >= pod.milli : s[base + L.N_FULL]! >= pod.gpus)) room++;
    }
    const n = this.nodeIds.length;
    const gpuText = !gpuPod ? '' : pod.gpus === 1 && pod.milli < 1000 ? ` and a GPU with ${pod.milli} milli free` : ` and ${pod.gpus} wholly free GPU${pod.gpus > 1 ? 's' : ''}`;
    const models = gpuPod && pod.models.length > 0 ? ` of model ${pod.models.join(' or ')}` : '';
    const counts = [`${cpu} of ${n} nodes have the CPU`, `${memory} the host memory`];
    if (gpuPod) {
      counts.push(`${room} the free GPUs`);
      if (pod.models.length > 0) counts.push(`${model} the GPU model`);
    }
    return { code: 'NO_NODE_FITS', message: `pod ${pod.id}: no node has ${pod.cpu} milli-CPU, ${pod.memory} MiB of host memory${gpuText}${models} at once (${counts.join(', ')})` };
  }

  /** What the scheduler sees of node `node` (see PodNodeView): a copy, read from the kernel arrays. */
  view(node: string): PodNodeView {
    this.checkOpen();
    const k = this.nodes.indexOf(node);
    const s = this.memory.ints();
    const base = s[L.H_NODE_AT]! + k * s[L.H_STRIDE]!;
    const gAt = base + L.N_TAGS + this.maxGpus + 1;
    return { cpu: s[base + L.N_CPU]!, memoryMiB: s[base + L.N_MEM]!, gpus: Array.from(s.subarray(gAt, gAt + s[base + L.N_GPUS]!)) };
  }

  /**
   * Bytes the scheduler keeps in its kernels' memory: the node table, the typical pods and, per score
   * class and node, the score cache, or with the index its leaves, GPU choices and stale lists and
   * per tree and node its entries (see src/fleet/layout.ts). What the pod index costs is the
   * difference between search 'index' and 'scan'.
   */
  memoryBytes(): number {
    return this.bytes;
  }

  /**
   * Σ over nodes of Frag(node), in milli-GPU: kept by the kernels as nodes change (O(1) a change),
   * summed afresh in node order every N changes, so it may differ from a fresh sum in the last bits.
   */
  fragmentation(): number {
    this.checkOpen();
    return this.memory.floats()[this.memory.ints()[L.H_F_FRAG]!]!;
  }

  /** Decisions the policy's lookahead rolled out on so far (two or more close candidates, the pod in its scope); 0 without a lookahead. */
  lookaheadDecisions(): number {
    this.checkOpen();
    return this.lookAt === 0 ? 0 : this.memory.ints()[this.lookAt + L.LK_LOOKUPS]!;
  }

  /** Frag of node `node`, in milli-GPU. */
  nodeFragmentation(node: string): number {
    this.checkOpen();
    return this.memory.floats()[this.nodes.indexOf(node)]!; // indexOf throws UNKNOWN_NODE for a node not there
  }

  /**
   * Stops following the state and releases the kernel memory at once; using the scheduler afterwards
   * is an error. A scheduler dropped without close() is released when the garbage collector takes it
   * (the state does not keep it alive), but close() (or `using`) frees it now.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    forgotten.unregister(this);
    this.unsubscribe();
    this.memory.free();
  }

  /** close(), for `using scheduler = state.podScheduler(…)`. */
  [DISPOSE](): void {
    this.close();
  }
}

/**
 * Subscribes `scheduler` to the view's changes without the view holding it: the listener reaches it
 * through a WeakRef, so one that is dropped without close() is not kept alive by the state, stops
 * being told of changes once collected (its listener removes itself, and `forgotten` unsubscribes it
 * and frees its kernel memory), and costs later commits nothing. Made here, outside the constructor,
 * so that the listener's closure holds nothing but the WeakRef and its own stop function.
 */
function subscribeWeakly(nodes: NodeView, scheduler: PodScheduler, memory: FleetMemory): () => void {
  const self = new WeakRef(scheduler);
  const unsubscribe = nodes.onChange((k) => {
    const live = self.deref();
    if (live === undefined) unsubscribe();
    else live.sync(k);
  });
  forgotten.register(scheduler, { unsubscribe, memory }, scheduler);
  return unsubscribe;
}

/** Topology set score of GPU indices: the sum of their pair scores. */
function setScore(matrix: Int32Array, width: number, gpus: readonly number[]): number {
  let score = 0;
  for (let i = 0; i < gpus.length; i++) for (let j = i + 1; j < gpus.length; j++) score += matrix[gpus[i]! * width + gpus[j]!]!;
  return score;
}
