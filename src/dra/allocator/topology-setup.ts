// What the objective reads of a node once per node class: each candidate's parent, the PCIe-root
// and NUMA domains its driver publishes, the parents' counters and the workload tables over them.

import type { AllocationModel } from '../model/index.js';
import type { AttributeValue, Device } from '../objects/index.js';
import { deviceFieldKeys, type SymmetryKeys } from './device-keys.js';
import { LOOKAHEAD_STEPS, PartitionLayout, ShapeTable } from './partition-fragmentation.js';
import { counterSetRoots, partitionShare, type WorkloadShape } from './partition-shapes.js';

/** Attribute names read for each topology level: standard names first, then these local names of the device's own driver domain. */
export const TOPOLOGY_ATTRIBUTES = {
  pcieRoot: { standard: ['resource.kubernetes.io/pcieRoot'], local: [] as string[] },
  numa: { standard: ['resource.kubernetes.io/numaNode'], local: ['numaNode', 'numa'] },
} as const;

/** Pair penalties: different PCIe roots under one NUMA node, and across NUMA nodes. */
export const PAIR_PENALTY = { pcieRoot: 20, numa: 30 } as const;

/** The topology levels, in the order the objective sums them. */
export const LEVELS = ['pcieRoot', 'numa'] as const;
type Level = (typeof LEVELS)[number];

/** A topology attribute as a set of strings (a list attribute gives several). */
function values(value: AttributeValue | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const v = value as Record<string, unknown>;
  for (const k of ['int', 'string', 'bool', 'version']) if (k in v) return [String(v[k])];
  for (const k of ['ints', 'strings', 'bools', 'versions']) if (k in v) return (v[k] as unknown[]).map(String);
  return undefined;
}

function topologyValue(device: Device, driver: string, level: Level): string[] | undefined {
  const names = TOPOLOGY_ATTRIBUTES[level];
  for (const key of names.standard) {
    const found = values(device.attributes[key]);
    if (found !== undefined && found.length > 0) return found;
  }
  // A driver's own attribute, bare or qualified with the driver's name (never another domain's).
  for (const local of names.local) {
    for (const key of [local, `${driver}/${local}`]) {
      const found = values(device.attributes[key]);
      if (found !== undefined && found.length > 0) return found;
    }
  }
  return undefined;
}

/**
 * What the objective reads of a node's devices, whatever is allocated: each candidate's parent,
 * topology values, share and PCIe-root / NUMA domains, and the parents' counters (FGD). It names
 * pools by their position among the node's pools and devices by their place in first-fit order, so
 * one set-up serves every node whose pools offer the same devices in the same order (a node class:
 * the cluster handle builds one per class, on the class's first member).
 */
export class TopologySetup {
  /** Parent of each candidate (index into parents). */
  readonly parentOf: Int32Array;
  readonly parentCount: number;
  /** Domain of each parent at each level (-1: the parent publishes no such attribute). */
  readonly domainOf: Int32Array[];
  /** Parents per domain, per level. */
  readonly domainSize: Int32Array[];
  /** The parents' counters and the published partition shapes (FGD). */
  readonly layout: PartitionLayout;
  /** Per candidate: topology values per level (lists keep every value). */
  readonly topo: Array<Array<string[] | undefined>>;
  /** Per candidate: thousandths of its parent a pick takes; -1: depends on the request (shared devices). */
  readonly share: Int32Array;
  /** Parent of each counter-set group, `pool position:group root` (for devices of other claims outside the candidates). */
  readonly counterParent = new Map<string, number>();
  /** Per parent: 1 for a partitionable device (a counter-set group), 0 for a whole device. */
  readonly partitionable: Uint8Array;
  /** Counter-set groups per pool position. */
  readonly roots = new Map<number, Map<string, string>>();
  /** The candidates' and pools' counts when built (a set-up fits only models over pools like those it was built from). */
  readonly candidates: number;
  readonly pools: number;
  /** The symmetry classes' keys of the candidates (fields, and per set of attributes read). */
  readonly symmetry: SymmetryKeys;
  /** Workloads over the layout, per list of shapes given (the cluster handle gives one list per class). */
  private readonly tables = new Map<readonly WorkloadShape[], ShapeTable>();

  /**
   * `varies`: attributes (keys as published) whose values may differ between the nodes this set-up
   * serves (a class's identity attributes); symmetry keys of a call whose selectors read one are
   * made for that call alone.
   */
  constructor(model: AllocationModel, varies?: (key: string) => boolean) {
    const n = model.candidates.length;
    this.candidates = n;
    this.pools = model.pools.length;
    this.symmetry = { fieldKeys: deviceFieldKeys(model), byRead: new Map(), namesRead: new Map(), ...(varies !== undefined ? { varies } : {}) };
    this.parentOf = new Int32Array(n);
    this.share = new Int32Array(n);
    this.topo = model.candidates.map((c) => LEVELS.map((level) => topologyValue(c.device, c.driver, level)));
    // Parents: devices consuming counters of connected counter sets of one pool share a parent; any
    // other device is its own parent.
    let parents = 0;
    for (const c of model.candidates) {
      let roots: Map<string, string> | undefined;
      let parent: number;
      const firstUse = c.device.consumesCounters[0];
      if (firstUse !== undefined) {
        roots = this.roots.get(c.poolIndex);
        if (roots === undefined) {
          roots = counterSetRoots(c.pool);
          this.roots.set(c.poolIndex, roots);
        }
        const key = `${c.poolIndex}:${roots.get(firstUse.counterSet) ?? firstUse.counterSet}`;
        let found = this.counterParent.get(key);
        if (found === undefined) this.counterParent.set(key, (found = parents++));
        parent = found;
      } else parent = parents++;
      this.parentOf[c.index] = parent;
      this.share[c.index] = c.shared ? -1 : roots === undefined ? 1000 : partitionShare(c.pool, c.device, roots);
    }
    this.parentCount = parents;
    this.partitionable = new Uint8Array(parents);
    // Parents of counter-set groups are < parents.
    for (const p of this.counterParent.values()) this.partitionable[p] = 1;
    this.domainOf = LEVELS.map(() => new Int32Array(this.parentCount).fill(-1));
    this.domainSize = LEVELS.map(() => new Int32Array(0));
    LEVELS.forEach((_, l) => {
      const ids = new Map<string, number>();
      const sizes: number[] = [];
      // One array per level; candidate indexes < n, parents < parentCount, ids < sizes.length.
      const domainOf = this.domainOf[l]!;
      for (const c of model.candidates) {
        const parent = this.parentOf[c.index]!;
        if (domainOf[parent] !== -1) continue;
        const v = this.topo[c.index]![l];
        if (v === undefined) continue;
        // A list (NUMA nodes of one socket) belongs to the domain of its first value (topologyValue gives no empty list).
        const first = v[0]!;
        let id = ids.get(first);
        if (id === undefined) {
          id = ids.size;
          ids.set(first, id);
          sizes.push(0);
        }
        domainOf[parent] = id;
        sizes[id]!++;
      }
      this.domainSize[l] = Int32Array.from(sizes);
    });
    this.layout = new PartitionLayout(model, this.parentOf, this.parentCount);
  }

  /** Whether the set-up describes this model's devices (same counts of pools and candidates; the caller vouches for their content). */
  fits(model: AllocationModel): boolean {
    return this.candidates === model.candidates.length && this.pools === model.pools.length;
  }

  /** The workload `shapes` over the layout, looking LOOKAHEAD_STEPS claims ahead (the published shapes, FGD's next claim alone, when undefined), made once per list given (the last few lists). */
  shapeTable(shapes: readonly WorkloadShape[] | undefined): ShapeTable {
    if (shapes === undefined) return this.layout.published;
    let table = this.tables.get(shapes);
    if (table === undefined) {
      if (this.tables.size >= KEPT_TABLES) this.tables.delete(this.tables.keys().next().value as readonly WorkloadShape[]);
      this.tables.set(shapes, (table = new ShapeTable(this.layout, shapes, LOOKAHEAD_STEPS)));
    }
    return table;
  }
}

/** Most workloads a set-up keeps tables for. */
export const KEPT_TABLES = 8;
