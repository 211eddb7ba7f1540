// ClusterState: plan and commit placements across nodes without over-scheduling (the Helix
// "execution" method). Per-GPU memory lives in flat typed arrays; commit re-validates atomically.
import { AllocationError } from './errors.js';
import type { Inventory } from './inventory.js';
import type { Kernels } from './kernels.js';
import { LIMITS } from './limits.js';
import {
  compareCandidates, compareEvictionOrder, isEvictable, maskOf, noOptionReason, optionOf, PLACEMENT_BUDGET, positionMatrix,
  rejectionsFor, runSearch, shareOf, sizesFor, validateNode, validatePlanRequest, validateSlot,
  type PlacementFound, type PlacementOption, type PlacementPlan, type PlacementRequest, type Slot,
} from './placement.js';
import { compareNatural } from './baseline/natural-sort.js';
import type { Topology } from './topology.js';
import { formatBytes } from './units.js';
import { describeValue, fail, requireArray, requireInteger, requireObject, requireString } from './validate.js';

/** One node of a cluster state. Memory in bytes. */
export type ClusterNode = { id: string; gpus: Array<{ index: number; memoryTotal: number }>; topology?: Topology; slots?: Slot[] };

/** Initial nodes of a cluster state, or one inventory (a single node named after its host). */
export type ClusterInit = { nodes: ClusterNode[] } | Inventory;

/** What `state.plan` takes: planPlacement's request without gpus, slots and topology. */
export type ClusterPlanRequest = Omit<PlacementRequest, 'gpus' | 'slots' | 'topology'>;

/** toJSON's output: everything needed to restore the state exactly. */
export type ClusterStateJSON = { version: 1; nextSlot: number; nodes: Array<{ id: string; gpus: Array<{ index: number; memoryTotal: number }>; topology?: Topology; slots: Slot[] }> };

/** Options of commit: the new slot's ID (default `slot-<n>`) and lastActivity (ms since the epoch). */
export type CommitOptions = { id?: string; lastActivity?: number };

/** Allocated memory of one GPU, in bytes. */
export type GpuUsage = { node: string; gpu: number; memoryTotal: number; allocated: number };

/** Schema version of toJSON's output. */
export const CLUSTER_STATE_VERSION = 1;

type SlotRecord = { slot: Slot; node: number; positions: number[]; lo: number; hi: number };

type Candidate = { node: number; found: PlacementFound; c: number; stale: Slot[]; load: number };

/** Shared empty slot list. */
const NO_SLOTS: Slot[] = [];

/** Node used when an inventory has no host name. */
const DEFAULT_NODE = 'node0';

/** Holds GPUs and slots of one or many nodes; every change keeps each GPU's allocated memory within its total. */
export class ClusterState {
  private readonly kernels: Kernels;
  private readonly nodeIds: string[] = [];
  private readonly nodeOf = new Map<string, number>();
  private readonly topologies: Array<Topology | undefined> = [];
  private readonly matrices: Array<Int32Array | null | undefined> = [];
  private readonly indices: number[][] = [];
  private gpuStart!: Int32Array;
  private total!: Float64Array;
  private free!: Float64Array;
  private freeViews: Float64Array[] = [];
  private totalViews: Float64Array[] = [];
  private nodeTotal!: Float64Array;
  private nodeAllocated!: Float64Array;
  /** allocated / total memory of each node (the node tie-break). */
  private nodeLoad!: Float64Array;
  /** Per-plan scratch: each node's bound (evictions, GPUs, score, policy metric). */
  private bounds!: { bEv: Int32Array; bN: Int32Array; bScore: Float64Array; bMetric: Float64Array };
  private nodeStale!: Int32Array;
  /** Each node's free memory per GPU, largest first (same offsets as `free`): bounds a node's best option without a search. */
  private sortedFree!: Float64Array;
  /** Position of each node ID in natural order (the last tie-break across nodes). */
  private nodeRank!: Int32Array;
  /** 1 where the node has a topology (its options' scores are not known without a search). */
  private hasTopology!: Uint8Array;
  private readonly slots = new Map<string, SlotRecord>();
  private readonly nodeSlots: Array<Set<string>> = [];
  private readonly staleOrder: Array<Slot[] | undefined> = [];
  private nextSlot = 1;

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
        throw new AllocationError('INVALID_STATE', `state: ${error.message}`, { field: error.field, cause: error });
      }
      throw error;
    }
  }

  private load(nodes: unknown[], field: string): void {
    const models = nodes.map((raw, k) => {
      const f = `${field}[${k}]`;
      const n = requireObject(f, raw);
      const id = requireString(`${f}.id`, n.id, LIMITS.maxIdLength);
      if (this.nodeOf.has(id)) fail('INVALID_ARGUMENT', `${f}.id`, 'a node ID not used before', id);
      this.nodeOf.set(id, k);
      this.nodeIds.push(id);
      return validateNode(n.gpus, undefined, n.topology, `${f}.`);
    });
    let gpuCount = 0;
    this.gpuStart = new Int32Array(models.length + 1);
    models.forEach((m, k) => {
      this.gpuStart[k] = gpuCount;
      gpuCount += m.index.length;
    });
    this.gpuStart[models.length] = gpuCount;
    this.total = new Float64Array(gpuCount);
    this.free = new Float64Array(gpuCount);
    this.nodeTotal = new Float64Array(models.length);
    this.nodeAllocated = new Float64Array(models.length);
    this.nodeLoad = new Float64Array(models.length);
    this.bounds = { bEv: new Int32Array(models.length), bN: new Int32Array(models.length), bScore: new Float64Array(models.length), bMetric: new Float64Array(models.length) };
    this.sortedFree = new Float64Array(gpuCount);
    this.nodeRank = new Int32Array(models.length);
    this.hasTopology = Uint8Array.from(models, (m) => (m.topology === undefined ? 0 : 1));
    this.nodeIds.map((_, k) => k).sort((a, b) => compareNatural(this.nodeIds[a], this.nodeIds[b])).forEach((k, r) => (this.nodeRank[k] = r));
    this.nodeStale = new Int32Array(models.length);
    models.forEach((m, k) => {
      const start = this.gpuStart[k];
      for (let p = 0; p < m.index.length; p++) {
        this.total[start + p] = m.total[p];
        this.free[start + p] = m.total[p];
        this.nodeTotal[k] += m.total[p];
      }
      this.indices.push(m.index);
      this.topologies.push(m.topology);
      this.matrices.push(undefined);
      this.nodeSlots.push(new Set());
      this.staleOrder.push(undefined);
      this.freeViews.push(this.free.subarray(start, this.gpuStart[k + 1]));
      this.totalViews.push(this.total.subarray(start, this.gpuStart[k + 1]));
    });
    // Slots after every node, so slot IDs are unique across the state.
    const ids = new Set<string>();
    nodes.forEach((raw, k) => {
      const n = raw as Record<string, unknown>;
      if (n.slots === undefined) return;
      const f = `${field}[${k}].slots`;
      const list = requireArray(f, n.slots, LIMITS.maxSlotsPerNode);
      const known = new Set(this.indices[k]);
      list.forEach((s, j) => this.addSlot(k, validateSlot(s, `${f}[${j}]`, known, ids)));
    });
    for (let k = 0; k < models.length; k++) {
      const start = this.gpuStart[k];
      for (let p = 0; p < this.indices[k].length; p++) {
        if (this.free[start + p] < 0) {
          throw new AllocationError('OVERSCHEDULED', `${field}[${k}]: GPU ${this.indices[k][p]} of node ${this.nodeIds[k]} has ${formatBytes(this.total[start + p] - this.free[start + p])} of slots on ${formatBytes(this.total[start + p])}`, { field: `${field}[${k}].slots` });
        }
      }
      this.refreshNode(k);
    }
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
    this.slots.set(slot.id, { slot, node, positions, lo, hi });
    this.nodeSlots[node].add(slot.id);
    if (slot.stale === true) this.staleOrder[node] = undefined;
  }

  private removeSlot(id: string): void {
    const r = this.slots.get(id)!;
    const start = this.gpuStart[r.node];
    for (const p of r.positions) this.free[start + p] += r.slot.memoryPerGpu;
    this.slots.delete(id);
    this.nodeSlots[r.node].delete(id);
    if (r.slot.stale === true) this.staleOrder[r.node] = undefined;
  }

  /** Recomputes a node's summary: free memory per GPU largest first, allocated memory, stale slots. */
  private refreshNode(node: number): void {
    const start = this.gpuStart[node];
    const end = this.gpuStart[node + 1];
    const sorted = this.sortedFree.subarray(start, end);
    sorted.set(this.freeViews[node]);
    sorted.sort();
    sorted.reverse();
    this.nodeAllocated[node] = this.nodeTotal[node] - sum(this.freeViews[node]);
    this.nodeLoad[node] = this.nodeTotal[node] > 0 ? this.nodeAllocated[node] / this.nodeTotal[node] : 0;
    let stale = 0;
    for (const id of this.nodeSlots[node]) if (this.slots.get(id)!.slot.stale === true) stale++;
    this.nodeStale[node] = stale;
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
    let m = this.matrices[node];
    if (m === undefined) {
      m = positionMatrix(this.topologies[node], this.indices[node]);
      this.matrices[node] = m;
    }
    return m;
  }

  /**
   * Plans across every node: options ranked by planPlacement's key up to the policy metric, then
   * the least loaded node (lowest allocated / total memory), then node ID in natural order, then
   * lowest GPU indices (indices only order GPUs of one node). `rejected` lists every node's per-GPU
   * rejections when there is no option (empty otherwise, to keep planning cheap).
   */
  plan(request: ClusterPlanRequest): PlacementPlan {
    const req = validatePlanRequest(requireObject('request', request));
    const limit = req.limit;
    const pack = req.pack;
    const nodeCount = this.nodeIds.length;
    // Sizes and shares per node width, computed once per plan.
    const perWidth = new Map<number, { sizes: Int32Array; shares: Float64Array; smallest: number }>();
    // Bound of each node's best option (exact for a node without topology that fits without eviction).
    const { bEv, bN, bScore, bMetric } = this.bounds;
    const bLoad = this.nodeLoad;
    const candidates: number[] = [];
    const exactBest: number[] = []; // up to `limit` exact nodes with the best bounds, best first
    const boundBefore = (x: number, y: number): number => {
      if (bEv[x] !== bEv[y]) return bEv[x] - bEv[y];
      if (bN[x] !== bN[y]) return bN[x] - bN[y];
      if (bScore[x] !== bScore[y]) return bScore[x] > bScore[y] ? -1 : 1;
      if (bMetric[x] !== bMetric[y]) return (pack ? bMetric[x] < bMetric[y] : bMetric[x] > bMetric[y]) ? -1 : 1;
      if (bLoad[x] !== bLoad[y]) return bLoad[x] < bLoad[y] ? -1 : 1;
      return this.nodeRank[x] - this.nodeRank[y];
    };
    const gpuStart = this.gpuStart;
    const sorted = this.sortedFree;
    const nodeStale = this.nodeStale;
    const hasTopology = this.hasTopology;
    let lastWidth = -1;
    let w: { sizes: Int32Array; shares: Float64Array; smallest: number } | undefined;
    for (let k = 0; k < nodeCount; k++) {
      const start = gpuStart[k];
      const N = gpuStart[k + 1] - start;
      if (N !== lastWidth) {
        w = perWidth.get(N);
        if (w === undefined) {
          const sizes = sizesFor(req, N);
          w = { sizes: Int32Array.from(sizes), shares: Float64Array.from(sizes, (n) => shareOf(req.memory, n)), smallest: sizes.length === 0 ? Infinity : shareOf(req.memory, sizes[sizes.length - 1]) };
          perWidth.set(N, w);
        }
        lastWidth = N;
      }
      const canEvict = req.allowEviction && nodeStale[k] > 0;
      // Not even the smallest share fits on the emptiest GPU: nothing to search.
      if (!canEvict && !(sorted[start] >= w!.smallest)) continue;
      const sizes = w!.sizes;
      const shares = w!.shares;
      let fits = false;
      for (let si = 0; si < sizes.length; si++) {
        const n = sizes[si];
        const share = shares[si];
        if (sorted[start + n - 1] < share) continue;
        fits = true;
        bN[k] = n;
        if (pack) {
          // The n smallest GPUs that fit leave the least over.
          let j = n - 1;
          while (j + 1 < N && sorted[start + j + 1] >= share) j++;
          let left = 0;
          for (let t = j - n + 1; t <= j; t++) left += sorted[start + t] - share;
          bMetric[k] = left;
        } else bMetric[k] = sorted[start + n - 1] - share;
        break;
      }
      const topo = hasTopology[k] === 1;
      if (fits) bEv[k] = 0;
      else if (canEvict) {
        bEv[k] = 1;
        bN[k] = sizes[0];
        bMetric[k] = pack ? -Infinity : Infinity;
      } else continue; // no GPU set fits, even after evictions
      bScore[k] = topo ? Infinity : 0;
      // Bounded below the current threshold: never contributes (the threshold only improves).
      if (exactBest.length === limit && boundBefore(k, exactBest[limit - 1]) > 0) continue;
      candidates.push(k);
      if (fits && !topo) {
        // Keep the `limit` best exact bounds: each such node has an option exactly at its bound.
        if (exactBest.length < limit || boundBefore(k, exactBest[exactBest.length - 1]) < 0) {
          let at = exactBest.length;
          while (at > 0 && boundBefore(k, exactBest[at - 1]) < 0) at--;
          exactBest.splice(at, 0, k);
          if (exactBest.length > limit) exactBest.pop();
        }
      }
    }
    // `limit` options at least as good as the threshold exist, so nodes bounded below it cannot contribute.
    const threshold = exactBest.length === limit ? exactBest[limit - 1] : -1;
    const best: Candidate[] = [];
    for (const k of candidates) {
      if (threshold >= 0 && boundBefore(k, threshold) > 0) continue;
      const N = this.indices[k].length;
      const w = perWidth.get(N)!;
      const canEvict = req.allowEviction && this.nodeStale[k] > 0;
      const stale = canEvict ? this.staleSlots(k).filter((s) => isEvictable(s, req.model)) : NO_SLOTS;
      const staleMasks = new Int32Array(2 * stale.length);
      const staleBytes = new Float64Array(stale.length);
      for (let j = 0; j < stale.length; j++) {
        const r = this.slots.get(stale[j].id)!;
        staleMasks[2 * j] = r.lo;
        staleMasks[2 * j + 1] = r.hi;
        staleBytes[j] = stale[j].memoryPerGpu;
      }
      const found = runSearch(this.kernels, {
        gpus: N,
        free: this.freeViews[k],
        total: this.totalViews[k],
        sizes: w.sizes,
        shares: w.shares,
        staleMasks,
        staleBytes,
        pairScores: this.matrix(k),
        pack,
        limit,
        budget: PLACEMENT_BUDGET,
      });
      for (let c = 0; c < found.count; c++) {
        const cand: Candidate = { node: k, found, c, stale, load: bLoad[k] };
        let at = best.length;
        while (at > 0 && this.ranksBefore(cand, best[at - 1], pack)) at--;
        if (at >= limit) break; // the node's later candidates rank lower still
        best.splice(at, 0, cand);
        if (best.length > limit) best.pop();
      }
    }
    const options = best.map((b) => optionOf(b.found, b.c, this.indices[b.node], req.memory, b.stale, req.model, this.nodeIds[b.node]));
    const plan: PlacementPlan = { options, rejected: [] };
    if (options.length === 0) {
      let gpus = 0;
      let noSizes = true;
      for (let k = 0; k < nodeCount; k++) {
        const sizes = sizesFor(req, this.indices[k].length);
        gpus += this.indices[k].length;
        if (sizes.length > 0) noSizes = false;
        const evictable = new Float64Array(this.indices[k].length);
        if (req.allowEviction) {
          for (const s of this.staleSlots(k)) {
            if (!isEvictable(s, req.model)) continue;
            for (const p of this.slots.get(s.id)!.positions) evictable[p] += s.memoryPerGpu;
          }
        }
        plan.rejected.push(...rejectionsFor(this.indices[k], this.totalViews[k], this.freeViews[k], evictable, req.memory, sizes, this.nodeIds[k]));
      }
      plan.reason = noOptionReason(req.memory, noSizes ? null : req.sizes === undefined ? '1..n' : req.sizes.join(', '), gpus, plan.rejected.length);
    }
    return plan;
  }

  private ranksBefore(a: Candidate, b: Candidate, pack: boolean): boolean {
    const d = compareCandidates(a.found, a.c, b.found, b.c, pack, false);
    if (d !== 0) return d < 0;
    if (a.load !== b.load) return a.load < b.load;
    if (a.node !== b.node) return this.nodeRank[a.node] < this.nodeRank[b.node];
    return compareCandidates(a.found, a.c, b.found, b.c, pack) < 0;
  }

  /**
   * Applies an option atomically: re-validates it against the current state, evicts the slots it
   * lists and adds the new slot; returns the new slot's ID. Throws CONFLICT, changing nothing, when
   * the option no longer fits (memory taken since planning, an evicted slot gone or no longer stale).
   */
  commit(option: PlacementOption, options: CommitOptions = {}): string {
    const o = requireObject('option', option);
    const nodeId = requireString('option.node', o.node, LIMITS.maxIdLength);
    const node = this.nodeOf.get(nodeId);
    if (node === undefined) throw new AllocationError('UNKNOWN_NODE', `option.node: node ${describeValue(nodeId)} is not in the state`, { field: 'option.node' });
    const gpus = requireArray('option.gpus', o.gpus, LIMITS.maxGpus);
    if (gpus.length === 0) fail('INVALID_ARGUMENT', 'option.gpus', 'at least one GPU index', gpus);
    const positions: number[] = [];
    gpus.forEach((g, j) => {
      const idx = requireInteger(`option.gpus[${j}]`, g, 0, 0x7fffffff);
      const p = this.positionOf(node, idx);
      if (p < 0) throw new AllocationError('UNKNOWN_DEVICE_ID', `option.gpus[${j}]: GPU index ${idx} is not on node ${nodeId}`, { field: `option.gpus[${j}]` });
      if (positions.includes(p)) throw new AllocationError('DUPLICATE_DEVICE', `option.gpus[${j}]: GPU index ${idx} appears twice`, { field: `option.gpus[${j}]` });
      positions.push(p);
    });
    const perGpu = requireInteger('option.memoryPerGpu', o.memoryPerGpu, 1, LIMITS.maxBytes);
    const model = o.model === undefined ? undefined : requireString('option.model', o.model, LIMITS.maxIdLength);
    const evict = o.evict === undefined ? [] : requireArray('option.evict', o.evict, LIMITS.maxSlotsPerNode);
    const opts = requireObject('options', options);
    let id: string | undefined;
    if (opts.id !== undefined) {
      id = requireString('options.id', opts.id, LIMITS.maxIdLength);
      if (this.slots.has(id)) throw new AllocationError('DUPLICATE_SLOT', `options.id: slot ID ${describeValue(id)} is already in the state`, { field: 'options.id' });
    }
    if (opts.lastActivity !== undefined && (typeof opts.lastActivity !== 'number' || !Number.isFinite(opts.lastActivity))) fail('INVALID_ARGUMENT', 'options.lastActivity', 'a finite number (ms since the epoch)', opts.lastActivity);
    // Re-validate against the current state; nothing changes before every check passes.
    const start = this.gpuStart[node];
    const gained = new Map<number, number>();
    const evictIds: string[] = [];
    evict.forEach((raw, j) => {
      const sid = requireString(`option.evict[${j}]`, raw, LIMITS.maxIdLength);
      const r = this.slots.get(sid);
      if (r === undefined || r.node !== node) throw new AllocationError('CONFLICT', `option.evict[${j}]: slot ${describeValue(sid)} is no longer on node ${nodeId}; nothing was changed`, { field: `option.evict[${j}]` });
      if (!isEvictable(r.slot, model)) throw new AllocationError('CONFLICT', `option.evict[${j}]: slot ${describeValue(sid)} is no longer evictable (not stale, or the same model); nothing was changed`, { field: `option.evict[${j}]` });
      if (evictIds.includes(sid)) fail('INVALID_ARGUMENT', `option.evict[${j}]`, 'each slot once', sid);
      evictIds.push(sid);
      for (const p of r.positions) gained.set(p, (gained.get(p) ?? 0) + r.slot.memoryPerGpu);
    });
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
    this.addSlot(node, slot);
    this.refreshNode(node);
    return id;
  }

  /** Removes a slot and frees its memory on every GPU it spans. */
  release(slotId: string): void {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const r = this.slots.get(id);
    if (r === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${describeValue(id)} is not in the state`, { field: 'slotId' });
    this.removeSlot(id);
    this.refreshNode(r.node);
  }

  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale = true): void {
    const id = requireString('slotId', slotId, LIMITS.maxIdLength);
    const r = this.slots.get(id);
    if (r === undefined) throw new AllocationError('UNKNOWN_SLOT', `slotId: slot ${describeValue(id)} is not in the state`, { field: 'slotId' });
    if (typeof stale !== 'boolean') fail('INVALID_ARGUMENT', 'stale', 'a boolean', stale);
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
      this.indices[k].forEach((gpu, p) => out.push({ node: id, gpu, memoryTotal: this.total[start + p], allocated: this.total[start + p] - this.free[start + p] }));
    });
    return out;
  }

  /** Node IDs in the order they were given. */
  nodes(): string[] {
    return [...this.nodeIds];
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
        const node: ClusterStateJSON['nodes'][number] = { id, gpus: this.indices[k].map((index, p) => ({ index, memoryTotal: this.total[start + p] })), slots: [] };
        const t = this.topologies[k];
        if (t !== undefined) node.topology = { gpus: t.gpus, links: t.links.map((l) => ({ ...l })) };
        for (const sid of this.nodeSlots[k]) node.slots.push(copySlot(this.slots.get(sid)!.slot));
        return node;
      }),
    };
  }
}

function copySlot(s: Slot): Slot {
  const c: Slot = { id: s.id, gpus: [...s.gpus], memoryPerGpu: s.memoryPerGpu };
  if (s.model !== undefined) c.model = s.model;
  if (s.lastActivity !== undefined) c.lastActivity = s.lastActivity;
  if (s.stale !== undefined) c.stale = s.stale;
  return c;
}

function sum(a: Float64Array): number {
  let s = 0;
  for (let k = 0; k < a.length; k++) s += a[k];
  return s;
}

/** One node from an inventory: its host name (or `node0`), its GPUs that are not lost, its links. */
export function nodeFromInventory(inventory: Inventory, id?: string): ClusterNode {
  const inv = requireObject('inventory', inventory);
  const gpus = requireArray('inventory.gpus', inv.gpus, LIMITS.maxGpus).map((raw, k) => {
    const g = requireObject(`inventory.gpus[${k}]`, raw);
    return { index: g.index as number, memoryTotal: g.memoryTotal as number, lost: g.lost === true };
  });
  const node: ClusterNode = { id: id ?? (typeof inv.host === 'string' && inv.host !== '' ? inv.host : DEFAULT_NODE), gpus: gpus.filter((g) => !g.lost).map(({ index, memoryTotal }) => ({ index, memoryTotal })) };
  const links = inv.links === undefined ? [] : requireArray('inventory.links', inv.links, (LIMITS.maxGpus * (LIMITS.maxGpus - 1)) / 2);
  if (links.length > 0) {
    let width = 0;
    for (const g of gpus) if (typeof g.index === 'number' && g.index + 1 > width) width = g.index + 1;
    const lost = new Set(gpus.filter((g) => g.lost).map((g) => g.index));
    node.topology = { gpus: width, links: (links as Topology['links']).filter((l) => !lost.has(l.a) && !lost.has(l.b)) };
  }
  return node;
}
