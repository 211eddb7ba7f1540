// gpualloc: the public API. Explicit named exports only.
export { createEngine, Engine } from './engine.js';
export { AllocationError, ERROR_CODES, REASON_CODES } from './errors.js';
export { LIMITS } from './limits.js';
export { ClusterState } from './cluster/state.js';
export { nodeFromInventory } from './cluster/node.js';
export { estimateMemory } from './estimate.js';
export { validateInventory, INVENTORY_VERSION } from './inventory.js';
export { listPresets, getPreset } from './presets.js';
export { validateTopology, pairScoreMatrix, linkScore, PCIE_SCORE, NVLINK_SCORE } from './topology.js';
export { parseBytes, formatBytes } from './units.js';
export { POLICIES as FLEET_POLICIES, DEFAULT_POLICY as DEFAULT_FLEET_POLICY, parseNodeCsv, parsePodCsv } from './fleet/index.js';

export type { EngineOptions } from './engine.js';
export type { Backend, Kernels } from './kernels.js';
export type { AllocationErrorCode, Reason } from './errors.js';
export type { SplitRequest, SplitResult, SplitMode } from './split.js';
export type { ReplicaRequest, ReplicaResult, ReplicaPolicy } from './replicas.js';
export type { AlignedRequest, AlignedResult, AlignedPolicy } from './aligned.js';
export type { PlacementRequest, PlacementPlan, PlacementOption, Rejection, Slot, NodeGpu, PreparedPlacementRequest, PrepareRequest } from './placement.js';
export { PreparedNode } from './placement.js';
export type { ClusterInit, ClusterStateJSON, GpuUsage } from './cluster/state.js';
export type { ClusterNode, NodeFromInventoryOptions } from './cluster/node.js';
export type { MemoryEstimate, EstimateOptions } from './estimate.js';
export type { Inventory, InventoryGpu, MigDevice, GpuProcess } from './inventory.js';
export type { Preset } from './presets.js';
export type { Topology, Link, PcieLevel } from './topology.js';
export type { SimulateRequest, SimulationRun, FleetEvent, FleetNode, FleetPod } from './fleet/index.js';
