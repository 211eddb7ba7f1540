// gpualloc: the public API. Explicit named exports only.

export type { MultiNodePlanner } from './cluster/multi-node.js';
export { multiNodePlanner } from './cluster/multi-node.js';
export type { ClusterNode, NodeFromInventoryOptions } from './cluster/node.js';
export { nodeFromInventory } from './cluster/node.js';
export type { ClusterInit, ClusterPlanRequest, ClusterStateJSON, ClusterStateLike, GpuUsage } from './cluster/state.js';
export { ClusterState, stateFileText } from './cluster/state.js';
export type { AlignedPolicy, AlignedRequest, AlignedResult } from './devices/aligned.js';
export type { ReplicaPolicy, ReplicaRequest, ReplicaResult } from './devices/replicas.js';
export type { SplitMode, SplitRequest, SplitResult } from './devices/split.js';
export type {
  AllocationResult as DraAllocationResult,
  ClusterDump,
  ClusterDumpOptions,
  DeviceClass,
  DraAllocatedState,
  DraAllocateRequest,
  DraAllocateResult,
  DraClaimAllocation,
  DraClusterInit,
  DraDocuments,
  DraDump,
  DraFeature,
  DraFeatures,
  DraMode,
  DraObjective,
  DraObjects,
  DraScheduleResult,
  DumpClaim,
  GangPlacement,
  GangRequest,
  GangResult,
  GangTopology,
  GroupNotPlaced,
  GroupOutcome,
  GroupPlaced,
  HeldDevices,
  Node as DraNode,
  NodeScore,
  PodInvalid,
  PodOutcome,
  PodPlaced,
  PodReason,
  PodSchedule,
  PodScheduling,
  PodUnschedulable,
  ResourceClaim,
  ResourceSlice,
} from './dra/index.js';
export {
  allocationPatch,
  claimsOfDump,
  DEFAULT_DRA_FEATURES,
  DEFAULT_NODE_SCORES,
  DEFAULT_SCORED_BUDGET,
  DRA_FEATURE_GATES,
  DRA_FEATURE_STAGES,
  DRA_MODES,
  DraCluster,
  fragmentationParts,
  NODE_SCORES,
  readClusterDump,
  readDeviceClasses,
  readDocuments,
  readDraObjects,
  readNodes,
  readResourceClaims,
  readResourceSlices,
  schedulePods,
  splitDraDump,
} from './dra/index.js';
export type { CompiledWasm, EngineOptions, PlacementEngineOptions } from './engine.js';
export { createEngine, Engine, openEngine, openPlacementEngine, PlacementEngine } from './engine.js';
export type { FleetNode, FleetPod, FleetPolicyName, PodNodeView, PodPlan, PodScheduler, PodSchedulerOptions, PodSearch } from './fleet/index.js';
export { DEFAULT_POLICY as DEFAULT_FLEET_POLICY, POLICIES as FLEET_POLICIES, parseNodeCsv, parsePodCsv, scaleTrace } from './fleet/index.js';
export type { GpuProcess, Inventory, InventoryGpu, MigDevice } from './hardware/inventory.js';
export { INVENTORY_VERSION, validateInventory, wholeGpuCandidates } from './hardware/inventory.js';
export type { Preset } from './hardware/presets.js';
export { getPreset, listPresets } from './hardware/presets.js';
export type { Link, PcieLevel, Topology } from './hardware/topology.js';
export { linkScore, NVLINK_SCORE, PCIE_LEVELS, PCIE_SCORE, pairScoreMatrix, validateTopology } from './hardware/topology.js';
export type { Backend, Kernels } from './kernels.js';
export type { EstimateOptions, MemoryEstimate } from './models/estimate.js';
export { DEFAULT_CONTEXT_LENGTH, estimateMemory } from './models/estimate.js';
export type { AttentionHeads, DroppedSize, TensorParallelSizes } from './models/tensor-parallel.js';
export { defaultTensorParallelSizes, perGpuMemory, tensorParallelProblem } from './models/tensor-parallel.js';
export type { NodeGpu, PlacementOption, PlacementPlan, PlacementRequest, PreparedPlacementRequest, PrepareRequest, Rejection, RejectionCode, Slot } from './placement/index.js';
export { PreparedNode } from './placement/index.js';
export type { AllocationErrorCode, Reason, ReasonCode } from './shared/errors.js';
export { AllocationError, ERROR_CODES, REASON_CODES } from './shared/errors.js';
export { LIMITS } from './shared/limits.js';
export type { ByteUnits } from './shared/units.js';
export { formatBytes, parseBytes, unitsOf } from './shared/units.js';
export type { FleetEvent, SimulateAsyncOptions, SimulateRequest, SimulationRun } from './simulation/index.js';
export { SIMULATION_SLICE_MS } from './simulation/index.js';
