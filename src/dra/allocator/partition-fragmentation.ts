// FGD for partitions, looking ahead: the fragmentation an allocation leaves on each parent (a
// counter set, or a group of counter sets some device consumes from together). FGD (Weng et al.,
// USENIX ATC'23) counts a fractional GPU's free share as fragment for each claim shape of the
// workload that no longer fits it, weighted by the shape's share of the workload: the expected
// fragment for the next claim. For a workload the caller gives (how often each claim comes), the
// next LOOKAHEAD_STEPS claims are drawn from it and the parent takes each one it can where that is
// worth most: the free worth they are not expected to take is its fragmentation (its expected
// stranded share; ShapeTable.expectedTake, exact and memoized per state). A claim is worth what it
// takes of its parent's compute where the driver publishes that (NVIDIA's MIG profiles: compute
// slices over seven), else its share of the parent's counters (PartitionLayout.worth). Placement
// rules are what the counters encode (a MIG placement consumes its memory slices), so a 1g slice
// placed where it leaves a 4g placement free scores better than one that blocks it, and two 2g.20gb
// go side by side where that keeps a 3g.40gb placement. Amounts are compared as doubles (a score,
// not an admission check: the search state checks counters exactly); every score is an integer.
import type { AllocationModel } from '../model/index.js';
import { amount, counterSetRoots, publishedShapes, type WorkloadShape } from './partition-shapes.js';
import { readWorth } from './partition-worth.js';

/** Relative tolerance of counter comparisons. */
const EPSILON = 1e-9;

/** The parents' counters and the partitions on them: what a node publishes, read once per node. */
export class PartitionLayout {
  /** Per parent: where its counters start in the flat arrays (parentCount + 1 entries). */
  readonly counterStart: Int32Array;
  readonly total: Float64Array;
  /** Per candidate: where its uses start in `useIdx`/`useAmt` (candidates + 1 entries); none for whole or shared devices. */
  readonly useStart: Int32Array;
  readonly useIdx: Int32Array;
  readonly useAmt: Float64Array;
  /** Parents the layout follows: counter sets, and whole devices (one unit each); shares of multi-allocatable devices are not. */
  readonly partitioned: Uint8Array;
  /** Per whole device followed: its unit's slot (-1 otherwise). */
  private readonly unitOf: Int32Array;
  /**
   * Per candidate: what a claim holding it is worth, in thousandths of its parent (the share the
   * look-ahead counts as taken). An NVIDIA MIG device: its compute slices over the most any
   * device of its GPU publishes (a 1g.10gb of an H100 1000/7, a 3g.40gb 3000/7: what a GPU's
   * compute is split by); a whole device 1000; any other partition (a driver that publishes no
   * compute slices, or a device of such a parent without them, such as the whole GPU) its exact
   * share, the mean over its parent's counters with a positive total of the part it consumes.
   * 0 for devices the layout does not follow.
   */
  readonly worth: Float64Array;
  /** The default workload (every partition shape published, equally weighted). */
  readonly published: ShapeTable;
  /** Counter slot of `pool position \0 set \0 counter` (whole devices: `\0unit\0 candidate index`). */
  private readonly slot = new Map<string, number>();
  /** Positions (among the node's pools) of the pools whose counters the layout follows. */
  private readonly pools: number[];

  constructor(
    model: AllocationModel,
    readonly parentOf: Int32Array,
    readonly parentCount: number,
  ) {
    const n = model.candidates.length;
    // Indexes below are in range by construction: candidate indexes < n, parentOf[c] < parentCount,
    // pool positions from the model's candidates, slots and starts from the arrays built here.
    // Counter slots per parent: the counters of its counter-set group.
    const perParent: string[][] = Array.from({ length: parentCount }, () => []);
    const rootsOf = new Map<number, Map<string, string>>();
    const groupOfParent: Array<{ pool: number; group: string } | undefined> = new Array(parentCount);
    for (const c of model.candidates) {
      const firstUse = c.device.consumesCounters[0];
      if (firstUse === undefined || c.shared) continue;
      let roots = rootsOf.get(c.poolIndex);
      if (roots === undefined) rootsOf.set(c.poolIndex, (roots = counterSetRoots(c.pool)));
      const p = parentOf[c.index]!;
      if (groupOfParent[p] !== undefined) continue;
      const first = firstUse.counterSet;
      groupOfParent[p] = { pool: c.poolIndex, group: roots.get(first) ?? first };
    }
    this.pools = [...rootsOf.keys()];
    this.partitioned = new Uint8Array(parentCount);
    // A whole device is a parent of one unit: free or not (FGD counts a free device a shape cannot use as a fragment for it).
    const wholeOf: Array<number | undefined> = new Array(parentCount);
    for (const c of model.candidates) if (c.device.consumesCounters.length === 0 && !c.shared) wholeOf[parentOf[c.index]!] = c.index;
    wholeOf.forEach((index, p) => {
      if (index === undefined) return;
      this.partitioned[p] = 1;
      perParent[p]!.push(`\u0000unit\u0000${index}`);
    });
    groupOfParent.forEach((g, p) => {
      if (g === undefined) return;
      this.partitioned[p] = 1;
      const roots = rootsOf.get(g.pool) as Map<string, string>;
      for (const [setName, set] of model.pools[g.pool]!.counterSets) {
        if ((roots.get(setName) ?? setName) !== g.group) continue;
        for (const name of Object.keys(set.counters)) perParent[p]!.push(`${g.pool}\u0000${setName}\u0000${name}`);
      }
    });
    this.counterStart = new Int32Array(parentCount + 1);
    for (let p = 0; p < parentCount; p++) this.counterStart[p + 1] = this.counterStart[p]! + perParent[p]!.length;
    this.total = new Float64Array(this.counterStart[parentCount]!);
    perParent.forEach((names, p) => names.forEach((key, k) => this.slot.set(key, this.counterStart[p]! + k)));
    for (const pool of this.pools) {
      for (const [setName, set] of model.pools[pool]!.counterSets) {
        for (const [name, q] of Object.entries(set.counters)) {
          const at = this.slot.get(`${pool}\u0000${setName}\u0000${name}`);
          if (at !== undefined) this.total[at] = amount(q);
        }
      }
    }
    this.unitOf = new Int32Array(n).fill(-1);
    for (const c of model.candidates) {
      const at = wholeOf[parentOf[c.index]!] === c.index ? this.slot.get(`\u0000unit\u0000${c.index}`) : undefined;
      if (at === undefined) continue;
      this.total[at] = 1;
      this.unitOf[c.index] = at;
    }
    const idx: number[] = [];
    const amt: number[] = [];
    this.useStart = new Int32Array(n + 1);
    for (const c of model.candidates) {
      const unit = this.unitOf[c.index]!;
      if (unit >= 0) {
        idx.push(unit);
        amt.push(1);
      } else if (c.device.consumesCounters.length > 0 && !c.shared) {
        for (const use of c.device.consumesCounters) {
          for (const [name, q] of Object.entries(use.counters)) {
            const at = this.slot.get(`${c.poolIndex}\u0000${use.counterSet}\u0000${name}`);
            if (at === undefined) continue;
            idx.push(at);
            amt.push(amount(q));
          }
        }
      }
      this.useStart[c.index + 1] = idx.length;
    }
    this.useIdx = Int32Array.from(idx);
    this.useAmt = Float64Array.from(amt);
    this.worth = readWorth(model, this);
    this.published = new ShapeTable(this, publishedShapes(model));
  }

  /** Parent p's free share in thousandths, unrounded (freeShare before rounding). */
  exactFree(p: number, left: Float64Array): number {
    let sum = 0;
    let counters = 0;
    // p is a parent (counterStart has parents + 1 entries); k a counter slot of that parent.
    for (let k = this.counterStart[p]!; k < this.counterStart[p + 1]!; k++) {
      const t = this.total[k]!;
      if (t <= 0) continue;
      counters++;
      sum += Math.min(1, Math.max(0, left[k]! / t));
    }
    return counters === 0 ? 0 : (1000 * sum) / counters;
  }

  /** What other claims left of each counter (devices of the pool beyond the candidates included), on `model`'s node (whose pools are those the layout was read from, or a class member's). */
  baseLeft(model: AllocationModel): Float64Array {
    const left = Float64Array.from(this.total);
    // Candidate indexes, units and slots are the layout's own; `model` is the layout's node or a class member with the same pools.
    for (const c of model.candidates) {
      const unit = this.unitOf[c.index]!;
      if (unit >= 0 && model.allocatedElsewhere(c.id)) left[unit] = 0;
    }
    for (const poolIndex of this.pools) {
      const pool = model.pools[poolIndex]!;
      for (const slices of [pool.deviceSlices, pool.otherSlices]) {
        for (const slice of slices) {
          for (const device of slice.devices) {
            if (device.consumesCounters.length === 0 || !model.allocatedElsewhere(`${pool.driver}/${pool.name}/${device.name}`)) continue;
            for (const use of device.consumesCounters) {
              for (const [name, q] of Object.entries(use.counters)) {
                const at = this.slot.get(`${poolIndex}\u0000${use.counterSet}\u0000${name}`);
                if (at !== undefined) left[at]! -= amount(q);
              }
            }
          }
        }
      }
    }
    return left;
  }

  /** Whether the layout follows candidate `c` (a partition, a device on a counter set, or a whole device). */
  partition(c: number): boolean {
    // c is a candidate index (useStart has candidates + 1 entries); so in the methods below.
    return this.useStart[c + 1]! > this.useStart[c]!;
  }

  /** Whether candidate `c` is a partition drawing on counters (not a whole device the layout counts as one unit). */
  onCounters(c: number): boolean {
    // c is a candidate index (unitOf has one entry per candidate).
    return this.partition(c) && this.unitOf[c]! < 0;
  }

  /** Whether candidate `c`'s counters fit what `left` holds. */
  fits(c: number, left: Float64Array): boolean {
    // u within candidate c's uses; each use's slot is a counter slot of `left` and `total`.
    for (let u = this.useStart[c]!; u < this.useStart[c + 1]!; u++) {
      const at = this.useIdx[u]!;
      if (this.useAmt[u]! > left[at]! + EPSILON * Math.max(1, this.total[at]!)) return false;
    }
    return true;
  }

  /** Thousandths of parent p left: the mean over its counters with a positive total. */
  freeShare(p: number, left: Float64Array): number {
    return Math.round(this.exactFree(p, left));
  }
}

/** A workload over a layout: each shape's weight and its partitions per parent. */
export class ShapeTable {
  /** Per shape: weight in thousandths of the workload. */
  readonly weights: Int32Array;
  /** Σ weights (0: the workload has no shape, and the term is 0 for every allocation). */
  readonly weight: number;
  /** Per shape and parent: the candidates of the shape on the parent (flat: start[s * parents + p] …). */
  readonly start: Int32Array;
  readonly members: Int32Array;
  /**
   * Per shape: thousandths of a parent a claim of the shape takes on counters (Σ over its requests
   * of the count × the least worth of a partition on counters it matches; `all`: the worth of every
   * one), 0 where it takes none or the shape lists no requests (the published shapes).
   */
  readonly sizes: Float64Array;
  /** Per candidate: the weight of the most frequent shape it serves (0: none). */
  readonly served: Int32Array;
  /** Per parent: its kind (parents of one kind have the same counters and members, slot for slot). */
  readonly kindOf: Int32Array;
  readonly kinds: number;

  /**
   * `lookahead`: claims of the workload the term looks ahead (LOOKAHEAD_STEPS for a workload the
   * caller gives); 0 for FGD's own expectation over the next claim alone (the default workload, every
   * published shape equally: a list of what may come, not how often).
   */
  constructor(
    readonly layout: PartitionLayout,
    shapes: readonly WorkloadShape[],
    readonly lookahead = 0,
  ) {
    const parents = layout.parentCount;
    const sum = shapes.reduce((s, x) => s + Math.max(0, x.weight), 0);
    this.weights = Int32Array.from(shapes, (x) => (sum > 0 ? Math.round((1000 * Math.max(0, x.weight)) / sum) : 0));
    this.weight = this.weights.reduce((a, w) => a + w, 0);
    this.start = new Int32Array(shapes.length * parents + 1);
    const members: number[] = [];
    shapes.forEach((shape, s) => {
      const byParent: number[][] = Array.from({ length: parents }, () => []);
      // matches has one entry per candidate, and parentOf[i] < parents.
      for (let i = 0; i < shape.matches.length; i++) if (shape.matches[i] === 1 && layout.partition(i)) byParent[layout.parentOf[i]!]!.push(i);
      for (let p = 0; p < parents; p++) {
        members.push(...byParent[p]!);
        this.start[s * parents + p + 1] = members.length;
      }
    });
    this.members = Int32Array.from(members);
    this.served = new Int32Array(layout.parentOf.length);
    // s < shapes; m within start, members are candidate indexes.
    for (let s = 0; s < shapes.length; s++)
      for (let m = this.start[s * parents]!; m < this.start[(s + 1) * parents]!; m++) this.served[this.members[m]!] = Math.max(this.served[this.members[m]!]!, this.weights[s]!);
    this.sizes = Float64Array.from(shapes, (shape) => {
      let size = 0;
      for (const r of shape.requests ?? []) {
        let least = Number.POSITIVE_INFINITY;
        let every = 0;
        // matches has one entry per candidate.
        for (let i = 0; i < r.matches.length; i++) {
          if (r.matches[i] !== 1 || !layout.onCounters(i)) continue;
          least = Math.min(least, layout.worth[i]!);
          every += layout.worth[i]!;
        }
        if (Number.isFinite(least)) size += r.all ? every : r.count * least;
      }
      return size;
    });
    // Parents alike for this table share a kind: the same counters (totals, in slot order) and, per
    // shape, members worth the same and using them alike. Both memoized functions read a parent only through these, so
    // one kind's states are computed once for all its parents (the eight GPUs of a node).
    this.kindOf = new Int32Array(parents);
    const kinds = new Map<string, number>();
    for (let p = 0; p < parents; p++) {
      const from = layout.counterStart[p]!;
      const to = layout.counterStart[p + 1]!;
      let sig = `${layout.partitioned[p]}|${Array.from(layout.total.subarray(from, to)).join(',')}`;
      for (let s = 0; s < shapes.length; s++) {
        sig += '|';
        // m within shape s's members on p; each member's uses are slots of p's counters.
        for (let m = this.start[s * parents + p]!; m < this.start[s * parents + p + 1]!; m++) {
          const c = this.members[m]!;
          sig += `;${layout.worth[c]}=`;
          for (let u = layout.useStart[c]!; u < layout.useStart[c + 1]!; u++) sig += `${layout.useIdx[u]! - from}:${layout.useAmt[u]},`;
        }
      }
      let kind = kinds.get(sig);
      if (kind === undefined) kinds.set(sig, (kind = kinds.size));
      this.kindOf[p] = kind;
    }
    this.kinds = kinds.size;
    let widest = 0;
    // p < parents: counterStart has parents + 1 entries.
    for (let p = 0; p < parents; p++) widest = Math.max(widest, layout.counterStart[p + 1]! - layout.counterStart[p]!);
    this.keyBits = new Float64Array(1 + widest);
    this.keyUnits = new Uint16Array(this.keyBits.buffer);
  }

  /**
   * Memo of expectedTake and fragmentation (pure functions of the parent's kind and counters left):
   * keyed by stateKey, the exact bits of those counters → thousandths (expectedTake) or the term
   * (fragmentation). Bounded: cleared when it holds MAX_TAKEN values.
   */
  private readonly taken = new Map<string, number>();
  /** stateKey's scratch: a header and a parent's counters, read back as UTF-16 code units. */
  private readonly keyBits: Float64Array;
  private readonly keyUnits: Uint16Array;

  /**
   * The memo's key of parent p's counters in `left`, under `header` (expectedTake: steps × kinds
   * + p's kind; fragmentation: −1 − p's kind): the doubles' bits as a string, so two states share a key only
   * when every counter is the same double (formatting them as decimals cost more than the rest of
   * a look-up).
   */
  private stateKey(header: number, p: number, left: Float64Array): string {
    const layout = this.layout;
    const from = layout.counterStart[p]!;
    const to = layout.counterStart[p + 1]!;
    const bits = this.keyBits;
    bits[0] = header;
    // k is a counter slot of parent p; keyBits holds the largest parent's counters and the header.
    for (let k = from; k < to; k++) bits[1 + k - from] = left[k]!;
    return String.fromCharCode.apply(null, this.keyUnits.subarray(0, 4 * (1 + to - from)) as unknown as number[]);
  }

  /**
   * The look-ahead: how much of parent p (thousandths of it) the next `steps` claims drawn from the
   * workload are expected to take, when each draw is taken where the parent can hold it and that
   * is worth more than passing it on (to another parent), at the placement worth most: V₀ = 0,
   * Vₕ(left) = Σₛ wₛ · max(Vₕ₋₁(left), max over the shape's devices d on p that fit of
   * (worth of d + Vₕ₋₁(left − d))). A draw of a shape that has no device on p, or none that fits,
   * passes. Computed exactly (no sampling) and memoized per (steps, kind of parent, counters left): a MIG
   * GPU has a few hundred reachable states.
   */
  expectedTake(p: number, left: Float64Array, steps: number): number {
    if (steps === 0) return 0;
    const layout = this.layout;
    const key = this.stateKey(steps * this.kinds + this.kindOf[p]!, p, left);
    const known = this.taken.get(key);
    if (known !== undefined) return known;
    const pass = this.expectedTake(p, left, steps - 1);
    const parents = layout.parentCount;
    let sum = 0;
    let total = 0;
    // s < shapes, m within the shape's members on p, c a candidate with its uses (as in fragmentation).
    for (let s = 0; s < this.weights.length; s++) {
      const w = this.weights[s]!;
      total += w;
      if (w === 0) continue;
      let best = pass;
      for (let m = this.start[s * parents + p]!; m < this.start[s * parents + p + 1]!; m++) {
        const c = this.members[m]!;
        if (!layout.fits(c, left)) continue;
        for (let u = layout.useStart[c]!; u < layout.useStart[c + 1]!; u++) left[layout.useIdx[u]!]! -= layout.useAmt[u]!;
        const v = layout.worth[c]! + this.expectedTake(p, left, steps - 1);
        for (let u = layout.useStart[c]!; u < layout.useStart[c + 1]!; u++) left[layout.useIdx[u]!]! += layout.useAmt[u]!;
        if (v > best) best = v;
      }
      sum += w * best;
    }
    const value = total === 0 ? 0 : sum / total;
    this.remember(key, value);
    return value;
  }

  /**
   * What a pick of candidate c changes its parent's expected stranded share by besides the
   * look-ahead's expectation (fragmentation): its worth leaves the parent's free worth, −worth ×
   * 1000 (the workload's thousandths) × PLACEMENT_SCALE. 0 without a look-ahead (FGD's free share
   * is read from the counters) and for devices the layout does not follow.
   */
  held(c: number): number {
    if (this.lookahead === 0 || this.weight === 0) return 0;
    // c is a candidate index (worth has one entry per candidate).
    return -Math.round(1000 * this.layout.worth[c]!) * PLACEMENT_SCALE;
  }

  /** Whether a device of shape s worth more than `worth` fits on parent p with `left`. */
  fitsOn(s: number, p: number, left: Float64Array, worth: number): boolean {
    const parents = this.layout.parentCount;
    // m within shape s's members on p.
    for (let m = this.start[s * parents + p]!; m < this.start[s * parents + p + 1]!; m++) {
      const d = this.members[m]!;
      if (this.layout.worth[d]! > worth && this.layout.fits(d, left)) return true;
    }
    return false;
  }

  /** Whether nothing uses parent p's counters in `left` (a parent not yet carved). */
  untouched(p: number, left: Float64Array): boolean {
    const layout = this.layout;
    // k is a counter slot of parent p.
    for (let k = layout.counterStart[p]!; k < layout.counterStart[p + 1]!; k++) if (left[k]! < layout.total[k]! - EPSILON * Math.max(1, layout.total[k]!)) return false;
    return true;
  }

  private remember(key: string, value: number): void {
    if (this.taken.size >= MAX_TAKEN) this.taken.clear();
    this.taken.set(key, value);
  }

  /**
   * Parent p's fragmentation with `left`, scaled by PLACEMENT_SCALE, plus Σ over shapes of weight ×
   * placements they have lost (so that of two picks the measure scores alike, the one leaving more
   * placements open wins). The measure, in thousandths of the parent × the workload's thousandths:
   * with `lookahead` 0, FGD's — Σ over shapes that no longer fit (or have no device on the parent) of
   * weight × free share; otherwise the state's part of the expected stranded share (the free
   * worth the next `lookahead` claims of the workload are not expected to take): −expectedTake ×
   * 1000, the free worth's part being −worth per pick (held), counted by the tracker. Looking
   * ahead sees what one claim cannot: two 2g.20gb side by side keep a 3g.40gb placement where one
   * on each half does not.
   */
  fragmentation(p: number, left: Float64Array): number {
    const layout = this.layout;
    if (layout.partitioned[p] === 0 || this.weight === 0) return 0;
    const key = this.stateKey(-1 - this.kindOf[p]!, p, left);
    const known = this.taken.get(key);
    if (known !== undefined) return known;
    const frag = this.measure(p, left);
    this.remember(key, frag);
    return frag;
  }

  /** fragmentation, computed. */
  private measure(p: number, left: Float64Array): number {
    const layout = this.layout;
    const free = layout.freeShare(p, left);
    if (free === 0) return 0;
    let frag = this.lookahead > 0 ? Math.round(-1000 * this.expectedTake(p, left, this.lookahead)) * PLACEMENT_SCALE : 0;
    const parents = layout.parentCount;
    // s < shapes, p a parent: start has shapes × parents + 1 entries, and m runs within it.
    for (let s = 0; s < this.weights.length; s++) {
      const w = this.weights[s]!;
      if (w === 0) continue;
      const from = this.start[s * parents + p]!;
      const to = this.start[s * parents + p + 1]!;
      let fitting = 0;
      for (let m = from; m < to; m++) if (layout.fits(this.members[m]!, left)) fitting++;
      // FGD: a shape with no device that fits (or none on this parent at all) leaves the free share a fragment for it.
      if (fitting === 0 && this.lookahead === 0) frag += w * free * PLACEMENT_SCALE;
      frag += w * (to - from - fitting);
    }
    return frag;
  }
}

/** Claims of a workload the caller gives that the fragmentation term looks ahead (ShapeTable.expectedTake). */
export const LOOKAHEAD_STEPS = 6;

/** Most memoized values a table keeps (cleared when full; the values are a function of their key). */
const MAX_TAKEN = 1 << 16;

/** How much FGD's term outweighs the count of placements lost (which stays below it per parent). */
export const PLACEMENT_SCALE = 1 << 20;

/**
 * An objective's `fragmentation` in its units: `share`, the growth of the free share of parents no
 * shape of the workload can use (FGD's expected fragment; with a workload the caller gives, the
 * expected stranded share over the next LOOKAHEAD_STEPS claims) and of what picks hold beyond need,
 * in thousandths of a parent weighted by each shape's fraction of the workload; `placements`, the
 * placements lost, weighted the same way (a count). Both may be negative.
 */
export function fragmentationParts(value: number): { share: number; placements: number } {
  const scaled = Math.round(value / PLACEMENT_SCALE);
  return { share: scaled / 1000, placements: (value - scaled * PLACEMENT_SCALE) / 1000 };
}

/** What counts a pick as closing a likelier partner's hole (the objective's pairing, partition-pairing.ts): 1 when it does, else 0; `left` holds the counters before the pick and is the same after the call. */
export interface CloseRule {
  closes(c: number, left: Float64Array): number;
}

/** The fragmentation of one search's picks, kept up to date pick by pick (push/pop in stack order). */
export class FragmentationTracker {
  /** Σ over parents of (fragmentation now − fragmentation before the search), plus what the picks hold (ShapeTable.held). */
  delta = 0;
  private readonly left: Float64Array;
  private readonly now: Float64Array;
  private readonly history: number[] = [];

  private readonly layout: PartitionLayout;

  /** `baseNow`: each parent's fragmentation with `baseLeft` (computed here when not given); `rule`: what counts as closing a partner's hole (none: nothing does). */
  constructor(
    private readonly shapes: ShapeTable,
    baseLeft: Float64Array,
    baseNow?: Float64Array,
    private readonly rule?: CloseRule,
  ) {
    this.layout = shapes.layout;
    this.left = Float64Array.from(baseLeft);
    if (baseNow !== undefined) this.now = Float64Array.from(baseNow);
    else {
      this.now = new Float64Array(this.layout.parentCount);
      for (let p = 0; p < this.layout.parentCount; p++) this.now[p] = shapes.fragmentation(p, this.left);
    }
  }

  /** Picks that closed a likelier partner's last placement (CloseRule.closes), summed. */
  closed = 0;
  private readonly shut: number[] = [];

  push(c: number): void {
    const l = this.layout;
    if (!l.partition(c)) {
      this.history.push(NaN);
      return;
    }
    const shut = this.rule?.closes(c, this.left) ?? 0;
    this.closed += shut;
    this.shut.push(shut);
    // c is a candidate index; its uses, slots and parent are the layout's own (so in preview and pop).
    for (let u = l.useStart[c]!; u < l.useStart[c + 1]!; u++) this.left[l.useIdx[u]!]! -= l.useAmt[u]!;
    const p = l.parentOf[c]!;
    const before = this.now[p]!;
    const after = this.shapes.fragmentation(p, this.left);
    this.now[p] = after;
    this.delta += after - before + this.shapes.held(c);
    this.history.push(before);
  }

  /** What pushing `c` would change `delta` by, without pushing it. */
  preview(c: number): number {
    const l = this.layout;
    if (!l.partition(c)) return 0;
    for (let u = l.useStart[c]!; u < l.useStart[c + 1]!; u++) this.left[l.useIdx[u]!]! -= l.useAmt[u]!;
    const p = l.parentOf[c]!;
    const after = this.shapes.fragmentation(p, this.left);
    for (let u = l.useStart[c]!; u < l.useStart[c + 1]!; u++) this.left[l.useIdx[u]!]! += l.useAmt[u]!;
    return after - this.now[p]! + this.shapes.held(c);
  }

  /** What pushing `c` would add to `closed`, without pushing it. */
  previewCloses(c: number): number {
    return this.rule?.closes(c, this.left) ?? 0;
  }

  pop(c: number): void {
    const before = this.history.pop() as number;
    if (Number.isNaN(before)) return;
    this.closed -= this.shut.pop() as number;
    const l = this.layout;
    for (let u = l.useStart[c]!; u < l.useStart[c + 1]!; u++) this.left[l.useIdx[u]!]! += l.useAmt[u]!;
    const p = l.parentOf[c]!;
    this.delta -= this.now[p]! - before + this.shapes.held(c);
    this.now[p] = before;
  }
}
