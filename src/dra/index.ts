// The dra room's public front: Kubernetes Dynamic Resource Allocation objects and the allocator.
// The room is in sub-rooms, each with its own front: objects/ (types, readers, quantities, dumps),
// cel/ (device selectors), model/ (what a node offers the claims), allocator/ (the searches),
// cluster/ (a cluster that keeps what is allocated), pods/ (pods scheduled as kube-scheduler does)
// and workloads/ (gangs of pods placed all or nothing). Tests reach the internals through testing.ts.

export type { DraAllocateRequest, DraAllocateResult, DraExplanation, DraMode, DraObjective, DraWorkloadEntry } from './allocator/index.js';
export { allocateClaims, DEFAULT_SCORED_BUDGET, DRA_MODES, fragmentationParts } from './allocator/index.js';
export type { DraAllocatedState, DraClaimAllocation, DraClusterInit, DraScheduleResult, NodeScore } from './cluster/index.js';
export { createDraCluster, DEFAULT_NODE_SCORES, DraCluster, FRAGMENTATION_CANDIDATES, NODE_SCORES } from './cluster/index.js';
export type { DraFeature, DraFeatures } from './model/index.js';
export { applyTaintRules, DEFAULT_DRA_FEATURES, DRA_FEATURE_GATES, DRA_FEATURE_STAGES, readClusterDump } from './model/index.js';
// The Kubernetes objects' types, by name (the front of objects/ lists them all).
export type {
  AllocationResult,
  AttributeValue,
  CapacityRequestPolicy,
  CapacityRequestPolicyRange,
  ClaimTemplate,
  ClusterDump,
  ClusterDumpOptions,
  CounterSet,
  Device,
  DeviceAllocationConfiguration,
  DeviceCapacity,
  DeviceClaimConfiguration,
  DeviceClass,
  DeviceConfiguration,
  DeviceConstraint,
  DeviceCounterConsumption,
  DeviceRequest,
  DeviceRequestAllocationResult,
  DeviceRequestBody,
  DeviceSelector,
  DeviceSubRequest,
  DeviceTaint,
  DeviceToleration,
  DraDocuments,
  DraDump,
  DraKind,
  DraObjects,
  DumpClaim,
  ExactDeviceRequest,
  HeldDevices,
  Node,
  NodeInfo,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  OpaqueDeviceConfiguration,
  PodGroupInfo,
  PodInfo,
  ResourceClaim,
  ResourceSlice,
} from './objects/index.js';
export {
  allocationPatch,
  claimsOfDump,
  DRA_API_LIMITS,
  emptyDump,
  KUBERNETES_VERSION,
  POD_GROUP_API_VERSION,
  readDeviceClasses,
  readDocuments,
  readDraObjects,
  readNodes,
  readResourceClaims,
  readResourceSlices,
  splitDraDump,
  toServedVersion,
  validateClaimSpec,
  validateClassSpec,
  validateSliceSpec,
} from './objects/index.js';
export type {
  ClaimPlacer,
  GroupNotPlaced,
  GroupOutcome,
  GroupPlaced,
  PlaceResult,
  PodClaimOutcome,
  PodInvalid,
  PodOutcome,
  PodPlaced,
  PodReason,
  PodSchedule,
  PodScheduling,
  PodUnschedulable,
} from './pods/index.js';
export { podOwnerOf, schedulePods } from './pods/index.js';
export type { GangFilter, GangPlacement, GangRequest, GangResult, GangTopology } from './workloads/index.js';
