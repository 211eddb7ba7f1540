// The dra room's public front: Kubernetes Dynamic Resource Allocation objects and the allocator.
// The room is in sub-rooms, each with its own front: objects/ (types, readers, quantities, dumps),
// cel/ (device selectors), model/ (what a node offers the claims), allocator/ (the searches) and
// cluster/ (a cluster that keeps what is allocated). Tests reach the internals through testing.ts.
export { allocateClaims, DRA_MODES, DEFAULT_SCORED_BUDGET } from './allocator/index.js';
export { DEFAULT_DRA_FEATURES, DRA_FEATURE_GATES } from './model/index.js';
export { readDeviceClasses, readResourceSlices, readResourceClaims, readNodes, readDraObjects, splitDraDump, claimsOfDump, allocationPatch } from './objects/index.js';
export { createDraCluster, DraCluster, NODE_SCORES, FRAGMENTATION_CANDIDATES } from './cluster/index.js';

export type { DraAllocateRequest, DraAllocateResult, DraMode, DraObjective, DraExplanation, DraWorkloadEntry } from './allocator/index.js';
export type { DraFeature, DraFeatures } from './model/index.js';
export type { DraObjects, DraKind, DraDump, DumpClaim, HeldDevices } from './objects/index.js';
export type { DraClusterInit, DraScheduleResult, DraClaimAllocation, DraAllocatedState, NodeScore } from './cluster/index.js';
// The Kubernetes objects' types, by name (the front of objects/ lists them all).
export type { AttributeValue, NodeSelectorRequirement, NodeSelectorTerm, NodeSelector, Node, CapacityRequestPolicyRange, CapacityRequestPolicy, DeviceCapacity, DeviceCounterConsumption, DeviceTaint, Device, CounterSet, ResourceSlice, OpaqueDeviceConfiguration, DeviceConfiguration, DeviceClass, DeviceSelector, DeviceToleration, DeviceRequestBody, ExactDeviceRequest, DeviceSubRequest, DeviceRequest, DeviceConstraint, DeviceClaimConfiguration, ResourceClaim, DeviceRequestAllocationResult, DeviceAllocationConfiguration, AllocationResult } from './objects/index.js';
