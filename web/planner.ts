// The page's model: one node (a ClusterState of one node), both engines, and the work committed so far.
// No DOM here: main.ts renders what this holds.
import {
  AllocationError,
  createEngine,
  type AlignedResult,
  type Backend,
  type ClusterState,
  type Engine,
  type Inventory,
  type PlacementOption,
  type PlacementPlan,
  type PlacementRequest,
  type ReplicaPolicy,
  type ReplicaResult,
  type Topology,
} from '../src/index.ts';

/** Kinds of work the page commits. 'in-use' is memory the inventory reports as already used. */
export type WorkloadKind = 'model' | 'replicas' | 'gpus' | 'in-use';

/** One committed piece of work. memoryPerGpu in bytes. */
export type Workload = {
  id: string;
  kind: WorkloadKind;
  label: string;
  gpus: number[];
  memoryPerGpu: number;
  /** ClusterState slot ID, for work that holds memory. */
  slotId?: string;
  /** Replica or MIG device IDs, for replica work. */
  devices?: string[];
  /** Palette index. */
  color: number;
  /** Whether the slot is marked stale (evictable by other models). */
  stale?: boolean;
};

/** A decision's result and how long the engine took for it (ms: mean per run, in milliseconds). */
export type Timed<T> = { value: T; backend: Backend; ms: number; runs: number; other?: { backend: Backend; ms: number; runs: number } };

/** The replica view of the node: every device ID, the GPU it lives on, its parent key. */
export type ReplicaDevices = { devices: string[]; gpuOf: Map<string, number>; parents: Record<string, string> };

/** Keeps a timing loop short: repeat a pure call until this much time has passed, in milliseconds. */
const TIMING_BUDGET_MS = 20;
const TIMING_MAX_RUNS = 2000;

/** The node ID of an inventory in the page's one-node ClusterState: its host name, or 'node'. */
export function nodeId(inventory: Inventory): string {
  return typeof inventory.host === 'string' && inventory.host !== '' ? inventory.host : 'node';
}

/** Formats any thrown value as { title, message } for the error banner. */
export function describeError(error: unknown): { title: string; message: string } {
  if (error instanceof AllocationError) return { title: error.code, message: error.message };
  if (error instanceof Error) return { title: error.name || 'Error', message: error.message };
  return { title: 'Error', message: String(error) };
}

/** The GPU key used for replica parents: the UUID, or `GPU-<index>` when the inventory has none. */
export function gpuKey(inventory: Inventory, index: number): string {
  const gpu = inventory.gpus.find((g) => g.index === index);
  return gpu?.uuid ?? `GPU-${index}`;
}

/** Topology of an inventory, as the engine takes it. */
export function inventoryTopology(inventory: Inventory): Topology {
  return { gpus: inventory.gpus.length, links: inventory.links.map((l) => ({ ...l })) };
}

/** The planner: inventory + state + committed work, over a switchable backend. */
export class Planner {
  /** Engines by backend; 'wasm' is missing when the core could not load. */
  readonly engines: Partial<Record<Backend, Engine>>;
  backend: Backend;
  inventory: Inventory | undefined;
  /** Where the inventory came from, for the page. */
  source = '';
  state: ClusterState | undefined;
  /** The node ID in the state. */
  node = 'node';
  /** The node's GPUs (not lost) and topology, as planPlacement takes them (one object: its pair-score matrix is cached). */
  private nodeGpus: Array<{ index: number; memoryTotal: number }> = [];
  private nodeTopology: Topology = { gpus: 0, links: [] };
  /** Labels and colours of committed work, by slot ID (the slots themselves live in the state). */
  private slotMeta = new Map<string, { kind: WorkloadKind; label: string; color: number }>();
  /** Replica work: it holds devices, not memory, so it lives here and not in the state. */
  private replicaWork: Workload[] = [];
  private nextId = 1;
  private nextColor = 0;

  private constructor(engines: Partial<Record<Backend, Engine>>, backend: Backend) {
    this.engines = engines;
    this.backend = backend;
  }

  /** Creates both engines; a wasm core that fails to load leaves only 'ts' and reports why. */
  static async create(): Promise<{ planner: Planner; wasmError?: unknown }> {
    const ts = await createEngine({ backend: 'ts' });
    try {
      const wasm = await createEngine({ backend: 'wasm' });
      return { planner: new Planner({ wasm, ts }, 'wasm') };
    } catch (wasmError) {
      return { planner: new Planner({ ts }, 'ts'), wasmError };
    }
  }

  /** The engine of the current backend. */
  engine(): Engine {
    const e = this.engines[this.backend];
    if (e === undefined) throw new Error(`the ${this.backend} backend is not available`);
    return e;
  }

  /** Switches backend; the cluster state moves over through toJSON / restoreClusterState. */
  setBackend(backend: Backend): void {
    const next = this.engines[backend];
    if (next === undefined) throw new Error(`the ${backend} backend is not available (the WebAssembly core did not load)`);
    if (backend === this.backend) return;
    if (this.state !== undefined) this.state = next.restoreClusterState(this.state.toJSON());
    this.backend = backend;
  }

  /**
   * Replaces the node; committed work is dropped. Memory the inventory reports as used becomes a
   * slot. The node is kept even when the cluster state cannot be built (the error is rethrown).
   */
  setInventory(inventory: Inventory, source: string): void {
    const lost = new Set(inventory.gpus.filter((g) => g.lost === true).map((g) => g.index));
    const gpus = inventory.gpus.filter((g) => !lost.has(g.index)).map((g) => ({ index: g.index, memoryTotal: g.memoryTotal }));
    const links = inventory.links.filter((l) => !lost.has(l.a) && !lost.has(l.b)).map((l) => ({ ...l }));
    const width = inventory.gpus.reduce((w, g) => Math.max(w, g.index + 1), 0);
    const inUse = inventory.gpus.filter((g) => !lost.has(g.index) && (g.memoryUsed ?? 0) > 0);
    const slots = inUse.map((g) => ({ id: `in-use-gpu${g.index}`, model: '(in use)', gpus: [g.index], memoryPerGpu: g.memoryUsed as number }));
    this.inventory = inventory;
    this.source = source;
    this.node = nodeId(inventory);
    this.state = undefined;
    this.slotMeta = new Map(slots.map((x) => [x.id, { kind: 'in-use' as const, label: 'in use (inventory)', color: -1 }]));
    this.replicaWork = [];
    this.nextId = 1;
    this.nextColor = 0;
    this.nodeGpus = gpus;
    this.nodeTopology = { gpus: width, links };
    this.state = this.engine().createClusterState({ nodes: [{ id: this.node, gpus, topology: this.nodeTopology, slots }] });
  }

  /** Drops all committed work, keeping the node. */
  reset(): void {
    if (this.inventory !== undefined) this.setInventory(this.inventory, this.source);
  }

  /**
   * Runs a pure decision once for its result, then repeats it within a small budget for a stable
   * time; the other backend (when loaded) is timed on the same request for comparison.
   */
  timed<T>(decide: (engine: Engine) => T): Timed<T> {
    const engine = this.engine();
    const t0 = performance.now();
    const value = decide(engine);
    const first = performance.now() - t0;
    const mine = Planner.measure(engine, decide, first);
    const result: Timed<T> = { value, backend: this.backend, ...mine };
    const otherBackend: Backend = this.backend === 'wasm' ? 'ts' : 'wasm';
    const other = this.engines[otherBackend];
    if (other !== undefined) {
      try {
        result.other = { backend: otherBackend, ...Planner.measure(other, decide, 0, 0) };
      } catch {
        // The comparison is informative only; the decision itself came from the selected backend.
      }
    }
    return result;
  }

  private static measure<T>(engine: Engine, decide: (engine: Engine) => T, total: number, runs = 1): { ms: number; runs: number } {
    while (runs === 0 || (total < TIMING_BUDGET_MS && runs < TIMING_MAX_RUNS)) {
      const t = performance.now();
      decide(engine);
      total += performance.now() - t;
      runs++;
    }
    return { ms: total / runs, runs };
  }

  private requireState(): ClusterState {
    if (this.state === undefined) throw new Error('no node is loaded: pick a preset or load an inventory first');
    return this.state;
  }

  private requireInventory(): Inventory {
    if (this.inventory === undefined) throw new Error('no node is loaded: pick a preset or load an inventory first');
    return this.inventory;
  }

  /**
   * The planPlacement request for a model on the node as the state holds it now. planPlacement (not
   * ClusterState.plan) because it gives per-GPU rejections even when some option exists.
   */
  placementRequest(request: { memory: number; model: string; tensorParallelSizes: number[]; policy: 'spread' | 'pack'; allowEviction: boolean }): PlacementRequest {
    const state = this.requireState();
    return { gpus: this.nodeGpus, slots: state.listSlots(this.node), topology: this.nodeTopology, ...request, limit: 16 };
  }

  /** Plans a model on the node (pure). */
  planModel(request: { memory: number; model: string; tensorParallelSizes: number[]; policy: 'spread' | 'pack'; allowEviction: boolean }): Timed<PlacementPlan> {
    const req = this.placementRequest(request);
    return this.timed((e) => e.planPlacement(req));
  }

  /** Commits a planned option (evicting what it lists); returns the new slot ID. */
  commitOption(option: PlacementOption, label: string): string {
    const slotId = this.requireState().commit({ ...option, node: this.node });
    this.slotMeta.set(slotId, { kind: 'model', label, color: this.nextColor++ });
    return slotId;
  }

  /** Committed work: the state's slots (with their labels) and the replica work. */
  get workloads(): Workload[] {
    const out: Workload[] = [];
    if (this.state !== undefined) {
      for (const slot of this.state.listSlots(this.node)) {
        const meta = this.slotMeta.get(slot.id) ?? { kind: 'model' as const, label: slot.model ?? slot.id, color: -1 };
        out.push({ id: slot.id, kind: meta.kind, label: meta.label, gpus: slot.gpus, memoryPerGpu: slot.memoryPerGpu, slotId: slot.id, color: meta.color, stale: slot.stale === true });
      }
    }
    return [...out, ...this.replicaWork];
  }

  /** Memory allocated on each GPU according to the state, by GPU index, in bytes. */
  usedMemory(): Map<number, number> {
    const used = new Map<number, number>();
    for (const u of this.state?.usage() ?? []) if (u.node === this.node) used.set(u.gpu, u.allocated);
    return used;
  }

  /** Marks a committed model stale (other models may evict it) or active again. */
  setStale(slotId: string, stale: boolean): void {
    this.requireState().markStale(slotId, stale);
  }

  /** Every replica / MIG device of the node: MIG slices where a GPU has them, else `replicasPerGpu` time-sliced replicas. */
  replicaDevices(replicasPerGpu: number): ReplicaDevices {
    const inventory = this.requireInventory();
    const devices: string[] = [];
    const gpuOf = new Map<string, number>();
    const parents: Record<string, string> = {};
    for (const gpu of inventory.gpus) {
      if (gpu.lost === true) continue;
      const key = gpuKey(inventory, gpu.index);
      const ids = gpu.mig !== undefined && gpu.mig.length > 0 ? gpu.mig.map((m) => m.uuid) : Array.from({ length: replicasPerGpu }, (_, r) => `${key}::${r}`);
      for (const id of ids) {
        devices.push(id);
        gpuOf.set(id, gpu.index);
        Object.defineProperty(parents, id, { value: key, enumerable: true, writable: true, configurable: true });
      }
    }
    return { devices, gpuOf, parents };
  }

  /** Replica devices already given out by committed replica work. */
  takenReplicas(): Set<string> {
    const taken = new Set<string>();
    for (const w of this.workloads) for (const d of w.devices ?? []) taken.add(d);
    return taken;
  }

  /** GPUs wholly taken by whole-GPU work. */
  wholeGpus(): Set<number> {
    const taken = new Set<number>();
    for (const w of this.workloads) if (w.kind === 'gpus') for (const g of w.gpus) taken.add(g);
    return taken;
  }

  /** The allocateReplicas request the page sends for `size` devices (available: not taken, not on a whole-GPU allocation). */
  replicaRequest(replicasPerGpu: number, size: number, policy: ReplicaPolicy): { devices: string[]; available: string[]; size: number; policy: ReplicaPolicy; parents: Record<string, string> } {
    const view = this.replicaDevices(replicasPerGpu);
    const taken = this.takenReplicas();
    const whole = this.wholeGpus();
    const available = view.devices.filter((d) => !taken.has(d) && !whole.has(view.gpuOf.get(d) as number));
    return { devices: view.devices, available, size, policy, parents: view.parents };
  }

  /** Picks replicas (pure). */
  allocateReplicas(replicasPerGpu: number, size: number, policy: ReplicaPolicy): Timed<ReplicaResult> {
    const request = this.replicaRequest(replicasPerGpu, size, policy);
    return this.timed((e) => e.allocateReplicas(request));
  }

  /** Commits picked replicas to the page (they hold no memory in the ClusterState). */
  commitReplicas(devices: string[], replicasPerGpu: number, label: string): Workload {
    const view = this.replicaDevices(replicasPerGpu);
    const gpus = [...new Set(devices.map((d) => view.gpuOf.get(d) as number))].sort((a, b) => a - b);
    const w: Workload = { id: `replicas-${this.nextId++}`, kind: 'replicas', label, gpus, memoryPerGpu: 0, devices: [...devices], color: this.nextColor++ };
    this.replicaWork.push(w);
    return w;
  }

  /** GPUs free for a whole-GPU request: no memory committed, no replicas, not lost. */
  freeWholeGpus(): number[] {
    const inventory = this.requireInventory();
    const used = this.usedMemory();
    const busy = new Set<number>();
    for (const w of this.workloads) if (w.kind === 'replicas') for (const g of w.gpus) busy.add(g);
    return inventory.gpus.filter((g) => g.lost !== true && (used.get(g.index) ?? 0) === 0 && !busy.has(g.index) && !this.wholeGpus().has(g.index)).map((g) => g.index);
  }

  /** The allocateAligned request the page sends. */
  alignedRequest(size: number, policy: 'besteffort' | 'topology'): { topology: Topology; available: number[]; size: number; policy: 'besteffort' | 'topology' } {
    return { topology: inventoryTopology(this.requireInventory()), available: this.freeWholeGpus(), size, policy };
  }

  /** Picks whole GPUs by topology (pure). */
  allocateAligned(size: number, policy: 'besteffort' | 'topology'): Timed<AlignedResult> {
    const request = this.alignedRequest(size, policy);
    return this.timed((e) => e.allocateAligned(request));
  }

  /** Commits whole GPUs: each GPU's full memory becomes one slot, so model planning sees them as taken. */
  commitWholeGpus(gpus: number[], score: number, label: string): string {
    const inventory = this.requireInventory();
    const memoryPerGpu = Math.min(...gpus.map((g) => inventory.gpus.find((x) => x.index === g)?.memoryTotal ?? 0));
    const slotId = this.requireState().commit({ node: this.node, model: label, gpus: [...gpus], memoryPerGpu, evict: [], score });
    this.slotMeta.set(slotId, { kind: 'gpus', label, color: this.nextColor++ });
    return slotId;
  }

  /** Releases committed work. */
  release(id: string): void {
    const replica = this.replicaWork.find((x) => x.id === id);
    if (replica !== undefined) {
      this.replicaWork = this.replicaWork.filter((x) => x !== replica);
      return;
    }
    this.requireState().release(id);
    this.slotMeta.delete(id);
  }
}
