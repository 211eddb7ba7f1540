// gpualloc/placement: the engine without Kubernetes DRA and the fleet simulator (device split,
// replicas, aligned picks, model placement, cluster states and their pod schedulers), so a page or a
// service that only places models ships only that. Explicit named exports only.
export { createPlacementEngine, PlacementEngine } from '../engine.js';
export { AllocationError, ERROR_CODES, REASON_CODES } from '../shared/errors.js';
export { LIMITS } from '../shared/limits.js';
export { ClusterState } from '../cluster/state.js';
export { nodeFromInventory } from '../cluster/node.js';
export { listPresets, getPreset } from '../hardware/presets.js';
export { validateTopology } from '../hardware/topology.js';
export { parseBytes, formatBytes, unitsOf } from '../shared/units.js';
export { PreparedNode } from '../placement/index.js';

export type { EngineOptions, CompiledWasm } from '../engine.js';
export type { Backend } from '../engine.js';
export type { AllocationErrorCode, Reason, ReasonCode } from '../shared/errors.js';
export type { SplitRequest, SplitResult, SplitMode } from '../devices/split.js';
export type { ReplicaRequest, ReplicaResult, ReplicaPolicy } from '../devices/replicas.js';
export type { AlignedRequest, AlignedResult, AlignedPolicy } from '../devices/aligned.js';
export type { PlacementRequest, PlacementPlan, PlacementOption, Rejection, Slot, NodeGpu, PreparedPlacementRequest, PrepareRequest } from '../placement/index.js';
export type { ClusterInit, ClusterStateJSON, GpuUsage, ClusterPlanRequest, ClusterStateLike } from '../cluster/state.js';
export type { ClusterNode, NodeFromInventoryOptions } from '../cluster/node.js';
export type { Inventory, InventoryGpu, MigDevice, GpuProcess } from '../hardware/inventory.js';
export type { Topology, Link, PcieLevel } from '../hardware/topology.js';
export type { ByteUnits } from '../shared/units.js';
export type { PodScheduler, PodSchedulerOptions, PodPlan, PodNodeView } from '../fleet/index.js';
export type { FleetPod } from '../fleet/index.js';
