// The allocator sub-room's front: the searches over a model (first-fit as upstream's allocator
// walks, and the scored search with its objective, symmetry classes and feasibility proofs), the
// results they build, and allocateClaims, which reads a request and runs one of them.

export type { DraAllocateRequest, DraAllocateResult, DraExplanation, DraMode, SearchSettings, Unschedulable } from './allocate.js';
export { allocateClaims, allocateOnModel, DRA_MODES, readBudget, readCapacityState, readFeatures, readIdList, readMode, unschedulable } from './allocate.js';
export { firstFit } from './first-fit.js';
export { AllocatedBase, compareObjective, type DraObjective, evaluateObjective } from './objective.js';
export { fragmentationParts, LOOKAHEAD_STEPS, PLACEMENT_SCALE } from './partition-fragmentation.js';
export { addSupply, type PairingSupply } from './partition-pairing.js';
export type { WorkloadShape } from './partition-shapes.js';
export { DEFAULT_SCORED_BUDGET } from './scored.js';
export { namesRead } from './symmetry.js';
export { PAIR_PENALTY, TOPOLOGY_ATTRIBUTES, TopologySetup } from './topology-setup.js';
export { type DraWorkloadEntry, readWorkload, selectionOf, type Workload, workloadShapes } from './workload.js';
