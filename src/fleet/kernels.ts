// The fleet kernels: the hot loop of fractional multi-resource placement (the best node for a pod by a
// policy, through the pod index or by the scan; after ClusterState commits the pod, recompute only
// that node's fragmentation). Two implementations over the same flat layout (src/fleet/layout.ts):
// assembly/fleet.ts (marshaled by src/wasm/fleet.ts) and src/baseline/fleet.ts.

/** A fleet's two arrays. The views are valid until the next kernel call (wasm memory may grow). */
export interface FleetMemory {
  /** The Int32Array of the layout. */
  ints(): Int32Array;
  /** The Float64Array of the layout. */
  floats(): Float64Array;
  /** Releases the memory (wasm: back to the core's heap); the fleet is unusable afterwards. */
  free(): void;
}

/** The fleet capability's kernels. */
export interface FleetKernels {
  /** Memory for a fleet of this layout (src/fleet/layout.ts fleetLayout), zero-filled. */
  fleetAlloc(ints: number, floats: number): FleetMemory;
  /** After the header, nodes (static fields and GPUs), typical pods, weights, thresholds and (with an index) the tree table and leaf order are written: derives every node's totals and fragmentation, empties the score cache and builds the index's static parts. */
  fleetInit(memory: FleetMemory): void;
  /**
   * The chosen node for one pod (-1: none fits), writing the chosen GPUs into the output (count, then
   * indices): the highest score by the policy, the smallest rank on a tie, among the nodes that fit.
   * `cls` is the pod's score class (-1: none), `tree` the pod-index tree to search (a tree of class
   * `cls` whose memory floor is at most the pod's memory; -1: the scan); u1, u2 ∈ [0, 1) are the
   * pod's random draws (random policy only).
   */
  fleetPick(memory: FleetMemory, policy: number, cls: number, tree: number, cpu: number, mem: number, num: number, milli: number, mask: number, u1: number, u2: number): number;
  /**
   * Recomputes node `node` (totals, fragmentation; its scores marked stale) after the caller rewrote its CPU
   * and memory left, its GPU-pod tag counts and its GPUs' free milli (src/fleet/scheduler.ts sync).
   */
  fleetRefresh(memory: FleetMemory, node: number): void;
}
