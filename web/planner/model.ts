// The page's model: a cluster (one ClusterState, the same one the CLI's `plan --state FILE` reads and
// writes), both engines, the machine types nodes were added from, and replica work. No DOM here:
// the panels render what this holds.
import {
  type AlignedResult,
  AllocationError,
  type Backend,
  type ClusterState,
  type ClusterStateJSON,
  type Engine,
  formatBytes,
  type Inventory,
  LIMITS,
  nodeFromInventory,
  openEngine,
  type PlacementOption,
  type PlacementPlan,
  type PlacementRequest,
  type ReplicaPolicy,
  type ReplicaResult,
  type Slot,
  stateFileText,
  type Topology,
  validateInventory,
} from '../../src/index.ts';
import { gpuKey, type MachineType, type ModelRequest, type PageMeta, type ReplicaDevices, type StateNode, type Timed, type Workload } from './types.ts';

/** localStorage keys: the state file's exact text, and the page's own metadata. */
export const STATE_KEY = 'gpualloc.cluster-state';
export const META_KEY = 'gpualloc.page-meta';

/** Slot IDs of whole-GPU work start with this (so the kind survives a reload and an export). */
const WHOLE_PREFIX = 'whole-';

/** Keeps a timing loop short: repeat a pure call until this much time has passed, in milliseconds. */
const TIMING_BUDGET_MS = 20;
const TIMING_MAX_RUNS = 2000;

/** How many options a plan lists. */
const PLAN_LIMIT = 16;

/** A node's machine signature: GPU count, memory, topology (nodes of one type share it). */
function signature(node: { gpus: Array<{ index: number; memoryTotal: number }>; topology?: Topology }): string {
  return JSON.stringify([node.gpus.map((g) => [g.index, g.memoryTotal]), node.topology?.links ?? []]);
}

/** A label for a node of no known type: `8 × 80 GiB`. */
function shapeLabel(node: StateNode): string {
  const sizes = new Map<number, number>();
  for (const g of node.gpus) sizes.set(g.memoryTotal, (sizes.get(g.memoryTotal) ?? 0) + 1);
  return [...sizes].map(([mem, n]) => `${n} × ${formatBytes(mem)}`).join(' + ') || 'no GPUs';
}

/** The planner: a cluster state + machine types + replica work, over a switchable backend. */
export class Planner {
  /** Engines by backend; 'wasm' is missing when the core could not load. */
  readonly engines: Partial<Record<Backend, Engine>>;
  backend: Backend;
  state: ClusterState;
  /** The node shown in the node view. */
  selected: string | undefined;
  private types = new Map<string, MachineType>();
  private nodeType = new Map<string, string>();
  private replicaWork = new Map<string, Workload[]>();
  private colors = new Map<string, number>();
  private nextId = 1;
  private cache: ClusterStateJSON | undefined;
  private byId: Map<string, StateNode> | undefined;

  private constructor(engines: Partial<Record<Backend, Engine>>, backend: Backend) {
    this.engines = engines;
    this.backend = backend;
    this.state = this.engine().createClusterState({ nodes: [] });
  }

  /** Creates both engines; a wasm core that fails to load leaves only 'ts' and reports why. */
  static async create(): Promise<{ planner: Planner; wasmError?: unknown }> {
    const ts = await openEngine({ backend: 'ts' });
    try {
      const wasm = await openEngine({ backend: 'wasm' });
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
    this.state = next.restoreClusterState(this.state.toJSON());
    this.backend = backend;
    this.changed();
  }

  // ---------- the cluster ----------

  /** Forgets cached views of the state (call after every change). */
  private changed(): void {
    this.cache = undefined;
    this.byId = undefined;
  }

  /** The state as toJSON gives it (cached until the next change; do not modify). */
  snapshot(): ClusterStateJSON {
    this.cache ??= this.state.toJSON();
    return this.cache;
  }

  /** The nodes, in the state's order. */
  nodes(): StateNode[] {
    return this.snapshot().nodes;
  }

  /** One node of the state; throws UNKNOWN_NODE's kind of message when it is not there. */
  node(id: string): StateNode {
    const node = this.nodeMap().get(id);
    if (node === undefined) throw new Error(`node ${JSON.stringify(id)} is not in the cluster`);
    return node;
  }

  hasNode(id: string): boolean {
    return this.nodeMap().has(id);
  }

  /** The nodes by ID (cached with the snapshot). */
  private nodeMap(): Map<string, StateNode> {
    this.byId ??= new Map(this.nodes().map((n) => [n.id, n]));
    return this.byId;
  }

  /** Replaces the state with `nodes` (same nextSlot), through the engine's own validation. */
  private rebuild(nodes: StateNode[]): void {
    const json = this.state.toJSON();
    this.state = this.engine().restoreClusterState({ ...json, nodes });
    this.changed();
  }

  /** Registers a machine type (a preset or an uploaded inventory); returns its key. */
  addType(key: string, label: string, inventory: unknown, origin: string): string {
    const valid = validateInventory(inventory, origin);
    // Building a node validates what the cluster state needs too (before anything is kept).
    this.engine().createClusterState({ nodes: [nodeFromInventory(valid, { id: 'check' })] });
    this.types.set(key, { key, label, inventory: valid });
    return key;
  }

  machineTypes(): MachineType[] {
    return [...this.types.values()];
  }

  machineType(key: string): MachineType | undefined {
    return this.types.get(key);
  }

  /** A fresh node ID `<base>-<n>` (n counting up from 1, skipping IDs in use). */
  private freshId(base: string, taken: Set<string>): string {
    for (let n = 1; ; n++) {
      const id = `${base}-${n}`;
      if (!taken.has(id)) return id;
    }
  }

  /** Adds `count` nodes of a machine type; returns their IDs. */
  addNodes(typeKey: string, count: number): string[] {
    const type = this.types.get(typeKey);
    if (type === undefined) throw new Error(`machine type: ${JSON.stringify(typeKey)} is not known; pick a preset or load an inventory first`);
    const current = this.state.toJSON().nodes;
    if (!Number.isInteger(count) || count < 1 || current.length + count > LIMITS.maxNodes)
      throw new Error(`count: expected a whole number from 1 to ${LIMITS.maxNodes - current.length}, got ${JSON.stringify(count)}`);
    const taken = new Set(current.map((n) => n.id));
    const base = typeKey.startsWith('preset:') ? typeKey.slice('preset:'.length) : type.inventory.host || 'node';
    const ids: string[] = [];
    const added: StateNode[] = [];
    for (let k = 0; k < count; k++) {
      const id = this.freshId(base, taken);
      taken.add(id);
      ids.push(id);
      const node = nodeFromInventory(type.inventory, { id });
      added.push({ ...node, slots: node.slots ?? [] } as StateNode);
    }
    this.rebuild([...current, ...added]);
    for (const id of ids) this.nodeType.set(id, typeKey);
    this.selected ??= ids[0];
    return ids;
  }

  /** Removes a node with everything placed on it. */
  removeNode(id: string): void {
    const current = this.state.toJSON().nodes;
    if (!current.some((n) => n.id === id)) throw new Error(`node ${JSON.stringify(id)} is not in the cluster`);
    this.rebuild(current.filter((n) => n.id !== id));
    this.nodeType.delete(id);
    this.replicaWork.delete(id);
    if (this.selected === id) this.selected = this.nodes()[0]?.id;
  }

  /** Adds an empty copy of a node's machine (same GPUs, used memory and topology; no slots); returns its ID. */
  duplicateNode(id: string): string {
    const current = this.state.toJSON().nodes;
    const source = current.find((n) => n.id === id);
    if (source === undefined) throw new Error(`node ${JSON.stringify(id)} is not in the cluster`);
    const type = this.nodeType.get(id);
    const base = type?.startsWith('preset:') ? type.slice('preset:'.length) : id.replace(/-\d+$/, '');
    const copyId = this.freshId(base, new Set(current.map((n) => n.id)));
    const copy: StateNode = { id: copyId, gpus: source.gpus.map((g) => ({ ...g })), slots: [] };
    if (source.topology !== undefined) copy.topology = { gpus: source.topology.gpus, links: source.topology.links.map((l) => ({ ...l })) };
    // The pod resources (cpu, hostMemory, gpuModel) are the machine's too.
    if (source.cpu !== undefined) copy.cpu = source.cpu;
    if (source.hostMemory !== undefined) copy.hostMemory = source.hostMemory;
    if (source.gpuModel !== undefined) copy.gpuModel = source.gpuModel;
    const at = current.indexOf(source);
    this.rebuild([...current.slice(0, at + 1), copy, ...current.slice(at + 1)]);
    if (type !== undefined) this.nodeType.set(copyId, type);
    return copyId;
  }

  /** Removes every node (machine types stay). */
  clearCluster(): void {
    this.rebuild([]);
    this.nodeType.clear();
    this.replicaWork.clear();
    this.selected = undefined;
  }

  /** The node's machine-type label (or its shape when it came from a state file of unknown machines). */
  typeLabel(id: string): string {
    const key = this.nodeType.get(id);
    const type = key === undefined ? undefined : this.types.get(key);
    return type?.label ?? shapeLabel(this.node(id));
  }

  /** Node counts by machine type, in order of first appearance: `32 × dgx-a100`. */
  typeCounts(): Array<{ label: string; count: number }> {
    const counts = new Map<string, number>();
    for (const n of this.nodes()) counts.set(this.typeLabel(n.id), (counts.get(this.typeLabel(n.id)) ?? 0) + 1);
    return [...counts].map(([label, count]) => ({ label, count }));
  }

  /** The node as an inventory for the detailed drawing: its type's inventory (names, MIG) or one made from the state. */
  inventoryOf(id: string): Inventory {
    const node = this.node(id);
    const key = this.nodeType.get(id);
    const type = key === undefined ? undefined : this.types.get(key);
    if (type !== undefined) return { ...type.inventory, host: id };
    return {
      version: 1,
      host: id,
      source: 'file',
      gpus: node.gpus.map((g) => ({ index: g.index, id: `cuda${g.index}`, memoryTotal: g.memoryTotal })),
      links: node.topology?.links.map((l) => ({ ...l })) ?? [],
    } as Inventory;
  }

  /** Where the node's machine came from, for the page. */
  sourceOf(id: string): string {
    const key = this.nodeType.get(id);
    if (key === undefined) return 'state file';
    return key.startsWith('preset:') ? `preset ${key.slice('preset:'.length)}` : `file ${key.slice('file:'.length)}`;
  }

  /** Memory used by other processes on each GPU of a node (never evicted), in bytes. */
  othersOf(id: string): Map<number, number> {
    const out = new Map<number, number>();
    for (const g of this.node(id).gpus) if ((g.memoryUsed ?? 0) > 0) out.set(g.index, g.memoryUsed as number);
    return out;
  }

  /** The palette index of a model label (assigned in order of first use, kept across reloads). */
  colorOf(label: string): number {
    let c = this.colors.get(label);
    if (c === undefined) {
      c = this.colors.size;
      this.colors.set(label, c);
    }
    return c;
  }

  /** Committed work of one node, or of every node: the state's slots (with colours) and the replica work. */
  workloads(node?: string): Workload[] {
    const out: Workload[] = [];
    const nodes = node === undefined ? this.nodes() : [this.node(node)];
    for (const n of nodes) {
      for (const slot of n.slots) out.push(this.slotWorkload(n.id, slot));
      out.push(...(this.replicaWork.get(n.id) ?? []));
    }
    return out;
  }

  private slotWorkload(node: string, slot: Slot): Workload {
    const label = slot.model ?? slot.id;
    return {
      id: slot.id,
      kind: slot.id.startsWith(WHOLE_PREFIX) ? 'gpus' : 'model',
      label,
      node,
      gpus: slot.gpus,
      memoryPerGpu: slot.memoryPerGpu,
      slotId: slot.id,
      color: this.colorOf(label),
      stale: slot.stale === true,
    };
  }

  /** Memory on each GPU of a node: used by other processes, and held by slots, in bytes. */
  usedMemory(id: string): Map<number, { others: number; slots: number }> {
    const node = this.node(id);
    const out = new Map<number, { others: number; slots: number }>();
    for (const g of node.gpus) out.set(g.index, { others: g.memoryUsed ?? 0, slots: 0 });
    for (const s of node.slots)
      for (const g of s.gpus) {
        const u = out.get(g);
        if (u !== undefined) u.slots += s.memoryPerGpu;
      }
    return out;
  }

  /** Marks a committed model stale (other models may evict it) or active again. */
  setStale(slotId: string, stale: boolean): void {
    this.state.markStale(slotId, stale);
    this.changed();
  }

  // ---------- decisions ----------

  /**
   * Runs a pure decision once for its result, then repeats it within a small budget for a stable
   * time; the other backend (when loaded) is timed on the same request for comparison.
   */
  timed<T>(decide: (engine: Engine) => T, other?: (engine: Engine) => T): Timed<T> {
    const engine = this.engine();
    const t0 = performance.now();
    const value = decide(engine);
    const first = performance.now() - t0;
    const mine = Planner.measure(engine, decide, first);
    const result: Timed<T> = { value, backend: this.backend, ...mine };
    const otherBackend: Backend = this.backend === 'wasm' ? 'ts' : 'wasm';
    const otherEngine = this.engines[otherBackend];
    if (otherEngine !== undefined) {
      try {
        result.other = { backend: otherBackend, ...Planner.measure(otherEngine, other ?? decide, 0, 0) };
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

  requireSelected(): string {
    if (this.selected === undefined || !this.hasNode(this.selected)) throw new Error('no node is selected: add nodes to the cluster and click one');
    return this.selected;
  }

  /** Plans a model across every node with the cluster state (pure: nothing is committed). */
  planCluster(request: ModelRequest): Timed<PlacementPlan> {
    if (this.nodes().length === 0) throw new Error('the cluster has no nodes: add nodes first');
    const req = { ...request, limit: PLAN_LIMIT };
    const json = this.state.toJSON();
    // The other backend plans on its own copy of the same state.
    const otherBackend: Backend = this.backend === 'wasm' ? 'ts' : 'wasm';
    const otherState = this.engines[otherBackend]?.restoreClusterState(json);
    return this.timed(() => this.state.plan(req), otherState === undefined ? undefined : () => otherState.plan(req));
  }

  /**
   * The planPlacement request for a model on the selected node as the state holds it now.
   * planPlacement (not ClusterState.plan) because it gives per-GPU rejections even when some option exists.
   */
  placementRequest(request: ModelRequest): PlacementRequest {
    const node = this.node(this.requireSelected());
    return { gpus: node.gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), ...request, limit: PLAN_LIMIT };
  }

  /** Plans a model on the selected node (pure). */
  planNode(request: ModelRequest): Timed<PlacementPlan> {
    const req = this.placementRequest(request);
    return this.timed((e) => e.planPlacement(req));
  }

  /** Commits a planned option (evicting what it lists) on its node (the selected one for a node plan); returns the new slot ID. */
  commitOption(option: PlacementOption): string {
    const node = option.node ?? this.requireSelected();
    const slotId = this.state.commit({ ...option, node });
    this.changed();
    return slotId;
  }

  /** Every replica / MIG device of the selected node: MIG slices where a GPU has them, else `replicasPerGpu` time-sliced replicas. */
  replicaDevices(replicasPerGpu: number): ReplicaDevices {
    const inventory = this.inventoryOf(this.requireSelected());
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

  /** GPUs of the selected node wholly taken by whole-GPU work. */
  wholeGpus(): Set<number> {
    const taken = new Set<number>();
    for (const w of this.workloads(this.requireSelected())) if (w.kind === 'gpus') for (const g of w.gpus) taken.add(g);
    return taken;
  }

  /** The allocateReplicas request the page sends for `size` devices (available: not taken, not on a whole-GPU allocation). */
  replicaRequest(replicasPerGpu: number, size: number, policy: ReplicaPolicy): { devices: string[]; available: string[]; size: number; policy: ReplicaPolicy; parents: Record<string, string> } {
    const view = this.replicaDevices(replicasPerGpu);
    const taken = new Set<string>();
    for (const w of this.workloads(this.requireSelected())) for (const d of w.devices ?? []) taken.add(d);
    const whole = this.wholeGpus();
    const available = view.devices.filter((d) => !taken.has(d) && !whole.has(view.gpuOf.get(d) as number));
    return { devices: view.devices, available, size, policy, parents: view.parents };
  }

  /** Picks replicas on the selected node (pure). */
  allocateReplicas(replicasPerGpu: number, size: number, policy: ReplicaPolicy): Timed<ReplicaResult> {
    const request = this.replicaRequest(replicasPerGpu, size, policy);
    return this.timed((e) => e.allocateReplicas(request));
  }

  /** Commits picked replicas on the selected node (they hold no memory in the ClusterState). */
  commitReplicas(devices: string[], replicasPerGpu: number, label: string): Workload {
    const node = this.requireSelected();
    const view = this.replicaDevices(replicasPerGpu);
    const gpus = [...new Set(devices.map((d) => view.gpuOf.get(d) as number))].sort((a, b) => a - b);
    const w: Workload = { id: `replicas-${this.nextId++}`, kind: 'replicas', label, node, gpus, memoryPerGpu: 0, devices: [...devices], color: this.colorOf(label) };
    this.replicaWork.set(node, [...(this.replicaWork.get(node) ?? []), w]);
    return w;
  }

  /** GPUs of the selected node free for a whole-GPU request: not in MIG mode (its slices are the replicas'), no memory used or committed, no replicas. */
  freeWholeGpus(): number[] {
    const id = this.requireSelected();
    const used = this.usedMemory(id);
    const busy = new Set<number>();
    for (const w of this.workloads(id)) if (w.kind === 'replicas') for (const g of w.gpus) busy.add(g);
    return this.node(id)
      .gpus.filter((g) => {
        const u = used.get(g.index);
        return g.mig !== true && (u === undefined || u.others + u.slots === 0) && !busy.has(g.index);
      })
      .map((g) => g.index);
  }

  /** The allocateAligned request the page sends. */
  alignedRequest(size: number, policy: 'besteffort' | 'topology'): { topology: Topology; available: number[]; size: number; policy: 'besteffort' | 'topology' } {
    const node = this.node(this.requireSelected());
    const width = node.gpus.reduce((w, g) => Math.max(w, g.index + 1), 0);
    return { topology: node.topology ?? { gpus: width, links: [] }, available: this.freeWholeGpus(), size, policy };
  }

  /** Picks whole GPUs by topology (pure). */
  allocateAligned(size: number, policy: 'besteffort' | 'topology'): Timed<AlignedResult> {
    const request = this.alignedRequest(size, policy);
    return this.timed((e) => e.allocateAligned(request));
  }

  /** Commits whole GPUs: each GPU's full memory becomes one slot, so model planning sees them as taken. */
  commitWholeGpus(gpus: number[], score: number, label: string): string {
    const node = this.node(this.requireSelected());
    const memoryPerGpu = Math.min(...gpus.map((g) => node.gpus.find((x) => x.index === g)?.memoryTotal ?? 0));
    const json = this.state.toJSON();
    const slotId = this.state.commit({ node: node.id, model: label, gpus: [...gpus], memoryPerGpu, evict: [], score }, { id: `${WHOLE_PREFIX}${json.nextSlot}` });
    this.changed();
    return slotId;
  }

  /** Releases committed work. */
  release(id: string): void {
    for (const [node, list] of this.replicaWork) {
      if (list.some((x) => x.id === id)) {
        this.replicaWork.set(
          node,
          list.filter((x) => x.id !== id),
        );
        return;
      }
    }
    this.state.release(id);
    this.changed();
  }

  // ---------- persistence and exchange ----------

  /** The state file's text: exactly what `gpualloc plan --state FILE` reads and writes. */
  exportText(): string {
    return stateFileText(this.state);
  }

  /**
   * Replaces the cluster with a state file's (`gpualloc plan --state FILE`). A malformed file throws
   * the engine's INVALID_STATE error (naming the field) and leaves the cluster as it was.
   */
  importText(text: string, name: string): void {
    let state: ClusterState;
    try {
      state = this.engine().restoreClusterState(text);
    } catch (error) {
      if (error instanceof AllocationError) throw new AllocationError(error.code as never, `${name}: ${error.message}`, { field: error.field, cause: error });
      throw error;
    }
    this.state = state;
    this.changed();
    // Keep a node's machine type only where the node still has that type's machine.
    // Several types can share a machine (dgx-a100 and dgx-a100-mig): the node's own type wins, else the first one added.
    const bySignature = new Map<string, string[]>();
    for (const t of this.types.values()) {
      const node = nodeFromInventory(t.inventory, { id: 'x' });
      const sig = signature({ gpus: node.gpus, topology: node.topology });
      bySignature.set(sig, [...(bySignature.get(sig) ?? []), t.key]);
    }
    const nodeType = new Map<string, string>();
    for (const n of this.nodes()) {
      const keys = bySignature.get(signature(n)) ?? [];
      const was = this.nodeType.get(n.id);
      const key = was !== undefined && keys.includes(was) ? was : keys[0];
      if (key !== undefined) nodeType.set(n.id, key);
    }
    this.nodeType = nodeType;
    for (const node of [...this.replicaWork.keys()]) if (!this.hasNode(node)) this.replicaWork.delete(node);
    if (this.selected === undefined || !this.hasNode(this.selected)) this.selected = this.nodes()[0]?.id;
  }

  /** What the page keeps beside the state. */
  meta(): PageMeta {
    return {
      version: 1,
      types: this.machineTypes(),
      nodeType: Object.fromEntries(this.nodeType),
      replicas: Object.fromEntries(this.replicaWork),
      colors: Object.fromEntries(this.colors),
      ...(this.selected !== undefined ? { selected: this.selected } : {}),
      backend: this.backend,
      nextId: this.nextId,
    };
  }

  /** Saves the state (compact JSON: the same object as the file, half the size) and the page's metadata. */
  save(storage: Storage): void {
    storage.setItem(STATE_KEY, JSON.stringify(this.state.toJSON()));
    storage.setItem(META_KEY, JSON.stringify(this.meta()));
  }

  /**
   * Restores what `save` stored; returns false when nothing was stored. A stored state that does not
   * load throws (the caller shows why and starts afresh); nothing is changed then.
   */
  load(storage: Storage): boolean {
    const text = storage.getItem(STATE_KEY);
    if (text === null) return false;
    const metaText = storage.getItem(META_KEY);
    const meta = metaText === null ? undefined : (JSON.parse(metaText) as PageMeta);
    const backend = meta?.backend !== undefined && this.engines[meta.backend] !== undefined ? meta.backend : this.backend;
    const state = (this.engines[backend] as Engine).restoreClusterState(text);
    const types = new Map<string, MachineType>();
    for (const t of meta?.types ?? []) types.set(t.key, { key: t.key, label: t.label, inventory: validateInventory(t.inventory, `stored machine type ${t.key}`) });
    // Nothing above changed the planner: a stored state that does not load leaves it as it was.
    this.backend = backend;
    this.state = state;
    this.changed();
    this.types = types;
    this.nodeType = new Map(Object.entries(meta?.nodeType ?? {}).filter(([id, key]) => types.has(key) && this.hasNode(id)));
    this.replicaWork = new Map(Object.entries(meta?.replicas ?? {}).filter(([id]) => this.hasNode(id)));
    this.colors = new Map(Object.entries(meta?.colors ?? {}));
    this.nextId = meta?.nextId ?? 1;
    this.selected = meta?.selected !== undefined && this.hasNode(meta.selected) ? meta.selected : this.nodes()[0]?.id;
    return true;
  }
}
