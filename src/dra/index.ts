// The dra room's public front: Kubernetes Dynamic Resource Allocation objects and the allocator.
export { allocateClaims, DRA_MODES } from './allocate.js';
export { DEFAULT_DRA_FEATURES, DRA_FEATURE_GATES } from './features.js';
export { readDeviceClasses, readResourceSlices, readResourceClaims, readNodes, readDraObjects, RESOURCE_API_VERSION } from './objects.js';
export { AllocationModel, addClaims, claimLabel, ALLOCATION_RESULTS_MAX_SIZE } from './model.js';
export { gatherPools } from './pools.js';
export { SearchState } from './state.js';
export { buildResults } from './result.js';
export { MatchAttribute, DistinctAttribute, lookupAttribute } from './constraints.js';
export { firstFit } from './first-fit.js';
export { filterCounts } from './diagnose.js';

export type { DraAllocateRequest, DraAllocateResult, DraMode } from './allocate.js';
export type { DraFeature, DraFeatures, ResolvedFeatures } from './features.js';
export type { DraObjects, DraKind } from './objects.js';
export type { CandidateDevice, RequestModel, RequestGroup, ClaimModel, AllocatedState, ConstraintSpec } from './model.js';
export type { Pool } from './pools.js';
export type { PickedDevice } from './state.js';
export type { Constraint, ConstraintRequest } from './constraints.js';
export type { SearchOutcome, SearchProgress } from './first-fit.js';
export type { FilterCounts } from './diagnose.js';
export type * from './types.js';
