// The allocator sub-room's front: the searches over a model (first-fit as upstream's allocator
// walks, and the scored search with its objective, symmetry classes and feasibility proofs), the
// results they build, and allocateClaims, which reads a request and runs one of them.
export { allocateClaims, allocateOnModel, DRA_MODES, readBudget, readCapacityState, readFeatures, readIdList, readMode, unschedulable } from './allocate.js';
export type { DraAllocateRequest, DraAllocateResult, DraExplanation, DraMode, SearchSettings, Unschedulable } from './allocate.js';
export { firstFit } from './first-fit.js';
export { compareObjective, evaluateObjective, PAIR_PENALTY, TOPOLOGY_ATTRIBUTES, TopologySetup, type DraObjective } from './objective.js';
export { readWorkload, selectionOf, workloadShapes, type DraWorkloadEntry, type Workload } from './workload.js';
export type { WorkloadShape } from './partition-fragmentation.js';
export { DEFAULT_SCORED_BUDGET } from './scored.js';
