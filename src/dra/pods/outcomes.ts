// What scheduling pods yields and takes: each pod's outcome, each gang's, the placer that puts claims
// on nodes, and a pod ready to place (its claims and the filters that do not change).
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

/** One pod's outcome. */
export interface PodOutcome {
  pod: string;
  node: string | null;
  claims: PodClaimOutcome[];
  reason?: { code: 'UNSCHEDULABLE' | 'INVALID'; message: string };
  /** Per node, why it was not chosen (only when asked for). */
  nodes?: Record<string, string>;
  /** The PodGroup (`namespace/name`) the pod names in spec.schedulingGroup. */
  group?: string;
  /** The objective's terms of the chosen allocation beside first-fit's on the same node (a placer asked to explain, scored mode). */
  explain?: DraExplanation;
}

/** A pod ready to place: its claims to allocate, the resources DRA handles, and per node what does not change as pods are placed. */
export interface Prepared {
  pod: PodInfo;
  outcome: PodOutcome;
  toAllocate: Array<{ label: string; object: unknown }>;
  skip: ReadonlySet<string>;
  /** Per node: the reason of NodeUnschedulable, NodeAffinity or TaintToleration, if one refuses it. */
  fixedReason: Array<string | undefined>;
  /** Per node: the pod's allocated claims can be used there. */
  claimsHere: boolean[];
}

/** One PodGroup's outcome (the pods that name it are in PodSchedule.pods, each with `group`). */
export interface GroupOutcome {
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
  /** Pods placed now. */
  placed: number;
  /** Why none was placed. */
  reason?: { code: 'UNSCHEDULABLE' | 'INVALID'; message: string };
  /** The search's step budget ran out (the best placement found was kept). */
  budgetExhausted?: boolean;
  /**
   * A placer asked to explain (scored mode): of the pods placed, on how many nodes the scored
   * allocation is better than first-fit's by the objective, and on how many as good (each pod's own
   * terms are its outcome's `explain`).
   */
  explain?: { better: number; asGood: number };
}
