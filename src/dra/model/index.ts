// The model sub-room's front: what one node offers a set of claims, compiled once: the feature
// gates, the pools a node reaches, the candidate devices of each request (class and request
// selectors, taints, node selection), consumable capacity, and the claims' constraints.

export type { AllocatedSnapshot, CandidateDevice, ClaimModel, ConstraintSpec, CounterUse, RequestGroup, RequestModel } from './allocation-model.js';
export { ALLOCATION_RESULTS_MAX_SIZE, AllocationModel, addCheckedClaims, addClaims, claimLabel, claimsNodeIndependent, listCandidates } from './allocation-model.js';
export { addAmounts, type CapacityAmounts, consumedCapacity, subAmounts } from './capacity.js';
export { type Constraint, lookupAttribute } from './constraints.js';
export { DEFAULT_DRA_FEATURES, DRA_FEATURE_GATES, DRA_FEATURE_STAGES, type DraFeature, type DraFeatureStage, type DraFeatures, type ResolvedFeatures } from './features.js';
export { selectorMatches, taintPreventsAllocation, toleratesTaint } from './node-match.js';
export { deviceReachesNode, gatherPools, type Pool, type PoolCountersLeft, poolCountersLeft } from './pools.js';
export { Selectors } from './selectors.js';
export { applyTaintRules, readClusterDump } from './taint-rules.js';
