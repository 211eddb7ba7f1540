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

export { DRA_MODES, DEFAULT_SCORED_BUDGET, DEFAULT_DRA_FEATURES, DRA_FEATURE_GATES, readDeviceClasses, readResourceSlices, readResourceClaims, readNodes, readDraObjects, DraCluster, NODE_SCORES, splitDraDump, claimsOfDump, allocationPatch } from '../dra/index.js';
export { AllocationError } from '../shared/errors.js';
export type { DraAllocateRequest, DraAllocateResult, DraMode, DraObjective, DraFeature, DraFeatures, DraObjects, AllocationResult as DraAllocationResult, DeviceClass, ResourceSlice, ResourceClaim, Node as DraNode, DraClusterInit, DraScheduleResult, DraClaimAllocation, DraAllocatedState, NodeScore, DraDump, DumpClaim, HeldDevices } from '../dra/index.js';
