// gpualloc/placement: the engine without Kubernetes DRA and the fleet simulator (device split,
// replicas, aligned picks, model placement, cluster states and their pod schedulers), so a page or a
// service that only places models ships only that. Explicit named exports only.

export type { MultiNodePlanner } from '../cluster/multi-node.js';
export { multiNodePlanner } from '../cluster/multi-node.js';
export type { ClusterNode, NodeFromInventoryOptions } from '../cluster/node.js';
export { nodeFromInventory } from '../cluster/node.js';
export type { ClusterInit, ClusterPlanRequest, ClusterStateJSON, ClusterStateLike, GpuUsage } from '../cluster/state.js';
export { ClusterState } from '../cluster/state.js';
export type { AlignedPolicy, AlignedRequest, AlignedResult } from '../devices/aligned.js';
export type { ReplicaPolicy, ReplicaRequest, ReplicaResult } from '../devices/replicas.js';
export type { SplitMode, SplitRequest, SplitResult } from '../devices/split.js';
export type { Backend, CompiledWasm, EngineOptions, PlacementEngineOptions } from '../engine.js';
export { openPlacementEngine, PlacementEngine } from '../engine.js';
export type { FleetPod, PodNodeView, PodPlan, PodScheduler, PodSchedulerOptions } from '../fleet/index.js';
export type { GpuProcess, Inventory, InventoryGpu, MigDevice } from '../hardware/inventory.js';
export { getPreset, listPresets } from '../hardware/presets.js';
export type { Link, PcieLevel, Topology } from '../hardware/topology.js';
export { validateTopology } from '../hardware/topology.js';
export type { NodeGpu, PlacementOption, PlacementPlan, PlacementRequest, PreparedPlacementRequest, PrepareRequest, Rejection, Slot } from '../placement/index.js';
export { PreparedNode } from '../placement/index.js';
export type { AllocationErrorCode, Reason, ReasonCode } from '../shared/errors.js';
export { AllocationError, ERROR_CODES, REASON_CODES } from '../shared/errors.js';
export { LIMITS } from '../shared/limits.js';
export type { ByteUnits } from '../shared/units.js';
export { formatBytes, parseBytes, unitsOf } from '../shared/units.js';
