// gpualloc/dra: Kubernetes Dynamic Resource Allocation (objects, the allocator, clusters of nodes).
// It needs no engine or WebAssembly core: the allocator is TypeScript on both backends. Explicit
// named exports only.
import { allocateClaims as allocate, createDraCluster as createCluster, type DraAllocateRequest, type DraAllocateResult, type DraCluster, type DraClusterInit } from '../dra/index.js';
import { readInput } from '../shared/validate.js';

/** engine.allocateClaims without an engine: ResourceClaims on one node as kube-scheduler allocates them. */
export function allocateClaims(request: DraAllocateRequest): DraAllocateResult {
  return allocate(readInput('request', request, false) as DraAllocateRequest);
}

/** engine.createDraCluster without an engine: a cluster's objects read once, for schedule / release / allocated. */
export function createDraCluster(init: DraClusterInit): DraCluster {
  return createCluster(readInput('init', init, false) as DraClusterInit);
}

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
} from '../dra/index.js';
export {
  allocationPatch,
  claimsOfDump,
  DEFAULT_DRA_FEATURES,
  DEFAULT_NODE_SCORES,
  DEFAULT_SCORED_BUDGET,
  DRA_FEATURE_GATES,
  DRA_MODES,
  DraCluster,
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
} from '../dra/index.js';
export { AllocationError } from '../shared/errors.js';
