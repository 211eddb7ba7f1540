// ClusterState: plan and commit placements across nodes without over-scheduling (the Helix
// "execution" method). The front of the cluster room; the work is done by
//   json.ts       the JSON schema: create/restore validation, toJSON
//   ledger.ts     nodes, GPUs and slots in flat typed arrays, and their bookkeeping
//   indexes.ts    each node's summary and the free-memory and stale-slot indexes, kept up to date
//   search.ts     the cross-node search behind plan
//   commit.ts     commit's checks (checkCommit), a pure function the stores call too
//   node-view.ts  the read-only NodeView (fleet's port) pod schedulers plan over, and change notification

import { createPodScheduler, type NodeView, type PodScheduler, type PodSchedulerKernels, type PodSchedulerOptions } from '../fleet/index.js';
import { PLAN_REQUEST_KEYS, type PlacementKernels, type PlacementOption, type PlacementPlan, type PlacementRequest, type Slot, validatePlanRequest } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { describeValue, fail, readInput, rejectUnknownKeys, requireObject, requireString } from '../shared/validate.js';
import { activityTime, checkIdle, type ReleaseOptions, releaseOptions } from './activity.js';
import { type CommitOptions, checkCommit } from './commit.js';
import { NodeIndexes } from './indexes.js';
import { type ClusterInit, type ClusterStateJSON, createLedger, ledgerJSON, restoreLedger } from './json.js';
import type { GpuUsage, Ledger, SlotRecord } from './ledger.js';
import { LedgerView } from './node-view.js';
import { ClusterPlanner } from './search.js';

export type { NodeGpus, NodeView } from '../fleet/index.js';
export { activityTime, checkIdle, type ReleaseOptions, releaseOptions } from './activity.js';
export type { CommitOptions } from './commit.js';
export { checkCommit } from './commit.js';
export type { ClusterInit, ClusterStateJSON } from './json.js';
export { CLUSTER_STATE_KEYS, CLUSTER_STATE_VERSION, ledgerJSON, normalizeStateJSON, restoreLedger, stateFileText } from './json.js';
export type { GpuUsage, Ledger } from './ledger.js';
export type { ClusterNode } from './node.js';
export { CLUSTER_REJECTED_NODES } from './search.js';

/** The kernels a cluster state calls: the placement search's and its pod schedulers'. */
export type ClusterKernels = PlacementKernels & PodSchedulerKernels;

/** What `state.plan` takes: planPlacement's request without gpus, slots and topology. */
export type ClusterPlanRequest = Omit<PlacementRequest, 'gpus' | 'slots' | 'topology'>;

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

/** Holds GPUs and slots of one or many nodes; every change keeps each GPU's allocated memory within its total. */
export class ClusterState implements ClusterStateLike {
  private readonly kernels: ClusterKernels;
  private readonly ledger: Ledger;
  private readonly indexes: NodeIndexes;
  private readonly planner: ClusterPlanner;
  /** The read port pod schedulers see (nodeView), and the change notification behind it. */
  private readonly view: LedgerView;

  private constructor(kernels: ClusterKernels, ledger: Ledger) {
    this.kernels = kernels;
    this.ledger = ledger;
    this.indexes = new NodeIndexes(ledger);
    this.planner = new ClusterPlanner(kernels, ledger, this.indexes);
    this.view = new LedgerView(ledger);
  }

  /** Creates a state from nodes (or one inventory). */
  static create(kernels: ClusterKernels, init: ClusterInit): ClusterState {
    return new ClusterState(kernels, createLedger(init));
  }

  /** Restores a state from toJSON's output (the object or its JSON text); anything malformed is INVALID_STATE. */
  static restore(kernels: ClusterKernels, json: unknown): ClusterState {
    return new ClusterState(kernels, restoreLedger(json));
  }

  /**
   * Plans across every node: options ranked by planPlacement's key up to the policy metric, then
   * the least loaded node (lowest (memoryTotal − free) / memoryTotal), then node ID in natural order,
   * then lowest GPU indices (indices only order GPUs of one node). `rejected` lists the per-GPU
   * rejections of the first CLUSTER_REJECTED_NODES nodes when there is no option (empty otherwise,
   * to keep planning cheap); the reason counts theirs and says so when the state has more nodes.
   * GPUs in MIG mode (NodeGpu.mig) are left out (rejection MIG_MODE) unless the request sets allowMig.
   * How the nodes to search are found: src/cluster/search.ts.
   */
  plan(request: ClusterPlanRequest): PlacementPlan {
    const r = requireObject('request', readInput('request', request, false));
    rejectUnknownKeys('', r, PLAN_REQUEST_KEYS);
    const req = validatePlanRequest(r);
    if (req.allowMig && this.ledger.mig !== null) return this.migBlindPlanner().plan(req);
    return this.planner.plan(req);
  }

  /**
   * Applies an option atomically: re-validates it against the current state, evicts the slots it
   * lists and adds the new slot; returns the new slot's ID. Throws CONFLICT, changing nothing, when
   * the option no longer fits (memory taken since planning, an evicted slot gone or no longer stale).
   */
  commit(option: PlacementOption, options: CommitOptions = {}): string {
    const change = checkCommit(this.ledger, option, options);
    const id = this.ledger.commit(change);
    this.changed(change.node);
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
    this.ledger.removeSlot(r.slot.id);
    this.changed(r.node);
  }

  /**
   * Records activity of a slot at `at` (ms since the epoch; default now): its lastActivity becomes
   * `at` unless it already records later activity. A serving process touches its slot now and then;
   * `gpualloc state gc --older-than D` removes the slots idle for longer than D.
   */
  touch(slotId: string, at: number = Date.now()): void {
    const r = this.slotRecord(slotId);
    this.ledger.touch(r, activityTime('at', at));
    this.changed(r.node);
  }

  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale = true): void {
    const r = this.slotRecord(slotId);
    if (typeof stale !== 'boolean') fail('INVALID_ARGUMENT', 'stale', 'a boolean', stale);
    this.ledger.setStale(r, stale);
    this.changed(r.node);
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
    const json = ledgerJSON(this.ledger);
    for (const node of json.nodes) for (const g of node.gpus) delete g.mig;
    const ledger = restoreLedger(json);
    return new ClusterPlanner(this.kernels, ledger, new NodeIndexes(ledger));
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
