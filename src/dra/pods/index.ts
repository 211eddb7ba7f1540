// The pods sub-room's front: a cluster dump's pending pods scheduled as kube-scheduler schedules
// them (queue order, the claims of a pod found or made from their templates, the default filters
// and NodeResourcesFit's score, the claims placed together on one node by a ClaimPlacer), and the
// pods of a gang PodGroup placed together, all or nothing.

export { filterFit, filterNodeAffinity, filterTaints, filterUnschedulable, fitErrorMessage, leastAllocatedScore, type NodeUsage } from './filters.js';
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
  PodUnschedulable,
} from './outcomes.js';
export type { KnownClaim, PodNodeOrder, PodSchedule, PodScheduling } from './scheduling.js';
export { isPending, POD_CLAIM_NAME_ANNOTATION, podOwnerOf, queueOrder, schedulePods } from './scheduling.js';
