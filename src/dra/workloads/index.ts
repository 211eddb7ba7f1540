// The workloads sub-room's front: groups of pods placed together on a DRA cluster (gangs), all or
// nothing, with node-label topology. The cluster implements GangHost over its own state.

export type { GangFilter, GangHost, GangPlacement, GangPod, GangRequest, GangResult, GangTopology } from './gang.js';
export { DEFAULT_GANG_BUDGET, MAX_GANG_PODS, scheduleGroup } from './gang.js';
