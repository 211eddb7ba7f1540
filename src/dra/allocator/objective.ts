// The objective of the scored search, read from what drivers publish (docs/api/dra.md, "The scored
// objective", has the table per driver family): each candidate's parent (the physical device a
// partition is carved from: the counter sets it consumes), its PCIe root and NUMA node (the
// standard `resource.kubernetes.io/pcieRoot` and `numaNode` attributes, or a driver's own `numaNode`
// / `numa`), and the fragmentation an allocation leaves on partitioned parents (FGD for partitions,
// partition-fragmentation.ts). Lower is better, compared in order: earliest firstAvailable
// alternatives, topology (pairs of a claim's devices under different PCIe roots or NUMA nodes; two
// partitions of one parent are no pair, and a pair a driver publishes nothing about costs nothing),
// partitionable devices opened (a partition goes to a device already carved before it carves a
// whole one, as best fit packs bins), fragmentation, parents opened, free parents left in partly
// used PCIe-root and NUMA domains, share of parents consumed. All integers: same input, same cost.
import type { AllocationModel, RequestModel } from '../model/index.js';
import { FragmentationTracker, PLACEMENT_SCALE, type ShapeTable } from './partition-fragmentation.js';
import { nodeSupply, Pairing, type PairingSupply } from './partition-pairing.js';
import type { WorkloadShape } from './partition-shapes.js';
import { CounterSlots } from './search-state.js';
import { KEPT_TABLES, LEVELS, PAIR_PENALTY, TopologySetup } from './topology-setup.js';

/** The cost of an allocation, as allocateClaims reports it in scored mode (lower is better, in this order). */
export interface DraObjective {
  /** The alternative chosen for each firstAvailable request, in claim and request order (compared in that order). */
  alternatives: number[];
  /** Sum over the device pairs of each claim: 20 under different PCIe roots of one NUMA node, 30 across NUMA nodes (or roots with no NUMA published), 0 otherwise. */
  topology: number;
  /**
   * Partitionable devices (parents with counter sets, such as a DynamicMIG GPU) this allocation
   * starts using: a partition goes to such a device already in use before it carves a whole one
   * (best fit's rule for bins); a whole device without counters (a DGX GPU, a static MIG device)
   * counts under `parents` alone.
   */
  opened: number;
  /**
   * FGD: how much the weighted unusable free share of partitioned parents grows (with a workload
   * the caller gives: their expected stranded share, looking LOOKAHEAD_STEPS claims ahead), plus what
   * the picks hold beyond the smallest device each request could take (waste), scaled by
   * PLACEMENT_SCALE, plus placements lost per shape; may be negative. `fragmentationParts` splits it
   * into its units.
   */
  fragmentation: number;
  /** Parents (whole devices, or the physical device behind partitions) this allocation starts using. */
  parents: number;
  /** How many more free parents sit in partly used PCIe-root and NUMA domains than before (summed over both levels; may be negative). */
  domains: number;
  /** How much of their parents the picks take, in thousandths (a whole device 1000, an H100 1g MIG slice about 120). */
  consumption: number;
}

/**
 * What other claims hold on one node, as the objective reads it: the parents they use, what they
 * left of each counter, and each parent's fragmentation under a workload (per table, made on first
 * use). Made from a model's allocated state over a set-up; the cluster handle keeps one per node and
 * makes a new one when that node's allocated state changes, so the searches between two changes
 * read it once.
 */
export class AllocatedBase {
  /** Parents in use by other claims. */
  readonly usedBefore: Uint8Array;
  /** Per candidate, 1 where other claims hold it. */
  readonly held: Uint8Array;
  /** The symmetry classes of searches on this state, per static classes of a set-up (symmetryClasses' `byState`, filled by the searches). */
  readonly classes = new Map<Int32Array, { classOf: Int32Array; members: number[][] }>();
  private left?: Float64Array;
  private slots?: CounterSlots;
  private readonly fragments = new Map<ShapeTable, Float64Array>();
  private readonly supplies = new Map<ShapeTable, PairingSupply>();

  constructor(
    readonly setup: TopologySetup,
    private readonly model: AllocationModel,
  ) {
    if (!setup.fits(model)) throw new Error('AllocatedBase: the set-up was built for other devices');
    this.usedBefore = new Uint8Array(setup.parentCount);
    // setup.fits(model): candidate indexes and pool positions are the set-up's.
    this.held = new Uint8Array(model.candidates.length);
    for (const c of model.candidates) {
      if (!model.allocatedElsewhere(c.id)) continue;
      this.held[c.index] = 1;
      this.usedBefore[setup.parentOf[c.index]!] = 1;
    }
    // Counter sets consumed by devices of other claims that are not candidates here (other slices).
    for (const [poolIndex, roots] of setup.roots) {
      const pool = model.pools[poolIndex]!;
      for (const slices of [pool.deviceSlices, pool.otherSlices]) {
        for (const slice of slices) {
          for (const device of slice.devices) {
            const firstUse = device.consumesCounters[0];
            if (firstUse === undefined || !model.allocatedElsewhere(`${pool.driver}/${pool.name}/${device.name}`)) continue;
            const parent = setup.counterParent.get(`${poolIndex}:${roots.get(firstUse.counterSet) ?? firstUse.counterSet}`);
            if (parent !== undefined) this.usedBefore[parent] = 1;
          }
        }
      }
    }
  }

  /** What other claims left of each parent's counters (read from the model the base was made from, on first use: only a workload that weighs fragmentation reads it). */
  get baseLeft(): Float64Array {
    this.left ??= this.setup.layout.baseLeft(this.model);
    return this.left;
  }

  /** What the candidates draw on the counters (CounterSlots), read once on this state for models that list the same candidates (a new one otherwise). */
  counterSlots(model: AllocationModel): CounterSlots {
    if (this.slots === undefined || !this.slots.fits(model)) this.slots = new CounterSlots(model);
    return this.slots;
  }

  /** Each parent's fragmentation under `shapes` with what other claims left (ShapeTable.fragmentation). */
  fragmentation(shapes: ShapeTable): Float64Array {
    let now = this.fragments.get(shapes);
    if (now === undefined) {
      now = new Float64Array(this.setup.parentCount);
      for (let p = 0; p < now.length; p++) now[p] = shapes.fragmentation(p, this.baseLeft);
      if (this.fragments.size >= KEPT_TABLES) this.fragments.delete(this.fragments.keys().next().value as ShapeTable);
      this.fragments.set(shapes, now);
    }
    return now;
  }

  /** What the node offers pairing under `shapes`'s workload with what other claims hold (nodeSupply). */
  supply(shapes: ShapeTable): PairingSupply {
    let supply = this.supplies.get(shapes);
    if (supply === undefined) {
      supply = nodeSupply(shapes, this.baseLeft, this.held, this.setup.partitionable);
      if (this.supplies.size >= KEPT_TABLES) this.supplies.delete(this.supplies.keys().next().value as ShapeTable);
      this.supplies.set(shapes, supply);
    }
    return supply;
  }
}

/** Where every candidate sits and what other claims hold, for one search (over a TopologySetup and an AllocatedBase). */
export class CandidateTopology {
  readonly parentOf: Int32Array;
  readonly parentCount: number;
  readonly domainOf: Int32Array[];
  readonly domainSize: Int32Array[];
  /** Parents in use by other claims before this call. */
  readonly usedBefore: Uint8Array;
  /** The workload the fragmentation term weighs (the published partition shapes unless given). */
  readonly shapes: ShapeTable;
  /** Whether the fragmentation term can differ between allocations (the workload has a shape). */
  readonly partitioned: boolean;
  /** The pairing rule (with a workload the caller gives; partition-pairing.ts). */
  readonly pairing: Pairing | undefined;
  private readonly base: AllocatedBase;

  /** `supply`: what every node the caller may place on offers pairing, this one included (this node's own when not given). */
  constructor(
    private readonly model: AllocationModel,
    readonly setup: TopologySetup = new TopologySetup(model),
    shapes?: readonly WorkloadShape[],
    base: AllocatedBase = new AllocatedBase(setup, model),
    supply?: PairingSupply,
  ) {
    if (!setup.fits(model)) throw new Error('CandidateTopology: the setup was built for another node');
    if (base.setup !== setup) throw new Error('CandidateTopology: the allocated base was made over another set-up');
    this.parentOf = setup.parentOf;
    this.parentCount = setup.parentCount;
    this.domainOf = setup.domainOf;
    this.domainSize = setup.domainSize;
    this.usedBefore = base.usedBefore;
    this.shapes = setup.shapeTable(shapes);
    this.base = base;
    this.partitioned = this.shapes.weights.some((w) => w > 0);
    if (this.partitioned && this.shapes.lookahead > 0) {
      const own = base.supply(this.shapes);
      this.pairing = new Pairing(this.shapes, supply ?? own, own);
    }
  }

  /** What other claims left of each parent's counters. */
  get baseLeft(): Float64Array {
    return this.base.baseLeft;
  }

  /** What the model's candidates draw on the counters, kept on the allocated state (AllocatedBase.counterSlots). */
  get counterSlots(): CounterSlots {
    return this.base.counterSlots(this.model);
  }

  /** Per candidate, 1 where other claims hold it (AllocatedBase.held). */
  get held(): Uint8Array {
    return this.base.held;
  }

  /** The symmetry classes already made on this allocated state (AllocatedBase.classes). */
  get classesByState(): Map<Int32Array, { classOf: Int32Array; members: number[][] }> {
    return this.base.classes;
  }

  /** Each parent's fragmentation before the search (under `shapes`). */
  get baseFragmentation(): Float64Array {
    return this.base.fragmentation(this.shapes);
  }

  /**
   * What a pair of devices of one claim costs: 0 when they share a parent (partitions of one device
   * are no topology pair), a PCIe root, or when either publishes neither a root nor a NUMA node;
   * PAIR_PENALTY.pcieRoot under different roots of one NUMA node; PAIR_PENALTY.numa otherwise.
   */
  pairPenalty(i: number, j: number): number {
    if (i === j || this.parentOf[i] === this.parentOf[j]) return 0;
    // i and j are candidate indexes (topo has one entry per candidate).
    const a = this.setup.topo[i]!;
    const b = this.setup.topo[j]!;
    const shares = (l: number): boolean | undefined => {
      const al = a[l];
      const bl = b[l];
      if (al === undefined || bl === undefined) return undefined;
      // A device publishes one value per level, a few with list attributes: a scan beats building a set.
      return bl.some((v) => al.includes(v));
    };
    const root = shares(0);
    const numa = shares(1);
    if (root === true) return 0;
    if (root === undefined && numa === undefined) return 0;
    if (numa === true) return PAIR_PENALTY.pcieRoot;
    if (numa === undefined && root === false) return PAIR_PENALTY.numa;
    return numa === false ? PAIR_PENALTY.numa : 0;
  }

  /**
   * What a pick of `index` for `request` holds beyond the request's need, in the fragmentation
   * term's units (thousandths of a parent × the workload's thousandths × PLACEMENT_SCALE): the
   * pick's share of its parent less the smallest share among the followed devices the request
   * could take on this node (looking ahead, the share is the device's worth, as the look-ahead
   * counts it: PartitionLayout.worth). A claim for ≥ 20Gi that takes a whole 7g.80gb where a 1g.20gb would do
   * strands the difference for every shape, as a fragment does. 0 for devices the partition
   * layout does not follow (shares of multi-allocatable devices).
   */
  wasteOf(request: RequestModel, index: number): number {
    const layout = this.setup.layout;
    // index and c.index are candidate indexes (share and worth have one entry per candidate).
    const held = (i: number): number => (this.shapes.lookahead > 0 ? Math.round(layout.worth[i]!) : this.setup.share[i]!);
    const share = held(index);
    if (this.setup.share[index]! < 0 || !layout.partition(index)) return 0;
    let need = this.need.get(request);
    if (need === undefined) {
      need = share;
      for (const c of this.model.candidates) {
        if (this.setup.share[c.index]! < 0 || !layout.partition(c.index)) continue;
        const s = held(c.index);
        if (s >= need) continue;
        let ok: boolean;
        try {
          ok = this.model.selectable(request, c.index);
        } catch {
          ok = false;
        }
        if (ok) need = s;
      }
      this.need.set(request, need);
    }
    return share > need ? (share - need) * 1000 * PLACEMENT_SCALE : 0;
  }

  /** Per request: the smallest share of a followed device it could take (wasteOf's need). */
  private readonly need = new Map<RequestModel, number>();

  /** Thousandths of its parent a pick of `index` for `request` takes. */
  shareOf(request: RequestModel, index: number): number {
    // index is a candidate index.
    const s = this.setup.share[index]!;
    if (s >= 0) return s;
    // A share of a multi-allocatable device: the largest fraction of a capacity it requests.
    const c = this.model.candidates[index]!;
    let most = 0;
    for (const [name, cap] of Object.entries(c.device.capacity)) {
      const asked = request.body.capacity?.requests[name];
      const amount = asked === undefined ? (cap.requestPolicy?.default ?? cap.value) : asked;
      most = Math.max(most, thousandths(amount.nanoValue(), cap.value.nanoValue()));
    }
    return most;
  }
}

function thousandths(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 1000;
  const t = (part * 1000n + whole - 1n) / whole;
  return Number(t < 0n ? 0n : t > 1000n ? 1000n : t);
}

/**
 * What a pick that closes a likelier partner's last placement on a carved parent adds to `opened`
 * (Pairing.closes): more than carving a fresh parent (1), so the fresh parent wins.
 */
export const CLOSE_COST = 2;

/** -1, 0, 1: lexicographic comparison of two objectives. */
export function compareObjective(a: DraObjective, b: DraObjective): number {
  const n = Math.max(a.alternatives.length, b.alternatives.length);
  for (let i = 0; i < n; i++) {
    const d = (a.alternatives[i] ?? 0) - (b.alternatives[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return (
    Math.sign(a.topology - b.topology) ||
    Math.sign(a.opened - b.opened) ||
    Math.sign(a.fragmentation - b.fragmentation) ||
    Math.sign(a.parents - b.parents) ||
    Math.sign(a.domains - b.domains) ||
    Math.sign(a.consumption - b.consumption)
  );
}

/** The cost of the picks of one search, kept up to date pick by pick (push/pop in stack order). */
export class ObjectiveTracker {
  topology = 0;
  opened = 0;
  parents = 0;
  consumption = 0;
  domains = 0;
  private readonly picks: number[][];
  private readonly parentPicks: Int32Array;
  private readonly domainUsed: Int32Array[];
  private readonly history: Array<{ claim: number; topology: number; share: number; waste: number }> = [];
  /** What the picks hold beyond their requests' needs (CandidateTopology.wasteOf), summed. */
  private waste = 0;
  /** Undefined where the workload has no shape: every parent's fragmentation is 0 then, whatever is picked. */
  private readonly fragments: FragmentationTracker | undefined;
  private readonly partitioned: boolean;

  constructor(
    readonly placement: CandidateTopology,
    claims: number,
  ) {
    this.picks = Array.from({ length: claims }, () => []);
    this.parentPicks = new Int32Array(placement.parentCount);
    this.domainUsed = placement.domainSize.map((s) => new Int32Array(s.length));
    for (let p = 0; p < placement.parentCount; p++) if (placement.usedBefore[p] === 1) this.markUsed(p, 1);
    // Measured from what other claims left: comparable between nodes.
    this.domains = 0;
    this.partitioned = placement.partitioned;
    this.fragments = this.partitioned ? new FragmentationTracker(placement.shapes, placement.baseLeft, placement.baseFragmentation, placement.pairing) : undefined;
  }

  get fragmentation(): number {
    return (this.fragments?.delta ?? 0) + this.waste;
  }

  private markUsed(parent: number, delta: number): void {
    const p = this.placement;
    // One array per level; parent < parentCount; a domain d ≥ 0 indexes its level's sizes and uses.
    for (let l = 0; l < LEVELS.length; l++) {
      const d = p.domainOf[l]![parent]!;
      if (d < 0) continue;
      const used = this.domainUsed[l]!;
      const size = p.domainSize[l]![d]!;
      const before = fragOf(used[d]!, size);
      used[d]! += delta;
      this.domains += fragOf(used[d]!, size) - before;
    }
  }

  /** Adds a pick of `index` for `request` (of claim `claim`). */
  push(claim: number, request: RequestModel, index: number): void {
    const p = this.placement;
    // claim < claims (picks has one list per claim), index a candidate index, parent < parentCount.
    const picks = this.picks[claim]!;
    let topology = 0;
    for (const other of picks) topology += p.pairPenalty(other, index);
    const share = p.shareOf(request, index);
    picks.push(index);
    this.topology += topology;
    this.consumption += share;
    const parent = p.parentOf[index]!;
    if (this.parentPicks[parent]!++ === 0 && p.usedBefore[parent] === 0) {
      this.parents++;
      this.opened += p.setup.partitionable[parent]!;
      this.markUsed(parent, 1);
    }
    if (this.fragments !== undefined) {
      const closed = this.fragments.closed;
      this.fragments.push(index);
      this.opened += CLOSE_COST * (this.fragments.closed - closed);
    }
    const waste = this.partitioned ? p.wasteOf(request, index) : 0;
    this.waste += waste;
    this.history.push({ claim, topology, share, waste });
  }

  /** Undoes the last push. */
  pop(): void {
    const p = this.placement;
    const last = this.history.pop() as { claim: number; topology: number; share: number; waste: number };
    const index = this.picks[last.claim]!.pop() as number;
    if (this.fragments !== undefined) {
      const closed = this.fragments.closed;
      this.fragments.pop(index);
      this.opened -= CLOSE_COST * (closed - this.fragments.closed);
    }
    this.waste -= last.waste;
    this.topology -= last.topology;
    this.consumption -= last.share;
    const parent = p.parentOf[index]!;
    if (--this.parentPicks[parent]! === 0 && p.usedBefore[parent] === 0) {
      this.parents--;
      this.opened -= p.setup.partitionable[parent]!;
      this.markUsed(parent, -1);
    }
  }

  /**
   * What picking `index` for `request` next would add, in the objective's order, for ordering
   * candidates: topology, partitionable devices opened, fragmentation, then parents opened and
   * share together (parents × 2²⁰ + share: a share is at most 1000).
   */
  preview(claim: number, request: RequestModel, index: number): [number, number, number, number] {
    const p = this.placement;
    let topology = 0;
    // As in push: claim, index and parent are in range.
    for (const other of this.picks[claim]!) topology += p.pairPenalty(other, index);
    const parent = p.parentOf[index]!;
    const opens = this.parentPicks[parent] === 0 && p.usedBefore[parent] === 0 ? 1 : 0;
    const fragmentation = this.fragments !== undefined ? this.fragments.preview(index) + p.wasteOf(request, index) : 0;
    const closes = this.fragments !== undefined ? CLOSE_COST * this.fragments.previewCloses(index) : 0;
    return [topology, opens * p.setup.partitionable[parent]! + closes, fragmentation, opens * 2 ** 20 + p.shareOf(request, index)];
  }

  /** The objective of the current picks with the given alternatives. */
  snapshot(alternatives: number[]): DraObjective {
    return {
      alternatives: [...alternatives],
      topology: this.topology,
      opened: this.opened,
      fragmentation: this.fragmentation,
      parents: this.parents,
      domains: this.domains,
      consumption: this.consumption,
    };
  }

  /**
   * Whether no completion of the current picks can beat
   * `best`: the alternatives decided so far (`decided` of them) are later than best's, or equal
   * best's with best choosing the first alternative everywhere after them; or topology (which only
   * grows) is already above best's, or, at equal topology, the partitionable devices opened (which
   * only grow too). Where no parent is partitioned the fragmentation term is 0 for every
   * allocation, and parents (which only grow) bound the rest.
   */
  cannotBeat(best: DraObjective, alternatives: readonly number[], decided: number): boolean {
    // i < decided ≤ alternatives.length ≤ best.alternatives.length (best is a complete allocation).
    for (let i = 0; i < decided; i++) {
      const d = alternatives[i]! - best.alternatives[i]!;
      if (d !== 0) return d > 0;
    }
    for (let i = decided; i < best.alternatives.length; i++) if (best.alternatives[i] !== 0) return false;
    if (this.topology !== best.topology) return this.topology > best.topology;
    if (this.opened !== best.opened) return this.opened > best.opened;
    if (this.partitioned) return false;
    if (this.parents !== best.parents) return this.parents > best.parents;
    return false;
  }
}

/** Free parents of a domain that is partly used (a domain all free or all used is not fragmented). */
function fragOf(used: number, size: number): number {
  return used > 0 && used < size ? size - used : 0;
}

/**
 * The objective of a complete allocation given as picks (any order) and the alternatives chosen for
 * the firstAvailable requests: what the scored search minimizes, for comparing allocations found
 * elsewhere (tests compare the search's choice with every allocation brute force finds; explain
 * shows first-fit's allocation by it).
 */
export function evaluateObjective(
  model: AllocationModel,
  picks: ReadonlyArray<{ request: RequestModel; index: number }>,
  alternatives: readonly number[],
  placement = new CandidateTopology(model),
): DraObjective {
  const tracker = new ObjectiveTracker(placement, model.claims.length);
  for (const p of picks) tracker.push(p.request.claimIndex, p.request, p.index);
  return tracker.snapshot([...alternatives]);
}
