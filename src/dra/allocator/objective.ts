// The objective of the scored search: where each candidate sits (its parent — the physical device a
// partition is carved from — and its NVLink, PCIe-root and NUMA domains, read from standard and
// driver attributes), and an incremental tracker of the cost of the picks so far. Lower is better,
// compared in order: earliest firstAvailable alternatives, topology (device pairs of a claim scored
// as the engine's topology scores GPU links), parents opened, share of parents consumed, and
// fragmentation (free parents left in partly used domains). All integers: same input, same cost.
import { linkScore, type Link, type PcieLevel } from '../../hardware/topology.js';
import type { AllocationModel, Pool, RequestModel } from '../model/index.js';
import type { AttributeValue, Device } from '../objects/index.js';

/** The cost of an allocation, as allocateClaims reports it in scored mode (lower is better, in this order). */
export interface DraObjective {
  /** The alternative chosen for each firstAvailable request, in claim and request order (compared in that order). */
  alternatives: number[];
  /** Sum over the device pairs of each claim of (160 − the pair's link score): 0 when every pair shares a parent and an NVLink domain. */
  topology: number;
  /** Parents (whole devices, or the physical device behind partitions) this allocation starts using. */
  parents: number;
  /** How much of their parents the picks take, in thousandths (a whole device 1000, a 1/7 partition 143). */
  consumption: number;
  /** Free parents left in NVLink, PCIe-root and NUMA domains that are partly used (summed over the three levels). */
  fragmentation: number;
}

/** Attribute names read for each topology level: standard names first, then these local names in any domain. */
export const TOPOLOGY_ATTRIBUTES = {
  nvlink: { standard: [] as string[], local: ['nvlinkDomain', 'nvlinkClique', 'cliqueID'] },
  pcieRoot: { standard: ['resource.kubernetes.io/pcieRoot'], local: ['pcieRoot'] },
  numa: { standard: ['resource.kubernetes.io/numaNode'], local: ['numaNode', 'numa'] },
} as const;

/** Link score of a pair in one parent and one NVLink domain: the best a pair can score here. */
export const BEST_PAIR_SCORE = linkScore({ pcie: 'INTERNAL', nvlink: 1 });

const LEVELS = ['nvlink', 'pcieRoot', 'numa'] as const;
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
  const keys = Object.keys(device.attributes).sort();
  for (const local of names.local) {
    for (const key of keys) {
      const slash = key.lastIndexOf('/');
      const domain = slash < 0 ? driver : key.slice(0, slash);
      if (key.slice(slash + 1) !== local || domain === 'resource.kubernetes.io') continue;
      const found = values(device.attributes[key]);
      if (found !== undefined && found.length > 0) return found;
    }
  }
  return undefined;
}

/** Where every candidate sits in the topology (parents, domains per level), computed once per model. */
export class CandidateTopology {
  /** Parent of each candidate (index into parents). */
  readonly parentOf: Int32Array;
  /** Parents in use by other claims before this call. */
  readonly usedBefore: Uint8Array;
  /** Domain of each parent at each level (-1: the parent publishes no such attribute). */
  readonly domainOf: Int32Array[];
  /** Parents per domain, per level. */
  readonly domainSize: Int32Array[];
  readonly parentCount: number;
  /** The smallest share any pick can take (0 when a multi-allocatable device is among the candidates). */
  readonly minShare: number;
  /** A lower bound of any pair's penalty: BEST_PAIR_SCORE minus the best PCIe and NVLink parts any pair could have. */
  readonly minPairPenalty: number;
  /** Per candidate: topology values per level (lists keep every value). */
  private readonly topo: Array<Array<string[] | undefined>>;
  /** Per candidate: thousandths of its parent a pick takes; -1: depends on the request (shared devices). */
  private readonly share: Int32Array;

  constructor(private readonly model: AllocationModel) {
    const n = model.candidates.length;
    this.parentOf = new Int32Array(n);
    this.share = new Int32Array(n);
    this.topo = model.candidates.map((c) => LEVELS.map((level) => topologyValue(c.device, c.driver, level)));
    // Parents: devices consuming counters of connected counter sets of one pool share a parent; any
    // other device is its own parent.
    const parentKey = new Map<string, number>();
    const usedBefore: number[] = [];
    const groups = new Map<Pool, Map<string, string>>();
    for (const c of model.candidates) {
      let key = `device:${c.id}`;
      if (c.device.consumesCounters.length > 0) {
        let roots = groups.get(c.pool);
        if (roots === undefined) {
          roots = counterSetRoots(c.pool);
          groups.set(c.pool, roots);
        }
        key = `counters:${c.pool.id}:${roots.get(c.device.consumesCounters[0].counterSet) ?? c.device.consumesCounters[0].counterSet}`;
      }
      let parent = parentKey.get(key);
      if (parent === undefined) {
        parent = parentKey.size;
        parentKey.set(key, parent);
        usedBefore.push(0);
      }
      this.parentOf[c.index] = parent;
      this.share[c.index] = c.shared ? -1 : counterShare(c.pool, c.device);
    }
    this.parentCount = parentKey.size;
    let minShare = 1000;
    for (const c of model.candidates) minShare = Math.min(minShare, this.share[c.index] < 0 ? 0 : this.share[c.index]);
    this.minShare = minShare;
    this.minPairPenalty = this.pairPenaltyBound();
    this.usedBefore = Uint8Array.from(usedBefore);
    for (const c of model.candidates) if (model.allocatedElsewhere(c.id)) this.usedBefore[this.parentOf[c.index]] = 1;
    // Counter sets consumed by devices of other claims that are not candidates here (other slices).
    for (const [pool, roots] of groups) {
      for (const slices of [pool.deviceSlices, pool.otherSlices]) {
        for (const slice of slices) {
          for (const device of slice.devices) {
            if (device.consumesCounters.length === 0 || !model.allocatedElsewhere(`${pool.driver}/${pool.name}/${device.name}`)) continue;
            const parent = parentKey.get(`counters:${pool.id}:${roots.get(device.consumesCounters[0].counterSet) ?? device.consumesCounters[0].counterSet}`);
            if (parent !== undefined) this.usedBefore[parent] = 1;
          }
        }
      }
    }
    this.domainOf = LEVELS.map(() => new Int32Array(this.parentCount).fill(-1));
    this.domainSize = LEVELS.map(() => new Int32Array(0));
    LEVELS.forEach((_, l) => {
      const ids = new Map<string, number>();
      const sizes: number[] = [];
      for (const c of model.candidates) {
        const parent = this.parentOf[c.index];
        if (this.domainOf[l][parent] !== -1) continue;
        const v = this.topo[c.index][l];
        if (v === undefined) continue;
        // A list (NUMA nodes of one socket) belongs to the domain of its first value.
        let id = ids.get(v[0]);
        if (id === undefined) {
          id = ids.size;
          ids.set(v[0], id);
          sizes.push(0);
        }
        this.domainOf[l][parent] = id;
        sizes[id]++;
      }
      this.domainSize[l] = Int32Array.from(sizes);
    });
  }

  /** BEST_PAIR_SCORE minus the best PCIe level and NVLink any two candidates share (each found on its own). */
  private pairPenaltyBound(): number {
    const n = this.model.candidates.length;
    if (n < 2) return 0;
    const shared = (l: number): boolean => {
      const seen = new Set<string>();
      for (const t of this.topo) {
        const v = t[l];
        if (v === undefined) continue;
        for (const x of new Set(v)) {
          if (seen.has(x)) return true;
          seen.add(x);
        }
      }
      return false;
    };
    const parentSeen = new Set<number>();
    let sameParent = false;
    for (const c of this.model.candidates) {
      if (c.device.consumesCounters.length === 0) continue;
      if (parentSeen.has(this.parentOf[c.index])) sameParent = true;
      parentSeen.add(this.parentOf[c.index]);
    }
    // A multi-allocatable device may be picked twice in one claim: a pair with itself.
    if (sameParent || this.model.candidates.some((c) => c.shared)) return 0;
    const known = (l: number): boolean => this.topo.filter((t) => t[l] !== undefined).length >= 2;
    const pcie: PcieLevel | undefined = shared(1) ? 'PXB' : shared(2) ? 'NODE' : known(1) || known(2) ? 'SYS' : undefined;
    return BEST_PAIR_SCORE - linkScore({ pcie, nvlink: shared(0) ? 1 : 0 });
  }

  /** The link two candidates have, as the engine's topology describes a GPU pair. */
  link(i: number, j: number): Link {
    const a = this.topo[i];
    const b = this.topo[j];
    const link: Link = { a: i, b: j };
    const shares = (l: number): boolean | undefined => {
      if (a[l] === undefined || b[l] === undefined) return undefined;
      const set = new Set(a[l]);
      return (b[l] as string[]).some((v) => set.has(v));
    };
    const consumesCounters = this.model.candidates[i].device.consumesCounters.length > 0;
    let pcie: PcieLevel | undefined;
    if (i === j || (consumesCounters && this.parentOf[i] === this.parentOf[j])) pcie = 'INTERNAL';
    else if (shares(1) === true) pcie = 'PXB';
    else if (shares(2) === true) pcie = 'NODE';
    else if (shares(1) === false || shares(2) === false) pcie = 'SYS';
    if (pcie !== undefined) link.pcie = pcie;
    if (shares(0) === true || pcie === 'INTERNAL') link.nvlink = 1;
    return link;
  }

  /** What a pair of devices of one claim costs: BEST_PAIR_SCORE minus its link score. */
  pairPenalty(i: number, j: number): number {
    return BEST_PAIR_SCORE - linkScore(this.link(i, j));
  }

  /** Thousandths of its parent a pick of `index` for `request` takes. */
  shareOf(request: RequestModel, index: number): number {
    const s = this.share[index];
    if (s >= 0) return s;
    // A share of a multi-allocatable device: the largest fraction of a capacity it requests.
    const c = this.model.candidates[index];
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

/** The largest fraction of a pool counter the device consumes, in thousandths (1000 for a plain device). */
function counterShare(pool: Pool, device: Device): number {
  if (device.consumesCounters.length === 0) return 1000;
  let most = 0;
  for (const use of device.consumesCounters) {
    const set = pool.counterSets.get(use.counterSet);
    for (const [name, q] of Object.entries(use.counters)) {
      const total = set?.counters[name];
      if (total !== undefined) most = Math.max(most, thousandths(q.nanoValue(), total.nanoValue()));
    }
  }
  return most;
}

/** Counter sets of a pool joined when some device consumes from both: set name → its group's first name. */
function counterSetRoots(pool: Pool): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as string;
    return r;
  };
  for (const name of [...pool.counterSets.keys()].sort()) parent.set(name, name);
  for (const slices of [pool.deviceSlices, pool.otherSlices]) {
    for (const slice of slices) {
      for (const device of slice.devices) {
        const names = device.consumesCounters.map((u) => u.counterSet).filter((s) => parent.has(s));
        for (let k = 1; k < names.length; k++) {
          const a = find(names[0]);
          const b = find(names[k]);
          if (a !== b) parent.set(a < b ? b : a, a < b ? a : b);
        }
      }
    }
  }
  const roots = new Map<string, string>();
  for (const name of parent.keys()) roots.set(name, find(name));
  return roots;
}

/** -1, 0, 1: lexicographic comparison of two objectives. */
export function compareObjective(a: DraObjective, b: DraObjective): number {
  const n = Math.max(a.alternatives.length, b.alternatives.length);
  for (let i = 0; i < n; i++) {
    const d = (a.alternatives[i] ?? 0) - (b.alternatives[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return Math.sign(a.topology - b.topology) || Math.sign(a.parents - b.parents) || Math.sign(a.consumption - b.consumption) || Math.sign(a.fragmentation - b.fragmentation);
}

/** The cost of the picks of one search, kept up to date pick by pick (push/pop in stack order). */
export class ObjectiveTracker {
  topology = 0;
  parents = 0;
  consumption = 0;
  fragmentation = 0;
  private readonly picks: number[][];
  private readonly parentPicks: Int32Array;
  private readonly domainUsed: Int32Array[];
  private readonly history: Array<{ claim: number; topology: number; share: number }> = [];

  constructor(
    readonly placement: CandidateTopology,
    claims: number,
  ) {
    this.picks = Array.from({ length: claims }, () => []);
    this.parentPicks = new Int32Array(placement.parentCount);
    this.domainUsed = placement.domainSize.map((s) => new Int32Array(s.length));
    for (let p = 0; p < placement.parentCount; p++) if (placement.usedBefore[p] === 1) this.markUsed(p, 1);
    this.fragmentation = this.computeFragmentation();
  }

  private markUsed(parent: number, delta: number): void {
    const p = this.placement;
    for (let l = 0; l < LEVELS.length; l++) {
      const d = p.domainOf[l][parent];
      if (d < 0) continue;
      const before = fragOf(this.domainUsed[l][d], p.domainSize[l][d]);
      this.domainUsed[l][d] += delta;
      this.fragmentation += fragOf(this.domainUsed[l][d], p.domainSize[l][d]) - before;
    }
  }

  private computeFragmentation(): number {
    let f = 0;
    this.placement.domainSize.forEach((sizes, l) => sizes.forEach((size, d) => (f += fragOf(this.domainUsed[l][d], size))));
    return f;
  }

  /** Adds a pick of `index` for `request` (of claim `claim`). */
  push(claim: number, request: RequestModel, index: number): void {
    const p = this.placement;
    let topology = 0;
    for (const other of this.picks[claim]) topology += p.pairPenalty(other, index);
    const share = p.shareOf(request, index);
    this.picks[claim].push(index);
    this.topology += topology;
    this.consumption += share;
    const parent = p.parentOf[index];
    if (this.parentPicks[parent]++ === 0 && p.usedBefore[parent] === 0) {
      this.parents++;
      this.markUsed(parent, 1);
    }
    this.history.push({ claim, topology, share });
  }

  /** Undoes the last push. */
  pop(): void {
    const p = this.placement;
    const last = this.history.pop() as { claim: number; topology: number; share: number };
    const index = this.picks[last.claim].pop() as number;
    this.topology -= last.topology;
    this.consumption -= last.share;
    const parent = p.parentOf[index];
    if (--this.parentPicks[parent] === 0 && p.usedBefore[parent] === 0) {
      this.parents--;
      this.markUsed(parent, -1);
    }
  }

  /** What picking `index` for `request` next would add to the monotone terms (for ordering candidates). */
  preview(claim: number, request: RequestModel, index: number): [number, number, number] {
    const p = this.placement;
    let topology = 0;
    for (const other of this.picks[claim]) topology += p.pairPenalty(other, index);
    const parent = p.parentOf[index];
    const opens = this.parentPicks[parent] === 0 && p.usedBefore[parent] === 0 ? 1 : 0;
    return [topology, opens, p.shareOf(request, index)];
  }

  /** The objective of the current picks with the given alternatives. */
  snapshot(alternatives: number[]): DraObjective {
    return { alternatives: [...alternatives], topology: this.topology, parents: this.parents, consumption: this.consumption, fragmentation: this.fragmentation };
  }

  /**
   * Whether no completion of the current picks, with `remaining` devices still to pick, can beat
   * `best`: the alternatives decided so far (`decided` of them) are later than best's, or equal
   * best's with best choosing the first alternative everywhere after them, and a lower bound of the
   * rest — topology, parents and consumption only grow, each pair still to form costs at least the
   * smallest pair penalty (`inClaim` more devices of the current claim, `laterPairs` pairs within
   * later claims), each remaining pick takes at least the smallest share, fragmentation is at least
   * 0 — is not below best's objective.
   */
  cannotBeat(best: DraObjective, alternatives: readonly number[], decided: number, remaining: number, claim: number, inClaim: number, laterPairs: number): boolean {
    for (let i = 0; i < decided; i++) {
      const d = alternatives[i] - best.alternatives[i];
      if (d !== 0) return d > 0;
    }
    for (let i = decided; i < best.alternatives.length; i++) if (best.alternatives[i] !== 0) return false;
    // Pairs still to form: the claim's next `inClaim` devices with its picks and each other, and later claims' own pairs.
    const m = this.picks[claim].length;
    const topology = this.topology + this.placement.minPairPenalty * (inClaim * m + (inClaim * (inClaim - 1)) / 2 + laterPairs);
    if (topology !== best.topology) return topology > best.topology;
    if (this.parents !== best.parents) return this.parents > best.parents;
    const consumption = this.consumption + remaining * this.placement.minShare;
    if (consumption !== best.consumption) return consumption > best.consumption;
    return best.fragmentation === 0;
  }
}

/** Free parents of a domain that is partly used (a domain all free or all used is not fragmented). */
function fragOf(used: number, size: number): number {
  return used > 0 && used < size ? size - used : 0;
}

/**
 * The objective of a complete allocation given as picks (any order) and the alternatives chosen for
 * the firstAvailable requests: what the scored search minimizes, for comparing allocations found
 * elsewhere (tests compare the search's choice with every allocation brute force finds).
 */
export function evaluateObjective(model: AllocationModel, picks: ReadonlyArray<{ request: RequestModel; index: number }>, alternatives: readonly number[]): DraObjective {
  const tracker = new ObjectiveTracker(new CandidateTopology(model), model.claims.length);
  for (const p of picks) tracker.push(p.request.claimIndex, p.request, p.index);
  return tracker.snapshot([...alternatives]);
}
