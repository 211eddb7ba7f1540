// The cluster sub-room's front: a DRA cluster that keeps what is allocated and schedules claims
// node by node, with nodes grouped into classes of the same devices and an index over their states.

export { createDraCluster, DraCluster } from './cluster.js';
export type { DraAllocatedState, DraClaimAllocation, DraClusterInit, DraScheduleResult } from './cluster-init.js';
export { DEFAULT_NODE_SCORES, FRAGMENTATION_CANDIDATES, NODE_SCORES, type NodeScore } from './node-index.js';
