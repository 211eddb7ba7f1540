// The cluster state's implementation of the pod scheduler's read port (NodeView, declared by the
// fleet room that reads it): live values over the state's ledger and the change notification.
import type { NodeGpus, NodeView } from '../fleet/index.js';
import type { Topology } from '../hardware/topology.js';
import type { Slot } from '../placement/index.js';
import type { Ledger } from './ledger.js';

/** The NodeView of a ledger, and the change notification behind it: the state calls changed(k) after every change to node k. */
export class LedgerView implements NodeView {
  private readonly ledger: Ledger;
  /** Changes per node (version). */
  private readonly versions: Float64Array;
  /** Subscribed listeners (pod schedulers), told in the order they subscribed. */
  private readonly listeners = new Set<(node: number) => void>();

  constructor(ledger: Ledger) {
    this.ledger = ledger;
    this.versions = new Float64Array(ledger.nodeIds.length);
  }

  get count(): number {
    return this.ledger.nodeIds.length;
  }

  nodeIds(): string[] {
    return [...this.ledger.nodeIds];
  }

  indexOf(id: string, field = 'node'): number {
    return this.ledger.nodeIndex(id, field);
  }

  gpus(k: number): NodeGpus {
    return { indices: this.ledger.indices[k]!, total: this.ledger.totalViews[k]!, free: this.ledger.freeViews[k]! };
  }

  cpuLeft(k: number): number {
    return this.ledger.cpuLeft(k);
  }

  hostMemoryLeft(k: number): number {
    return this.ledger.hostMemoryLeft(k);
  }

  gpuModel(k: number): string | undefined {
    return this.ledger.gpuModels[k];
  }

  topology(k: number): Topology | undefined {
    return this.ledger.topologies[k];
  }

  forEachSlot(k: number, fn: (slot: Readonly<Slot>, positions: readonly number[]) => void): void {
    for (const id of this.ledger.nodeSlots[k]!) {
      const r = this.ledger.record(k, id);
      fn(r.slot, r.positions);
    }
  }

  version(k: number): number {
    return this.versions[k]!;
  }

  onChange(listener: (node: number) => void): () => void {
    // A listener of its own: a second subscription of one function is a second listener, stopped on its own.
    const l = (node: number): void => listener(node);
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  }

  /** Node k changed: its version grows, then every listener is told. */
  changed(k: number): void {
    this.versions[k]!++;
    for (const l of this.listeners) l(k);
  }
}
