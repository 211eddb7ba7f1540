// What the cluster's nodes offer the scored objective's pairing rule (the allocator's
// partition-pairing): each node's free worth on counter sets and carved parents per workload shape,
// made when first asked after the node's allocated state changed, and their sum, kept by adding
// and subtracting the nodes that change (integers: exact in any order).
import { addSupply, type PairingSupply } from '../allocator/index.js';

/** How the cluster reads one node's supply: `nodes`, how many; `counts(k)`, whether node k has a device on counters (others never count); `of(k)`, node k's supply. */
export interface SupplySource {
  nodes: number;
  counts(k: number): boolean;
  of(k: number): PairingSupply;
}

/** The pairing supply of a cluster's nodes. */
export class FleetSupply {
  private readonly perNode: Array<PairingSupply | undefined>;
  private readonly stale: number[];
  private total: PairingSupply | undefined;

  constructor(private readonly source: SupplySource) {
    this.perNode = new Array(source.nodes);
    this.stale = Array.from({ length: source.nodes }, (_, k) => k);
  }

  /** Node k's allocated state changed: its supply is made again when next asked. */
  changed(k: number): void {
    const old = this.perNode[k];
    if (old === undefined) return;
    if (this.total !== undefined) this.total = addSupply(this.total, old, -1);
    this.perNode[k] = undefined;
    this.stale.push(k);
  }

  /** The sum over the nodes with a partition on counters (undefined where no node has one). A node leaves the stale list only once its supply is in the sum, so a throw on one leaves the sum right. */
  sum(): PairingSupply | undefined {
    while (this.stale.length > 0) {
      const k = this.stale[this.stale.length - 1]!;
      const s = this.source.counts(k) ? this.source.of(k) : undefined;
      this.stale.pop();
      if (s === undefined) continue;
      this.perNode[k] = s;
      this.total = addSupply(this.total ?? { free: 0, holes: new Float64Array(s.holes.length) }, s, 1);
    }
    return this.total;
  }
}
