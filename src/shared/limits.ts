/** Documented input limits: anything larger is an AllocationError('LIMIT_EXCEEDED'), never a hang. */
export const LIMITS = {
  /** Most IDs in one naturalSort or device list. */
  maxIds: 1_000_000,
  /** Most UTF-16 code units in one ID. */
  maxIdLength: 1_000_000,
  /** Most UTF-16 code units across all IDs of one call (128 Mi units = 256 MiB). */
  maxTotalIdUnits: 1 << 27,
  /** Most GPUs in one node (GPU sets are 64-bit masks in the core). */
  maxGpus: 64,
  /** Largest node for which aligned and placement searches are exact. */
  maxExactGpus: 16,
  /** Most agents in one split. */
  maxAgents: 100_000,
  /** Most slots on one node. */
  maxSlotsPerNode: 100_000,
  /** Most nodes in one ClusterState. */
  maxNodes: 100_000,
  /** Most nodes in one fleet (fractional multi-resource placement). */
  maxFleetNodes: 100_000,
  /** Most pods in one fleet simulation (after tuning). */
  maxFleetPods: 10_000_000,
  /** Most distinct GPU models in one fleet (a pod's allowed models are a 32-bit mask). */
  maxFleetModels: 32,
  /** Most candidates a fleet policy's lookahead compares (src/fleet/lookahead.ts). */
  maxLookaheadCandidates: 16,
  /** Most continuations a lookahead rolls out per candidate. */
  maxLookaheadContinuations: 256,
  /** Most pods in one continuation of a lookahead. */
  maxLookaheadDepth: 256,
  /** Most entries of a lookahead's sampling table (the workload's distinct pod shapes × (GPU models + 1)). */
  maxLookaheadTable: 16_777_216,
  /** Most levels of nesting read from one input (requests are a few levels deep). */
  maxDepth: 64,
  /** Most CPU of one cluster node or slot, in milli-CPU (2^31 - 1: the fleet kernels count in i32). */
  maxMilliCpu: 0x7fffffff,
  /** Largest GPU (memoryTotal, bytes) that takes no pod share: shares are whole-milli exact in bytes only above it (src/shared/share.ts). */
  maxNoShareGpuMemory: 1_000_000,
  /** Largest memory figure accepted, in bytes (2^53 - 1). */
  maxBytes: Number.MAX_SAFE_INTEGER,
} as const;
