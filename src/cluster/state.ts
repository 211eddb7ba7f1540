// ClusterState: plan and commit placements across nodes without over-scheduling (the Helix
// "execution" method). The front of the cluster room; the work is done by
//   json.ts       the JSON schema: create/restore validation, toJSON
//   ledger.ts     nodes, GPUs and slots in flat typed arrays, and their bookkeeping
//   indexes.ts    each node's summary and the free-memory and stale-slot indexes, kept up to date
//   search.ts     the cross-node search behind plan
//   multi-node.ts options across several nodes (tensor-parallel × pipeline stages), topology-aware
//   commit.ts     commit's checks (checkCommit), a pure function the stores call too
//   node-view.ts  the read-only NodeView (fleet's port) pod schedulers plan over, and change notification

import { createPodScheduler, type NodeView, type PodScheduler, type PodSchedulerKernels, type PodSchedulerOptions } from '../fleet/index.js';
import { type PlacementKernels, type PlacementOption, type PlacementPlan, type Slot, validatePlanRequest } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { formatBytes } from '../shared/units.js';
import { describeValue, fail, readInput, requireObject, requireString } from '../shared/validate.js';
import { activityTime, checkIdle, type ReleaseOptions, releaseOptions } from './activity.js';
import { type CommitOptions, checkCommit } from './commit.js';
import { NodeIndexes } from './indexes.js';
import { type ClusterInit, type ClusterStateJSON, createLedger, ledgerJSON, restoreLedger } from './json.js';
import type { GpuUsage, Ledger, SlotRecord } from './ledger.js';
import type { MultiNodePlanner, SpanPlanner } from './multi-node.js';
import { LedgerView } from './node-view.js';
import { type ClusterPlanRequest, spanRequestOf } from './plan-request.js';
import { ClusterPlanner } from './search.js';

export type { NodeGpus, NodeView } from '../fleet/index.js';
export { activityTime, checkIdle, type ReleaseOptions, releaseOptions } from './activity.js';
export type { CommitOptions } from './commit.js';
export { checkCommit } from './commit.js';
export type { ClusterInit, ClusterStateJSON } from './json.js';
export { CLUSTER_STATE_KEYS, CLUSTER_STATE_VERSION, ledgerJSON, normalizeStateJSON, restoreLedger, stateFileText } from './json.js';
export type { GpuUsage, Ledger } from './ledger.js';
export type { MultiNodePlanner } from './multi-node.js';
export type { ClusterNode } from './node.js';
export { CLUSTER_REJECTED_NODES } from './search.js';

/** The kernels a cluster state calls: the placement search's and its pod schedulers'. */
export type ClusterKernels = PlacementKernels & PodSchedulerKernels;

export { CLUSTER_PLAN_KEYS, type ClusterPlanRequest, type TopologyConstraint } from './plan-request.js';

/*
 * What a local ClusterState and a store's StoredClusterState have in common, so code can take either:
 * planning and reading are synchronous on both; changes return a value on the local state and a
 * promise on a stored one (`await` takes both).
 */
/** A cluster state, local (ClusterState) or stored (StoredClusterState from gpualloc/store). */
export interface ClusterStateLike {
  /** Every viable placement across the nodes, best first (see ClusterState.plan). */
  plan(request: ClusterPlanRequest): PlacementPlan;
  /** Applies an option after re-validating it; the new slot's ID (a promise on a stored state). */
  commit(option: PlacementOption, options?: CommitOptions): string | Promise<string>;
  /** Removes a slot. */
  release(slotId: string, options?: ReleaseOptions): void | Promise<void>;
  /** Records activity of a slot at `at` (ms since the epoch; default now). */
  touch(slotId: string, at?: number): void | Promise<void>;
  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale?: boolean): void | Promise<void>;
  /** Copies of the slots, of one node or of all. */
  listSlots(node?: string): Slot[];
  /** Per GPU: total, used by others, held by slots, free (bytes). */
  usage(): GpuUsage[];
  /** The node IDs, in the order given. */
  nodes(): string[];
  /** The state as plain JSON (restoreClusterState reads it back). */
  toJSON(): ClusterStateJSON;
}

/** Why a state without the multi-node planner does not plan across nodes, and how to get one that does. */
const ONE_NODE = 'this state plans on one node at a time (openPlacementEngine({ multiNode: multiNodePlanner }) or openEngine() plans across nodes)';

/** Holds GPUs and slots of one or many nodes; every change keeps each GPU's allocated memory within its total. */
export class ClusterState implements ClusterStateLike {
  private readonly kernels: ClusterKernels;
  private readonly ledger: Ledger;
  private readonly indexes: NodeIndexes;
  private readonly planner: ClusterPlanner;
  /** Plans across nodes; absent in a state made without the multi-node planner (plan says so where it matters). */
  private readonly multiNode: MultiNodePlanner | undefined;
  private readonly spans: SpanPlanner | undefined;
  /** largestNode's answer (-1: not computed yet; node GPUs never change). */
  private largest = -1;
  /** The read port pod schedulers see (nodeView), and the change notification behind it. */
  private readonly view: LedgerView;

  private constructor(kernels: ClusterKernels, ledger: Ledger, multiNode: MultiNodePlanner | undefined) {
    this.kernels = kernels;
    this.ledger = ledger;
    this.indexes = new NodeIndexes(ledger);
    this.planner = new ClusterPlanner(kernels, ledger, this.indexes);
    this.multiNode = multiNode;
    this.spans = multiNode?.spansOver(kernels, ledger, this.indexes);
    this.view = new LedgerView(ledger);
  }

  /**
   * Creates a state from nodes (or one inventory). With `multiNode` (multi-node.ts's planner) it also
   * plans across nodes; without it, one node at a time (see plan).
   */
  static create(kernels: ClusterKernels, init: ClusterInit, multiNode?: MultiNodePlanner): ClusterState {
    return new ClusterState(kernels, createLedger(init), multiNode);
  }

  /** Restores a state from toJSON's output (the object or its JSON text); anything malformed is INVALID_STATE. `multiNode` as in create. */
  static restore(kernels: ClusterKernels, json: unknown, multiNode?: MultiNodePlanner): ClusterState {
    return new ClusterState(kernels, restoreLedger(json), multiNode);
  }

  /**
   * Plans across every node: options ranked by planPlacement's key up to the policy metric, then
   * the least loaded node (lowest (memoryTotal − free) / memoryTotal), then node ID in natural order,
   * then lowest GPU indices (indices only order GPUs of one node). `rejected` lists the per-GPU
   * rejections of the first CLUSTER_REJECTED_NODES nodes when there is no option (empty otherwise,
   * to keep planning cheap); the reason counts theirs and says so when the state has more nodes.
   * GPUs in MIG mode (NodeGpu.mig) are left out (rejection MIG_MODE) unless the request sets allowMig.
   * How the nodes to search are found: src/cluster/search.ts.
   *
   * Across nodes: when no node can hold the model, or when `maxNodes` (≥ 2) allows it, options of
   * 2 .. maxNodes nodes follow the one-node options (tensor-parallel inside each node × one pipeline
   * stage per node, with `parts`, `tensorParallel` and `pipelineParallel`; `topology` constrains and
   * ranks them by node labels). Their rules and ranking: src/cluster/multi-node.ts, docs/multi-node.md.
   * A state of an engine opened without the multi-node planner (openPlacementEngine without
   * `multiNode`) plans on one node at a time: `maxNodes` ≥ 2 is INVALID_ARGUMENT there, and a model
   * no node can hold gets NO_VIABLE_OPTION saying that options across nodes were not searched.
   */
  plan(request: ClusterPlanRequest): PlacementPlan {
    const r = requireObject('request', readInput('request', request, false));
    const span = spanRequestOf(r);
    const req = validatePlanRequest(r);
    if (this.multiNode === undefined && span.maxNodesGiven && span.maxNodes >= 2) {
      throw AllocationError.at('INVALID_ARGUMENT', 'maxNodes', `${span.maxNodes}: ${ONE_NODE}`);
    }
    if (span.heads !== undefined) req.sizes = (req.sizes ?? Array.from({ length: this.ledger.maxWidth }, (_, k) => k + 1)).filter((t) => span.heads! % t === 0);
    const blind = req.allowMig && this.ledger.mig !== null;
    const single = blind ? this.migBlindPlanner().plan(req) : this.planner.plan(req);
    // Options across nodes rank after every one-node option: wanted only when asked (maxNodes ≥ 2) or when the model is bigger
    // than any node (more than the largest node's GPU memory, empty); a model that waits for room on a node is not.
    if (span.maxNodes === 1 || this.ledger.nodeIds.length < 2 || single.options.length >= req.limit) return single;
    if (span.maxNodesGiven === false && (single.options.length > 0 || req.memory <= this.largestNode())) return single;
    const planner = blind ? this.migBlindSpans() : this.spans;
    if (planner === undefined) {
      return { options: [], rejected: single.rejected, reason: { code: 'NO_VIABLE_OPTION', message: `${single.reason?.message}; no node can hold ${formatBytes(req.memory)}, and ${ONE_NODE}` } };
    }
    const spans = planner.plan({
      memory: req.memory,
      model: req.model,
      sizes: req.sizes,
      pack: req.pack,
      limit: req.limit - single.options.length,
      maxNodes: span.maxNodes,
      required: span.required,
      preferred: span.preferred,
    });
    // None across nodes either: the one-node plan's rejections stand, and its reason says what the search across nodes found.
    if (spans.reason !== undefined) {
      if (single.options.length > 0) return single;
      return { options: [], rejected: single.rejected, reason: { code: 'NO_VIABLE_OPTION', message: `${single.reason?.message}; ${spans.reason.message}` } };
    }
    return { options: [...single.options, ...spans.options], rejected: [] };
  }

  /**
   * Applies an option atomically: re-validates it against the current state, evicts the slots it
   * lists and adds the new slot; returns the new slot's ID. Throws CONFLICT, changing nothing, when
   * the option no longer fits (memory taken since planning, an evicted slot gone or no longer stale).
   */
  commit(option: PlacementOption, options: CommitOptions = {}): string {
    const change = checkCommit(this.ledger, option, options);
    // Every node the change touches: the option's (each part's) and those of the slots it evicts (each part's).
    const nodes = new Set(change.parts === undefined ? [change.node] : change.parts.map((p) => p.node));
    for (const sid of change.evict) for (const k of this.ledger.nodesOf(sid)) nodes.add(k);
    const id = this.ledger.commit(change);
    for (const k of nodes) this.changed(k);
    return id;
  }

  /**
   * Removes a slot and frees its memory on every GPU it spans. With `idleBefore` (ms since the
   * epoch) only a slot whose last activity is before it: one active since, or with no recorded
   * activity, is kept and the call throws CONFLICT (what a garbage collector wants when a slot may
   * be touched between its listing and its removal).
   */
  release(slotId: string, options: ReleaseOptions = {}): void {
    const r = this.slotRecord(slotId);
    checkIdle(r.slot, releaseOptions(options));
    const nodes = this.ledger.nodesOf(r.slot.id);
    this.ledger.removeSlot(r.slot.id);
    for (const k of nodes) this.changed(k);
  }

  /**
   * Records activity of a slot at `at` (ms since the epoch; default now): its lastActivity becomes
   * `at` unless it already records later activity. A serving process touches its slot now and then;
   * `gpualloc state gc --older-than D` removes the slots idle for longer than D.
   */
  touch(slotId: string, at: number = Date.now()): void {
    const r = this.slotRecord(slotId);
    this.ledger.touch(r, activityTime('at', at));
    for (const k of this.ledger.nodesOf(r.slot.id)) this.changed(k);
  }

  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale = true): void {
    const r = this.slotRecord(slotId);
    if (typeof stale !== 'boolean') fail('INVALID_ARGUMENT', 'stale', 'a boolean', stale);
    this.ledger.setStale(r, stale);
    for (const k of this.ledger.nodesOf(r.slot.id)) this.changed(k);
  }

  /** Copies of the slots, of one node or of all, in the order they were added. */
  listSlots(node?: string): Slot[] {
    return this.ledger.listSlots(node === undefined ? -1 : this.ledger.nodeIndex(node));
  }

  /** Allocated memory of every GPU (bytes), node by node, GPUs by index. */
  usage(): GpuUsage[] {
    return this.ledger.usage();
  }

  /** Node IDs in the order they were given. */
  nodes(): string[] {
    return [...this.ledger.nodeIds];
  }

  /**
   * A pod scheduler over this state (src/fleet/scheduler.ts): it plans pods (CPU, host memory,
   * a GPU share or whole GPUs, allowed GPU models) by a fleet policy over this state's nodes, and
   * `commit` applies its options like any other; every change to a node re-syncs it in every
   * scheduler (through the NodeView). `close()` it when done.
   */
  podScheduler(options: PodSchedulerOptions = {}): PodScheduler {
    return createPodScheduler(this.kernels, this.view, options);
  }

  /** The read-only, live view of the nodes a pod scheduler plans over (see NodeView). */
  nodeView(): NodeView {
    return this.view;
  }

  /** A plain object that restoreClusterState turns back into an identical state. */
  toJSON(): ClusterStateJSON {
    return ledgerJSON(this.ledger);
  }

  /**
   * A planner over a copy of the state in which no GPU is in MIG mode, for a plan that allows them
   * (allowMig). Built for the one plan: such plans are the exception, and the planner's indexes
   * leave MIG GPUs out so that every other plan stays as fast as without them.
   */
  private migBlindPlanner(): ClusterPlanner {
    const ledger = this.migBlindLedger();
    return new ClusterPlanner(this.kernels, ledger, new NodeIndexes(ledger));
  }

  /** migBlindPlanner's multi-node twin (undefined without the multi-node planner). */
  private migBlindSpans(): SpanPlanner | undefined {
    if (this.multiNode === undefined) return undefined;
    const ledger = this.migBlindLedger();
    return this.multiNode.spansOver(this.kernels, ledger, new NodeIndexes(ledger));
  }

  /** A copy of the ledger in which no GPU is in MIG mode. */
  private migBlindLedger(): Ledger {
    const json = ledgerJSON(this.ledger);
    for (const node of json.nodes) for (const g of node.gpus) delete g.mig;
    return restoreLedger(json);
  }

  /** GPU memory of the largest node, empty (memoryTotal − memoryUsed summed over its GPUs), in bytes. */
  private largestNode(): number {
    if (this.largest < 0) {
      const { capacity, gpuStart } = this.ledger;
      this.largest = 0;
      for (let k = 0; k + 1 < gpuStart.length; k++) {
        let sum = 0;
        for (let p = gpuStart[k]!; p < gpuStart[k + 1]!; p++) sum += capacity[p]!;
        if (sum > this.largest) this.largest = sum;
      }
    }
    return this.largest;
  }

  /** The record of slot `slotId` (UNKNOWN_SLOT when it is not in the state). */
  private slotRecord(slotId: string): SlotRecord {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const r = this.ledger.slots.get(id);
    if (r === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${describeValue(id)} is not in the state`, { field: 'slotId' });
    return r;
  }

  /** Node `node` changed: its summary and indexes are brought up to date, then the NodeView tells its listeners. */
  private changed(node: number): void {
    this.indexes.refresh(node);
    this.view.changed(node);
  }
}
