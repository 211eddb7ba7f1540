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
};

/** A decision's result and how long the engine took for it. */
export type Timed<T> = { value: T; backend: Backend; ms: number; runs: number };

/** The replica view of the node: every device ID, the GPU it lives on, its parent key. */
export type ReplicaDevices = { devices: string[]; gpuOf: Map<string, number>; parents: Record<string, string> };

/** Keeps a timing loop short: repeat a pure call until this much time has passed, in milliseconds. */
const TIMING_BUDGET_MS = 20;
const TIMING_MAX_RUNS = 2000;

/** The node ID the page uses in its one-node ClusterState. */
export const NODE_ID = 'node';

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
  workloads: Workload[] = [];
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
    const gpus = inventory.gpus.map((g) => ({ index: g.index, memoryTotal: g.memoryTotal }));
    const inUse = inventory.gpus.filter((g) => (g.memoryUsed ?? 0) > 0);
    const slots = inUse.map((g) => ({ id: `in-use-gpu${g.index}`, model: '(in use)', gpus: [g.index], memoryPerGpu: g.memoryUsed as number }));
    this.inventory = inventory;
    this.source = source;
    this.state = undefined;
    this.workloads = [];
    this.nextId = 1;
    this.nextColor = 0;
    for (const s of slots) this.workloads.push({ id: s.id, kind: 'in-use', label: 'in use (inventory)', gpus: s.gpus, memoryPerGpu: s.memoryPerGpu, slotId: s.id, color: -1 });
    this.state = this.engine().createClusterState({ nodes: [{ id: NODE_ID, gpus, topology: inventoryTopology(inventory), slots }] });
  }

  /** Drops all committed work, keeping the node. */
  reset(): void {
    if (this.inventory !== undefined) this.setInventory(this.inventory, this.source);
  }

  /** Runs a pure decision once for its result, then repeats it within a small budget for a stable time. */
  timed<T>(decide: (engine: Engine) => T): Timed<T> {
    const engine = this.engine();
    const t0 = performance.now();
    const value = decide(engine);
    let total = performance.now() - t0;
    let runs = 1;
    while (total < TIMING_BUDGET_MS && runs < TIMING_MAX_RUNS) {
      const t = performance.now();
      decide(engine);
      total += performance.now() - t;
      runs++;
    }
    return { value, backend: this.backend, ms: total / runs, runs };
  }

  private requireState(): ClusterState {
    if (this.state === undefined) throw new Error('no node is loaded: pick a preset or load an inventory first');
    return this.state;
  }

  private requireInventory(): Inventory {
    if (this.inventory === undefined) throw new Error('no node is loaded: pick a preset or load an inventory first');
    return this.inventory;
  }

  /** Plans a model on the node (ClusterState.plan: pure). */
  planModel(request: { memory: number; model: string; tensorParallelSizes: number[]; policy: 'spread' | 'pack'; allowEviction: boolean }): Timed<PlacementPlan> {
    const state = this.requireState();
    return this.timed(() => state.plan({ ...request, limit: 16 }));
  }

  /** Commits a planned option; evicted slots leave the page's work list. */
  commitOption(option: PlacementOption, label: string): Workload {
    const state = this.requireState();
    const slotId = state.commit(option);
    const evicted = new Set(option.evict);
    this.workloads = this.workloads.filter((w) => w.slotId === undefined || !evicted.has(w.slotId));
    const w: Workload = { id: `w${this.nextId++}`, kind: 'model', label, gpus: [...option.gpus], memoryPerGpu: option.memoryPerGpu, slotId, color: this.nextColor++ };
    this.workloads.push(w);
    return w;
  }

  /** Memory committed on each GPU, by GPU index, in bytes. */
  usedMemory(): Map<number, number> {
    const used = new Map<number, number>();
    for (const w of this.workloads) if (w.slotId !== undefined) for (const g of w.gpus) used.set(g, (used.get(g) ?? 0) + w.memoryPerGpu);
    return used;
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
    const w: Workload = { id: `w${this.nextId++}`, kind: 'replicas', label, gpus, memoryPerGpu: 0, devices: [...devices], color: this.nextColor++ };
    this.workloads.push(w);
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
  commitWholeGpus(gpus: number[], score: number, label: string): Workload {
    const inventory = this.requireInventory();
    const state = this.requireState();
    const memoryPerGpu = Math.min(...gpus.map((g) => inventory.gpus.find((x) => x.index === g)?.memoryTotal ?? 0));
    const slotId = state.commit({ node: NODE_ID, model: label, gpus: [...gpus], memoryPerGpu, evict: [], score });
    const w: Workload = { id: `w${this.nextId++}`, kind: 'gpus', label, gpus: [...gpus], memoryPerGpu, slotId, color: this.nextColor++ };
    this.workloads.push(w);
    return w;
  }

  /** Releases committed work. */
  release(id: string): void {
    const w = this.workloads.find((x) => x.id === id);
    if (w === undefined) return;
    if (w.slotId !== undefined) this.requireState().release(w.slotId);
    this.workloads = this.workloads.filter((x) => x !== w);
  }
}
