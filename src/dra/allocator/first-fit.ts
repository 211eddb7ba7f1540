// Upstream's search, choice for choice: claims in order, requests in order, firstAvailable
// alternatives in order, devices in pool/slice/device order, depth first with backtracking, and
// the first complete solution wins. Within one request devices are tried in increasing order only
// (combinations, not permutations). Over 32 results in a claim backtracks to a smaller alternative.

import { ALLOCATION_RESULTS_MAX_SIZE, type AllocationModel, type RequestModel } from '../model/index.js';
import { draError } from '../objects/index.js';
import { SearchState } from './search-state.js';

/** Outcome of one search step. */
const enum Step {
  Done,
  Failed,
  /** Every way on from here exceeds the 32-result limit of a claim. */
  TooMany,
}

/** Where a search got furthest before failing: the request it could not complete. */
export interface SearchProgress {
  claimIndex: number;
  requestIndex: number;
  subRequestIndex: number;
}

/** A finished search: the state holding the picks, or undefined when there is no solution. */
export interface SearchOutcome {
  state?: SearchState;
  /** Alternative chosen per claim and request (index into its alternatives). */
  chosen: number[][];
  /** The furthest request reached (for the reason of a failure). */
  furthest: SearchProgress;
  /** allocateOne steps taken (upstream counts the same steps). */
  steps: number;
}

/** Runs first-fit on the model. Throws AllocationError where upstream's search errors. */
export function firstFit(model: AllocationModel): SearchOutcome {
  const state = new SearchState(model);
  const chosen = model.claims.map((c) => c.groups.map(() => 0));
  const furthest: SearchProgress = { claimIndex: 0, requestIndex: 0, subRequestIndex: -1 };
  let steps = 0;
  const reach = (claimIndex: number, requestIndex: number, subRequestIndex: number): void => {
    if (claimIndex > furthest.claimIndex || (claimIndex === furthest.claimIndex && requestIndex > furthest.requestIndex)) {
      furthest.claimIndex = claimIndex;
      furthest.requestIndex = requestIndex;
      furthest.subRequestIndex = subRequestIndex;
    }
  };

  const one = (claimIndex: number, requestIndex: number, sub: number, deviceIndex: number, inSub: boolean, start: number): Step => {
    steps++;
    if (claimIndex >= model.claims.length) return Step.Done;
    // claimIndex < claims and requestIndex < groups (checked here), sub < the group's alternatives,
    // deviceIndex < request.count (an All request's count is its device list's length).
    const claim = model.claims[claimIndex]!;
    if (requestIndex >= claim.groups.length) {
      const next = one(claimIndex + 1, 0, 0, 0, false, 0);
      // Another claim over the limit is no reason to give up on this claim's other choices.
      return next === Step.TooMany ? Step.Failed : next;
    }
    const group = claim.groups[requestIndex]!;
    if (!inSub && group.firstAvailable) {
      let allTooMany = true;
      for (let s = 0; s < group.alternatives.length; s++) {
        const step = one(claimIndex, requestIndex, s, 0, true, 0);
        if (step === Step.TooMany) continue;
        allTooMany = false;
        if (step === Step.Done) {
          chosen[claimIndex]![requestIndex] = s;
          return Step.Done;
        }
      }
      return allTooMany ? Step.TooMany : Step.Failed;
    }
    const request: RequestModel = group.alternatives[group.firstAvailable ? sub : 0]!;
    reach(claimIndex, requestIndex, request.subRequestIndex);
    if (request.allMode && (request.allDevices as number[]).length === 0) return Step.Failed;
    if (deviceIndex >= request.count) return one(claimIndex, requestIndex + 1, 0, 0, false, 0);
    if (state.picked[claimIndex]!.length + request.count - deviceIndex > ALLOCATION_RESULTS_MAX_SIZE) return Step.TooMany;
    if (request.allMode) {
      const undo = state.take(request, (request.allDevices as number[])[deviceIndex]!, true);
      if (undo === undefined) return Step.Failed;
      const step = one(claimIndex, requestIndex, sub, deviceIndex + 1, inSub, 0);
      if (step !== Step.Done) undo();
      return step;
    }
    const n = model.candidates.length;
    for (let index = start; index < n; index++) {
      if (request.adminAccess ? state.takenByClaim(index, claimIndex) : state.inUse(index)) continue;
      if (!model.selectable(request, index)) continue;
      if (model.features.consumableCapacity && !state.capacityFits(request, index)) continue;
      const undo = state.take(request, index, false);
      if (undo === undefined) continue;
      const step = one(claimIndex, requestIndex, sub, deviceIndex + 1, inSub, index + 1);
      if (step === Step.Done) return Step.Done;
      undo();
      if (step === Step.TooMany) return Step.TooMany;
    }
    return Step.Failed;
  };

  const step = one(0, 0, 0, 0, false, 0);
  if (step === Step.TooMany) {
    const label = model.claims[furthest.claimIndex]?.label ?? '';
    throw draError('DRA_REJECTED', `claim ${label}: every choice of devices exceeds the claim limit of ${ALLOCATION_RESULTS_MAX_SIZE} results`);
  }
  return step === Step.Done ? { state, chosen, furthest, steps } : { chosen, furthest, steps };
}
