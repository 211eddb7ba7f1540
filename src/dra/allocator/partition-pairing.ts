// Pairing: when a partition should not close the hole a likelier, bigger partition needs. Under
// openb's pods a 4g.40gb (971 of the trace's GPU pods) shares an H100 only with a partner on memory
// slices 4–7; a 2g.20gb or 3g.40gb put on slices 0–3 of a GPU already carved closes that GPU's last
// 4g.40gb placement, and the next 4g.40gb strands 3/7 of a fresh GPU. Whether closing it costs
// depends on supply and demand: while the fleet's carved GPUs that can still take a 4g.40gb number
// at least the 4g.40gb claims expected before the fleet is full, one hole less costs nothing; while
// they number fewer, the pick counts as worse than carving a fresh GPU (the objective's `opened`).
// The expectation reads the workload's frequencies and the fleet's free capacity, never a stream:
// the free worth of the counter-set parents over the worth the workload's claims take there on
// average is the claims still to come, and a shape's share of the workload is its share of them.
import type { CloseRule, ShapeTable } from './partition-fragmentation.js';

/** What some nodes offer pairing: their free worth on counter sets and, per workload shape, their carved parents that can still take it. */
export interface PairingSupply {
  /** Thousandths of a parent: over the counter-set parents, 1000 less the worth of the devices other claims hold there. */
  free: number;
  /** Per shape of the workload (in the workload's order): counter-set parents, partly used, on which a device of the shape still fits. */
  holes: Float64Array;
}

/**
 * A node's supply with what other claims hold (`left`: its counters left; `held`: per candidate, 1
 * where another claim holds it; `partitionable`: per parent, 1 for a counter-set group, as
 * TopologySetup reads them). Parents other nodes also see (a pool shared between nodes) count once
 * per node. Free worth is rounded to whole thousandths, so sums over nodes are exact.
 */
export function nodeSupply(table: ShapeTable, left: Float64Array, held: Uint8Array, partitionable: Uint8Array): PairingSupply {
  const layout = table.layout;
  const holdsOn = new Float64Array(layout.parentCount);
  // Candidate indexes (held has one entry per candidate) and their parents (< parentCount).
  for (let c = 0; c < held.length; c++) if (held[c] === 1 && layout.onCounters(c)) holdsOn[layout.parentOf[c]!]! += layout.worth[c]!;
  let free = 0;
  const holes = new Float64Array(table.weights.length);
  for (let p = 0; p < layout.parentCount; p++) {
    if (partitionable[p] === 0) continue;
    free += Math.max(0, 1000 - holdsOn[p]!);
    if (table.untouched(p, left)) continue;
    for (let s = 0; s < holes.length; s++) if (table.fitsOn(s, p, left, -1)) holes[s]!++;
  }
  return { free: Math.round(free), holes };
}

/** `a` + sign × `b`, shape by shape (same workload). */
export function addSupply(a: PairingSupply, b: PairingSupply, sign: 1 | -1): PairingSupply {
  return { free: a.free + sign * b.free, holes: Float64Array.from(a.holes, (h, s) => h + sign * b.holes[s]!) };
}

/**
 * The pairing rule on one node (ShapeTable's workload): `fleet` is the supply of every node the
 * search may place on, this one included, before the claims of the call; `own` this node's share of
 * it. A pick of candidate c on its parent p, already carved (`left`: the counters before the pick),
 * closes when it takes p's last placement of a shape the workload asks for more often than any
 * shape c serves and that is bigger (its devices worth more than c), while the parents elsewhere
 * that can still take that shape (other nodes', and this node's other carved parents as the search
 * has left them) number fewer than the claims of the shape expected before the fleet is full: the
 * fleet's free worth ÷ the workload's mean size on counters × the shape's share of the workload.
 * Only with a workload the caller gives (`lookahead` > 0: frequencies, not a list).
 */
export class Pairing implements CloseRule {
  private readonly elsewhere: Float64Array;
  /** Per shape: the claims of it expected before the fleet is full. */
  private readonly expected: Float64Array;
  /** closes' scratch: the shapes a pick may close. */
  private readonly open: Int32Array;

  constructor(
    private readonly table: ShapeTable,
    fleet: PairingSupply,
    own: PairingSupply,
  ) {
    const shapes = table.weights.length;
    this.elsewhere = new Float64Array(shapes);
    this.expected = new Float64Array(shapes);
    this.open = new Int32Array(shapes);
    let taken = 0;
    // holes, sizes and weights have one entry per shape.
    for (let s = 0; s < shapes; s++) {
      this.elsewhere[s] = fleet.holes[s]! - own.holes[s]!;
      taken += table.weights[s]! * table.sizes[s]!;
    }
    // No shape takes anything on counters: every likelier partner's hole counts (none is expected to be spare).
    for (let s = 0; s < shapes; s++) this.expected[s] = taken > 0 ? (fleet.free * table.weights[s]!) / taken : Number.POSITIVE_INFINITY;
  }

  closes(c: number, left: Float64Array): number {
    const table = this.table;
    const layout = table.layout;
    if (table.lookahead === 0 || table.weight === 0 || !layout.onCounters(c)) return 0;
    // c is a candidate index; its parent and uses are the layout's own.
    const p = layout.parentOf[c]!;
    if (table.untouched(p, left)) return 0;
    const parents = layout.parentCount;
    const shapes = table.weights.length;
    const own = table.served[c]!;
    if (own === 0) return 0;
    const worth = layout.worth[c]!;
    const open = this.open;
    let opened = 0;
    for (let s = 0; s < shapes; s++) if (table.weights[s]! > own && table.fitsOn(s, p, left, worth)) open[opened++] = s;
    if (opened === 0) return 0;
    for (let u = layout.useStart[c]!; u < layout.useStart[c + 1]!; u++) left[layout.useIdx[u]!]! -= layout.useAmt[u]!;
    let closed = 0;
    // open holds `opened` shapes (< shapes).
    for (let i = 0; i < opened && closed === 0; i++) {
      const s = open[i]!;
      if (table.fitsOn(s, p, left, worth)) continue;
      const expected = this.expected[s]!;
      let holes = this.elsewhere[s]!;
      // Where even every other parent of the node could not make up the count, the walk is skipped.
      if (holes + parents - 1 < expected) {
        closed = 1;
        continue;
      }
      for (let q = 0; q < parents && holes < expected; q++) if (q !== p && layout.partitioned[q] === 1 && !table.untouched(q, left) && table.fitsOn(s, q, left, worth)) holes++;
      if (holes < expected) closed = 1;
    }
    for (let u = layout.useStart[c]!; u < layout.useStart[c + 1]!; u++) left[layout.useIdx[u]!]! += layout.useAmt[u]!;
    return closed;
  }
}
