// The ledger of a cluster state: its nodes, GPUs and slots, with each GPU's memory and each node's
// CPU and host memory in flat typed arrays, and the bookkeeping that keeps them in step with the
// slots. It needs no kernels: the stores check and apply a commit on a one-node ledger
// (checkCommit, Ledger.commit) exactly as an in-memory state does. Its arrays are per node or per
// GPU (gpuStart), and node numbers and positions reach it from its own maps or checkCommit: `!`.

import type { Topology } from '../hardware/topology.js';
import { compareEvictionOrder, maskOf, type Slot } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';
import type { Labels } from '../shared/labels.js';
import { LIMITS } from '../shared/limits.js';
import { shareBytes } from '../shared/share.js';
import { formatBytes } from '../shared/units.js';
import { describeValue, fail } from '../shared/validate.js';

/**
 * A slot and where it sits: its node, the positions of its GPUs and their mask halves. A slot across
 * several nodes has one record per part (`parts`, the same list on each, in the slot's order): the
 * ledger's `slots` maps its ID to the first part's record.
 */
export type SlotRecord = { slot: Slot; node: number; positions: number[]; lo: number; hi: number; parts?: SlotRecord[] };

/** One validated node: GPUs by position (indices ascending), topology, and CPU and host memory (-1: not tracked). */
export type LedgerNode = {
  id: string;
  index: number[];
  total: number[];
  used: number[];
  mig?: boolean[];
  topology?: Topology;
  cpu: number;
  hostMemory: number;
  gpuModel?: string;
  labels?: Labels | undefined;
};

/**
 * Memory of one GPU, in bytes: allocated is what gpualloc's slots hold; memoryUsed (present only when
 * > 0) is what processes outside the slots hold.
 */
export type GpuUsage = { node: string; gpu: number; memoryTotal: number; allocated: number; memoryUsed?: number };

/** A commit that passed checkCommit (src/cluster/commit.ts): what Ledger.commit applies. */
export type CheckedCommit = {
  node: number;
  /** Positions of the new slot's GPUs on the node. */
  positions: number[];
  memoryPerGpu: number;
  /** Slots to evict first, each once. */
  evict: ReadonlySet<string>;
  /** The new slot's ID (undefined: the next free `slot-<n>`). */
  id: string | undefined;
  model?: string;
  lastActivity?: number;
  milli?: number;
  cpu?: number;
  hostMemory?: number;
  /** A slot across several nodes: every part (the first is node, positions, memoryPerGpu above); the slot's `parts` names them. */
  parts?: Array<{ node: number; positions: number[]; memoryPerGpu: number }>;
};

/** Holds GPUs and slots of one or many nodes; json.ts fills it and checks that no GPU holds more than it has. */
export class Ledger {
  readonly nodeIds: string[];
  readonly nodeOf: ReadonlyMap<string, number>;
  readonly topologies: ReadonlyArray<Topology | undefined>;
  /** GPU indices of each node, ascending (position p holds indices[k][p]). */
  readonly indices: number[][];
  readonly gpuModels: ReadonlyArray<string | undefined>;
  /** Each node's labels (undefined: none). */
  readonly labels: ReadonlyArray<Readonly<Labels> | undefined>;
  /** Node k's GPUs are entries gpuStart[k] .. gpuStart[k + 1] of the per-GPU arrays. */
  readonly gpuStart: Int32Array;
  readonly total: Float64Array;
  /** memoryUsed per GPU: memory held by processes outside gpualloc's slots (never evicted). */
  readonly used: Float64Array;
  /** memoryTotal − memoryUsed per GPU: what slots may ever hold (the kernels' `total`). */
  readonly capacity: Float64Array;
  /** capacity − the slots on it, per GPU. */
  readonly free: Float64Array;
  /** Per GPU: 1 when in MIG mode; null when no GPU of the ledger is. */
  readonly mig: Uint8Array | null;
  /**
   * The free memory whole-GPU plans see: `free` itself when no GPU is in MIG mode, else a copy kept
   * in step with it where GPUs in MIG mode read -Infinity (no share ever fits them).
   */
  readonly planFree: Float64Array;
  /** Per node: subarrays of planFree. */
  readonly planFreeViews: Float64Array[] = [];
  /** Per node: subarrays of free, total and used. */
  readonly freeViews: Float64Array[] = [];
  readonly totalViews: Float64Array[] = [];
  readonly usedViews: Float64Array[] = [];
  /** memoryTotal summed over each node's GPUs. */
  readonly nodeTotal: Float64Array;
  /** Allocatable CPU (milli-CPU) and host memory (bytes) of each node; -1: not tracked. */
  readonly nodeCpu: Float64Array;
  readonly nodeHostMemory: Float64Array;
  /** CPU (milli-CPU) and host memory (bytes) the slots of each node hold. */
  readonly cpuHeld: Float64Array;
  readonly hostMemoryHeld: Float64Array;
  readonly slots = new Map<string, SlotRecord>();
  /** Each node's slot IDs, in the order they were added. */
  readonly nodeSlots: Array<Set<string>> = [];
  /** Stale slots held by each node. */
  readonly nodeStale: Int32Array;
  /** Most GPUs of a node. */
  readonly maxWidth: number;
  /** Next `slot-<n>` to try for a commit without an ID. */
  nextSlot = 1;
  /** Each node's stale slots in eviction order (undefined: to be sorted again). */
  private readonly staleOrder: Array<Slot[] | undefined> = [];

  /** Nodes with their GPUs and no slot (IDs are unique: json.ts checked them). */
  constructor(nodes: readonly LedgerNode[]) {
    this.nodeIds = nodes.map((m) => m.id);
    this.nodeOf = new Map(nodes.map((m, k) => [m.id, k]));
    this.topologies = nodes.map((m) => m.topology);
    this.indices = nodes.map((m) => m.index);
    this.gpuModels = nodes.map((m) => m.gpuModel);
    this.labels = nodes.map((m) => m.labels);
    let gpuCount = 0;
    this.gpuStart = new Int32Array(nodes.length + 1);
    nodes.forEach((m, k) => {
      this.gpuStart[k] = gpuCount;
      gpuCount += m.index.length;
    });
    this.gpuStart[nodes.length] = gpuCount;
    this.total = new Float64Array(gpuCount);
    this.used = new Float64Array(gpuCount);
    this.capacity = new Float64Array(gpuCount);
    this.free = new Float64Array(gpuCount);
    this.mig = nodes.some((m) => m.mig?.includes(true) === true) ? new Uint8Array(gpuCount) : null;
    this.planFree = this.mig === null ? this.free : new Float64Array(gpuCount);
    this.nodeTotal = new Float64Array(nodes.length);
    this.nodeCpu = Float64Array.from(nodes, (m) => m.cpu);
    this.nodeHostMemory = Float64Array.from(nodes, (m) => m.hostMemory);
    this.cpuHeld = new Float64Array(nodes.length);
    this.hostMemoryHeld = new Float64Array(nodes.length);
    this.nodeStale = new Int32Array(nodes.length);
    this.maxWidth = nodes.reduce((most, m) => Math.max(most, m.index.length), 0);
    nodes.forEach((m, k) => {
      const start = this.gpuStart[k]!;
      for (let p = 0; p < m.index.length; p++) {
        this.total[start + p] = m.total[p]!;
        this.used[start + p] = m.used[p]!;
        this.capacity[start + p] = m.total[p]! - m.used[p]!;
        this.free[start + p] = m.total[p]! - m.used[p]!;
        this.nodeTotal[k]! += m.total[p]!;
        if (this.mig !== null && m.mig?.[p] === true) this.mig[start + p] = 1;
        this.planFree[start + p] = this.mig !== null && this.mig[start + p] === 1 ? -Infinity : this.free[start + p]!;
      }
      this.nodeSlots.push(new Set());
      this.staleOrder.push(undefined);
      this.freeViews.push(this.free.subarray(start, this.gpuStart[k + 1]));
      this.planFreeViews.push(this.planFree.subarray(start, this.gpuStart[k + 1]));
      this.totalViews.push(this.total.subarray(start, this.gpuStart[k + 1]));
      this.usedViews.push(this.used.subarray(start, this.gpuStart[k + 1]));
    });
  }

  /** Index of node `id` (UNKNOWN_NODE naming `field`). */
  nodeIndex(id: string, field = 'node'): number {
    const k = this.nodeOf.get(id);
    if (k === undefined) throw new AllocationError('UNKNOWN_NODE', `${field}: node ${describeValue(id)} is not in the state`, { field });
    return k;
  }

  /** The record of slot `id` (in the ledger) on node `node`: its part there for a slot across several nodes. */
  record(node: number, id: string): SlotRecord {
    const r = this.slots.get(id)!;
    if (r.parts !== undefined) for (const p of r.parts) if (p.node === node) return p;
    return r;
  }

  /** The nodes slot `id` (in the ledger) sits on: one, or each of its parts'. */
  nodesOf(id: string): number[] {
    const r = this.slots.get(id)!;
    return r.parts === undefined ? [r.node] : r.parts.map((p) => p.node);
  }

  /** Position of GPU index `gpu` on node `node`, or -1. */
  positionOf(node: number, gpu: number): number {
    const list = this.indices[node]!;
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid] === gpu) return mid;
      if (list[mid]! < gpu) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Node k's CPU left in milli-CPU (-1: not tracked). */
  cpuLeft(k: number): number {
    return this.nodeCpu[k]! < 0 ? -1 : this.nodeCpu[k]! - this.cpuHeld[k]!;
  }

  /** Node k's host memory left in bytes (-1: not tracked). */
  hostMemoryLeft(k: number): number {
    return this.nodeHostMemory[k]! < 0 ? -1 : this.nodeHostMemory[k]! - this.hostMemoryHeld[k]!;
  }

  /**
   * A share's charge, as commit and load both check it: GPUs (positions of node) of one memoryTotal,
   * of more than maxNoShareGpuMemory bytes, and memoryPerGpu = floor(milli × memoryTotal / 1000).
   * `gpuField(j)` names the j-th GPU; milli and memoryPerGpu are `${prefix}milli` and `${prefix}memoryPerGpu`.
   */
  checkShare(node: number, positions: readonly number[], milli: number, memoryPerGpu: number, prefix: string, gpuField: (j: number) => string): void {
    const start = this.gpuStart[node]!;
    const total = this.total[start + positions[0]!]!;
    const first = this.indices[node]![positions[0]!];
    for (let j = 1; j < positions.length; j++) {
      if (this.total[start + positions[j]!] !== total)
        fail('INVALID_ARGUMENT', gpuField(j), `a GPU of ${formatBytes(total)} like GPU ${first} (a share is of GPUs of one memoryTotal)`, this.indices[node]![positions[j]!]);
    }
    if (total <= LIMITS.maxNoShareGpuMemory) {
      fail(
        'INVALID_ARGUMENT',
        `${prefix}milli`,
        `no share: GPU ${first} of node ${this.nodeIds[node]} has ${total} bytes, and a share needs a GPU of more than ${LIMITS.maxNoShareGpuMemory} bytes (to be charged exactly)`,
        milli,
      );
    }
    const charge = shareBytes(milli, total);
    if (memoryPerGpu !== charge) fail('INVALID_ARGUMENT', `${prefix}memoryPerGpu`, `${charge} (floor(milli × memoryTotal / 1000) for ${milli} milli of ${total} bytes)`, memoryPerGpu);
  }

  /** Adds a validated slot to node `node` (its GPUs are the node's): charges its memory, CPU and host memory. */
  addSlot(node: number, slot: Slot): void {
    this.slots.set(slot.id, this.charge(node, slot));
  }

  /**
   * Adds a validated slot across several nodes: `parts[j]` is the slot as node `parts[j].node` lists
   * it (that node's GPUs and memoryPerGpu; every part's `parts` names them all). Each node keeps the
   * slot where its list had it (a node that listed it already keeps that place).
   */
  addSpan(parts: ReadonlyArray<{ node: number; slot: Slot }>): void {
    const records = parts.map(({ node, slot }) => this.charge(node, slot));
    for (const r of records) r.parts = records;
    this.slots.set(records[0]!.slot.id, records[0]!);
  }

  /** Charges one node's share of a slot: its memory on its GPUs, its CPU and host memory; returns its record. */
  private charge(node: number, slot: Slot): SlotRecord {
    const positions = slot.gpus.map((g) => this.positionOf(node, g));
    const [lo, hi] = maskOf(positions);
    const start = this.gpuStart[node]!;
    for (const p of positions) this.free[start + p]! -= slot.memoryPerGpu;
    if (this.mig !== null) this.syncPlanFree(start, positions);
    this.cpuHeld[node]! += slot.cpu ?? 0;
    this.hostMemoryHeld[node]! += slot.hostMemory ?? 0;
    this.nodeSlots[node]!.add(slot.id);
    if (slot.stale === true) {
      this.staleOrder[node] = undefined;
      this.nodeStale[node]!++;
    }
    return { slot, node, positions, lo, hi };
  }

  /** Removes slot `id` (it is in the ledger), every part of it, and gives back what it held. */
  removeSlot(id: string): void {
    const first = this.slots.get(id)!;
    for (const r of first.parts ?? [first]) {
      const start = this.gpuStart[r.node]!;
      for (const p of r.positions) this.free[start + p]! += r.slot.memoryPerGpu;
      if (this.mig !== null) this.syncPlanFree(start, r.positions);
      this.cpuHeld[r.node]! -= r.slot.cpu ?? 0;
      this.hostMemoryHeld[r.node]! -= r.slot.hostMemory ?? 0;
      this.nodeSlots[r.node]!.delete(id);
      if (r.slot.stale === true) {
        this.staleOrder[r.node] = undefined;
        this.nodeStale[r.node]!--;
      }
    }
    this.slots.delete(id);
  }

  /** Copies `free` to `planFree` at the given positions of the node starting at `start` (MIG GPUs stay -Infinity). */
  private syncPlanFree(start: number, positions: readonly number[]): void {
    for (const p of positions) if (this.mig![start + p] === 0) this.planFree[start + p] = this.free[start + p]!;
  }

  /** Marks slot record `r` (every part of it) stale or not. */
  setStale(r: SlotRecord, stale: boolean): void {
    for (const part of r.parts ?? [r]) {
      if ((part.slot.stale === true) !== stale) this.nodeStale[part.node]! += stale ? 1 : -1;
      part.slot.stale = stale;
      this.staleOrder[part.node] = undefined;
    }
  }

  /**
   * Records activity of slot record `r` at `at` (ms since the epoch): its lastActivity becomes `at`
   * unless it already records later activity (touches from several processes never move it back).
   */
  touch(r: SlotRecord, at: number): void {
    for (const part of r.parts ?? [r]) {
      if (part.slot.lastActivity === undefined || at > part.slot.lastActivity) part.slot.lastActivity = at;
      // Stale slots are evicted oldest activity first.
      if (part.slot.stale === true) this.staleOrder[part.node] = undefined;
    }
  }

  /** Applies a checked commit: evicts its slots and adds the new one; returns the new slot's ID. */
  commit(change: CheckedCommit): string {
    const node = change.node;
    let id = change.id;
    if (id === undefined) {
      while (this.slots.has(`slot-${this.nextSlot}`)) this.nextSlot++;
      id = `slot-${this.nextSlot++}`;
    }
    for (const sid of change.evict) this.removeSlot(sid);
    const slotOn = (k: number, positions: readonly number[], memoryPerGpu: number): Slot => {
      const gpuIndices = this.indices[k]!; // k is a node of this ledger, positions its GPUs' (checkCommit)
      const slot: Slot = { id, gpus: positions.map((p) => gpuIndices[p]!).sort((a, b) => a - b), memoryPerGpu };
      if (change.model !== undefined) slot.model = change.model;
      if (change.lastActivity !== undefined) slot.lastActivity = change.lastActivity;
      if (change.milli !== undefined) slot.milli = change.milli;
      if (change.cpu !== undefined) slot.cpu = change.cpu;
      if (change.hostMemory !== undefined) slot.hostMemory = change.hostMemory;
      return slot;
    };
    if (change.parts !== undefined) {
      const slots = change.parts.map((p) => ({ node: p.node, slot: slotOn(p.node, p.positions, p.memoryPerGpu) }));
      const parts = slots.map(({ node: k, slot }) => ({ node: this.nodeIds[k]!, gpus: slot.gpus, memoryPerGpu: slot.memoryPerGpu }));
      for (const { slot } of slots) slot.parts = parts;
      this.addSpan(slots);
      return id;
    }
    this.addSlot(node, slotOn(node, change.positions, change.memoryPerGpu));
    return id;
  }

  /** Node k's stale slots in eviction order (the ledger's own objects: read only). */
  staleSlots(node: number): Slot[] {
    let list = this.staleOrder[node];
    if (list === undefined) {
      list = [];
      for (const id of this.nodeSlots[node]!) {
        const s = this.record(node, id).slot;
        if (s.stale === true) list.push(s);
      }
      list.sort(compareEvictionOrder);
      this.staleOrder[node] = list;
    }
    return list;
  }

  /**
   * Copies of the slots, of node `node` or of all (-1), in the order they were added. A slot across
   * several nodes is listed by each of its nodes as that node's part (with `parts`), and once in the
   * list of all, as its first part.
   */
  listSlots(node: number): Slot[] {
    const out: Slot[] = [];
    if (node >= 0) {
      for (const id of this.nodeSlots[node]!) out.push(copySlot(this.record(node, id).slot));
      return out;
    }
    for (let k = 0; k < this.nodeSlots.length; k++) {
      for (const id of this.nodeSlots[k]!) {
        const r = this.slots.get(id)!;
        if (r.node === k) out.push(copySlot(r.slot));
      }
    }
    return out;
  }

  /** Allocated memory of every GPU (bytes), node by node, GPUs by index. */
  usage(): GpuUsage[] {
    const out: GpuUsage[] = [];
    this.nodeIds.forEach((id, k) => {
      const start = this.gpuStart[k]!;
      this.indices[k]!.forEach((gpu, p) => {
        const u: GpuUsage = { node: id, gpu, memoryTotal: this.total[start + p]!, allocated: this.capacity[start + p]! - this.free[start + p]! };
        if (this.used[start + p]! > 0) u.memoryUsed = this.used[start + p];
        out.push(u);
      });
    });
    return out;
  }
}

/** A copy of a slot, its fields in one order. */
export function copySlot(s: Slot): Slot {
  const c: Slot = { id: s.id, gpus: [...s.gpus], memoryPerGpu: s.memoryPerGpu };
  if (s.model !== undefined) c.model = s.model;
  if (s.lastActivity !== undefined) c.lastActivity = s.lastActivity;
  if (s.stale !== undefined) c.stale = s.stale;
  if (s.milli !== undefined) c.milli = s.milli;
  if (s.cpu !== undefined) c.cpu = s.cpu;
  if (s.hostMemory !== undefined) c.hostMemory = s.hostMemory;
  if (s.parts !== undefined) c.parts = s.parts.map((p) => ({ node: p.node, gpus: [...p.gpus], memoryPerGpu: p.memoryPerGpu }));
  return c;
}
