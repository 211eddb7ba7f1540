// The model sub-room's front: what one node offers a set of claims, compiled once: the feature
// gates, the pools a node reaches, the candidate devices of each request (class and request
// selectors, taints, node selection), consumable capacity, and the claims' constraints.
export { AllocationModel, addClaims, claimLabel, ALLOCATION_RESULTS_MAX_SIZE } from './allocation-model.js';
export type { AllocatedSnapshot, CandidateDevice, ClaimModel, ConstraintSpec, RequestGroup, RequestModel } from './allocation-model.js';
export { addAmounts, subAmounts, consumedCapacity, type CapacityAmounts } from './capacity.js';
export { lookupAttribute, type Constraint } from './constraints.js';
export { DEFAULT_DRA_FEATURES, DRA_FEATURE_GATES, type DraFeature, type DraFeatures, type ResolvedFeatures } from './features.js';
export { taintPreventsAllocation } from './node-match.js';
export { gatherPools, deviceReachesNode, type Pool } from './pools.js';
export { Selectors } from './selectors.js';
