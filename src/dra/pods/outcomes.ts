// What scheduling pods yields and takes: each pod's outcome, each gang's, the placer that puts claims
// on nodes, and a pod ready to place (its claims and the filters that do not change).
import { AllocationError } from '../../shared/errors.js';
import type { DraExplanation } from '../allocator/index.js';
import type { AllocationResult, PodInfo } from '../objects/index.js';
import type { GangFilter, GangResult } from '../workloads/index.js';

/** A placement: the node index and one AllocationResult per claim, or why no node could take them. */
export type PlaceResult = { node: number; results: AllocationResult[]; message?: undefined; explain?: DraExplanation } | { node: -1; results?: undefined; message: string };

/** What places claims on nodes (a DraCluster): allocation together on one node, best first. */
export interface ClaimPlacer {
  /**
   * Allocates `claims` (ResourceClaim objects) together on one node among those `allowed` says
   * yes to, trying them in `order` (node indices) or, without one, in the placer's own order.
   * Claim errors (an unknown class, a CEL error …) throw AllocationError('DRA_REJECTED').
   */
  place(claims: unknown[], allowed: (k: number) => boolean, order?: readonly number[]): PlaceResult;
  /** Places a gang all or nothing (DraCluster.scheduleGroup), with the pods' filters beside their claims. */
  scheduleGroup(input: unknown, filter?: GangFilter): GangResult;
}

/** One claim of a pod in the outcome. */
export interface PodClaimOutcome {
  claim: string;
  /** The claim's allocation: made now, or the one it already had; null when the pod was not placed. */
  allocation: AllocationResult | null;
  /** The claim was made here (no such claim in the dump): from this template (`namespace/name`), or for the pod's extended resources. */
  generated?: { template?: string; podClaimName: string };
}

/** No node can take the pod now (kube-scheduler's wording: `0/48 nodes are available: …`). */
export type PodUnschedulableReason = { code: 'UNSCHEDULABLE'; message: string };
/** An object the pod needs is invalid: a claim or template the API server would refuse, a claim the allocator refuses (upstream's wording). */
export type PodInvalidReason = { code: 'INVALID'; message: string };
/** Why a pod (or a gang) was not placed. */
export type PodReason = PodUnschedulableReason | PodInvalidReason;

/** What every pod outcome has. */
interface PodOutcomeBase {
  /** `namespace/name`. */
  pod: string;
  claims: PodClaimOutcome[];
  /** The PodGroup (`namespace/name`) the pod names in spec.schedulingGroup. */
  group?: string;
}

/** A pod placed: its node and its claims' allocations; no reason. */
export interface PodPlaced extends PodOutcomeBase {
  node: string;
  reason?: undefined;
  nodes?: undefined;
  /** The objective's terms of the chosen allocation beside first-fit's on the same node (a placer asked to explain, scored mode). */
  explain?: DraExplanation;
}

/** A pod no node can take now. */
export interface PodUnschedulable extends PodOutcomeBase {
  node: null;
  reason: PodUnschedulableReason;
  /** Per node, why it was not chosen (only when asked for). */
  nodes?: Record<string, string>;
  explain?: undefined;
}

/** A pod not tried: an object it needs is invalid. */
export interface PodInvalid extends PodOutcomeBase {
  node: null;
  reason: PodInvalidReason;
  nodes?: undefined;
  explain?: undefined;
}

/** One pod's outcome: placed (`node`, no `reason`), or not (`node: null` and the reason: UNSCHEDULABLE or INVALID). */
export type PodOutcome = PodPlaced | PodUnschedulable | PodInvalid;

/** A pod's outcome while it is scheduled (schedulePods settles it into a PodOutcome). */
export interface PodDraft {
  pod: string;
  node: string | null;
  claims: PodClaimOutcome[];
  group?: string;
  reason?: PodReason;
  nodes?: Record<string, string>;
  explain?: DraExplanation;
}

/** A draft as the outcome it has become; a draft that is neither placed nor refused is a bug (INTERNAL). Keys keep their order. */
export function settlePod(d: PodDraft): PodOutcome {
  const { pod, node, claims, group, reason, nodes, explain } = d;
  const base = { pod, node, claims, ...(group !== undefined ? { group } : {}) };
  if (node !== null && reason === undefined) return { ...base, node, ...(explain !== undefined ? { explain } : {}) };
  if (node === null && reason?.code === 'UNSCHEDULABLE') return { ...base, node, reason, ...(nodes !== undefined ? { nodes } : {}) };
  if (node === null && reason?.code === 'INVALID') return { ...base, node, reason };
  throw new AllocationError('INTERNAL', `pod ${pod}: ${node === null ? 'neither placed nor refused' : 'placed with a reason'}`);
}

/** A pod ready to place: its claims to allocate, the resources DRA handles, and per node what does not change as pods are placed. */
export interface Prepared {
  pod: PodInfo;
  outcome: PodDraft;
  toAllocate: Array<{ label: string; object: unknown }>;
  skip: ReadonlySet<string>;
  /** Per node: the reason of NodeUnschedulable, NodeAffinity or TaintToleration, if one refuses it. */
  fixedReason: Array<string | undefined>;
  /** Per node: the pod's allocated claims can be used there. */
  claimsHere: boolean[];
}

/** What every PodGroup outcome has (the pods that name it are in PodSchedule.pods, each with `group`). */
interface GroupOutcomeBase {
  /** `namespace/name`. */
  group: string;
  /** The group's policy; `missing` when no PodGroup of that name is in the input. */
  policy: 'gang' | 'basic' | 'missing';
  minCount?: number;
  /** The node label every pod's node shares (spec.schedulingConstraints.topology[0].key). */
  topologyKey?: string;
  /** The group's pending pods, in queue order. */
  pods: string[];
  /** Pods of the group already bound to nodes (they count toward minCount). */
  bound: number;
  /** The search's step budget ran out (the best placement found was kept). */
  budgetExhausted?: boolean;
  /**
   * A placer asked to explain (scored mode): of the pods placed, on how many nodes the scored
   * allocation is better than first-fit's by the objective, and on how many as good (each pod's own
   * terms are its outcome's `explain`).
   */
  explain?: { better: number; asGood: number };
}

/** A gang placed: at least its minCount (bound pods counted); no reason. */
export interface GroupPlaced extends GroupOutcomeBase {
  /** Pods placed now. */
  placed: number;
  reason?: undefined;
}

/** A gang none of whose pods was placed, and why. */
export interface GroupNotPlaced extends GroupOutcomeBase {
  placed: 0;
  reason: PodReason;
}

/** One PodGroup's outcome: placed (`placed` pods, no `reason`), or not (`placed: 0` and the reason). */
export type GroupOutcome = GroupPlaced | GroupNotPlaced;

/** A group's outcome while its gang is placed (scheduleGang settles it). */
export interface GroupDraft extends GroupOutcomeBase {
  placed: number;
  reason?: PodReason;
}

/** A draft as the group's outcome; a reason beside placed pods is a bug (INTERNAL). Keys keep their order. */
export function settleGroup(d: GroupDraft): GroupOutcome {
  const { group, policy, pods, bound, placed, minCount, topologyKey, budgetExhausted, explain, reason } = d;
  const more = { ...(minCount !== undefined ? { minCount } : {}), ...(topologyKey !== undefined ? { topologyKey } : {}), ...(budgetExhausted !== undefined ? { budgetExhausted } : {}) };
  if (reason === undefined) return { group, policy, pods, bound, placed, ...more, ...(explain !== undefined ? { explain } : {}) };
  if (placed === 0) return { group, policy, pods, bound, placed, ...more, reason };
  throw new AllocationError('INTERNAL', `PodGroup ${d.group}: ${placed} pod(s) placed with a reason`);
}
