// gpualloc: the public API. Explicit named exports only.
export { createEngine, Engine } from './engine.js';
export { AllocationError, ERROR_CODES, REASON_CODES } from './errors.js';
export { LIMITS } from './limits.js';
export { ClusterState } from './cluster/state.js';
export { nodeFromInventory } from './cluster/node.js';
export { estimateMemory, DEFAULT_CONTEXT_LENGTH } from './estimate.js';
export { defaultTensorParallelSizes, perGpuMemory, tensorParallelProblem } from './tensor-parallel.js';
export { validateInventory, INVENTORY_VERSION } from './inventory.js';
export { listPresets, getPreset } from './presets.js';
export { validateTopology, pairScoreMatrix, linkScore, PCIE_SCORE, NVLINK_SCORE } from './topology.js';
export { parseBytes, formatBytes, unitsOf } from './units.js';

export type { EngineOptions } from './engine.js';
export type { Backend, Kernels } from './kernels.js';
export type { AllocationErrorCode, Reason } from './errors.js';
export type { SplitRequest, SplitResult, SplitMode } from './split.js';
export type { ReplicaRequest, ReplicaResult, ReplicaPolicy } from './replicas.js';
export type { AlignedRequest, AlignedResult, AlignedPolicy } from './aligned.js';
export type { PlacementRequest, PlacementPlan, PlacementOption, Rejection, Slot, NodeGpu } from './placement.js';
export type { ClusterInit, ClusterStateJSON, GpuUsage } from './cluster/state.js';
export type { ClusterNode, NodeFromInventoryOptions } from './cluster/node.js';
export type { MemoryEstimate, EstimateOptions } from './estimate.js';
export type { TensorParallelSizes, DroppedSize, AttentionHeads } from './tensor-parallel.js';
export type { ByteUnits } from './units.js';
export type { Inventory, InventoryGpu, MigDevice, GpuProcess } from './inventory.js';
export type { Preset } from './presets.js';
export type { Topology, Link, PcieLevel } from './topology.js';
