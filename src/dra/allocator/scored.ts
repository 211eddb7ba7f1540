// The scored search: branch and bound over the same choices first-fit makes (claims, requests,
// firstAvailable alternatives, devices), keeping the allocation with the lowest objective
// (objective.ts). Interchangeable devices — same pool, slice placement and device fields but the
// name and the attributes nothing reads, same allocated state — form one class (symmetry.ts), and a
// request takes from a class only its first free member, so symmetric allocations are tried once. Devices of one request come from classes in a
// fixed order (the cheapest first), never going back to an earlier class: combinations, not
// permutations. A branch is cut when the requests left cannot get enough free devices, or when the
// terms of the objective that only grow already exceed the best allocation's. A step budget bounds
// the work; when it runs out the best allocation found so far is returned and marked.
import { ALLOCATION_RESULTS_MAX_SIZE, type AllocationModel, type RequestModel } from '../model/index.js';
import { provablyInfeasible, unschedulableReason } from './diagnose.js';
import { infeasibleReason } from './feasibility.js';
import { firstFit, type SearchProgress } from './first-fit.js';
import { type AllocatedBase, CandidateTopology, compareObjective, type DraObjective, ObjectiveTracker } from './objective.js';
import type { PairingSupply } from './partition-pairing.js';
import type { WorkloadShape } from './partition-shapes.js';
import { CounterSlots, SearchState } from './search-state.js';
import { type SymmetryClasses, symmetryClasses } from './symmetry.js';
import type { TopologySetup } from './topology-setup.js';

/** Steps (device picks tried) the scored search takes at most unless the request says otherwise. */
export const DEFAULT_SCORED_BUDGET = 20_000;

/** Steps of the first, short search (decideScored): most feasible claims end within it, before any proof runs. */
const QUICK_SEARCH_STEPS = 256;

/** One pick of the best allocation, replayed into a fresh state at the end. */
interface Pick {
  request: RequestModel;
  index: number;
  must: boolean;
}

/** The outcome of the scored search. */
export interface ScoredOutcome {
  /** A state holding the best allocation, or undefined when none was found. */
  state?: SearchState;
  chosen: number[][];
  furthest: SearchProgress;
  steps: number;
  /** The budget ran out: the allocation is the best found, not proven best (or none was found in time). */
  budgetExhausted: boolean;
  objective?: DraObjective;
  /**
   * The search met something upstream reports as an error (a selector or attribute error, a refused
   * `All` device) or the claim limit: whether that is the outcome depends on the order in which
   * first-fit meets it, so the caller asks first-fit.
   */
  orderDependent: boolean;
}

/** Runs the scored search with at most `budget` steps. */
export function scoredSearch(
  model: AllocationModel,
  budget: number,
  classes: SymmetryClasses = symmetryClasses(model),
  placement: CandidateTopology = new CandidateTopology(model),
  counters: CounterSlots = new CounterSlots(model),
): ScoredOutcome {
  const state = new SearchState(model, counters);
  const tracker = new ObjectiveTracker(placement, model.claims.length);
  const { members } = classes;
  const chosen = model.claims.map((c) => c.groups.map(() => 0));
  // Alternatives chosen for firstAvailable requests, in claim and request order.
  const alternatives: number[] = [];
  const furthest: SearchProgress = { claimIndex: 0, requestIndex: 0, subRequestIndex: -1 };
  const trail: Pick[] = [];
  let best: { picks: Pick[]; chosen: number[][]; objective: DraObjective } | undefined;
  let steps = 0;
  let exhausted = false;
  let orderDependent = false;

  const reach = (request: RequestModel): void => {
    if (request.claimIndex > furthest.claimIndex || (request.claimIndex === furthest.claimIndex && request.requestIndex > furthest.requestIndex)) {
      furthest.claimIndex = request.claimIndex;
      furthest.requestIndex = request.requestIndex;
      furthest.subRequestIndex = request.subRequestIndex;
    }
  };
  /** No completion of the picks so far can beat the best. */
  const hopeless = (): boolean => best !== undefined && tracker.cannotBeat(best.objective, alternatives, alternatives.length);
  /** take() where an error upstream would report ends this branch (and marks the outcome order-dependent). */
  const tryTake = (request: RequestModel, index: number, must: boolean): (() => void) | undefined => {
    try {
      if (!request.allMode && !model.selectable(request, index)) return undefined;
      if (!request.allMode && model.features.consumableCapacity && !state.capacityFits(request, index)) return undefined;
      return state.take(request, index, must);
    } catch {
      orderDependent = true;
      return undefined;
    }
  };
  const budgetLeft = (): boolean => {
    if (steps >= budget) exhausted = true;
    steps++;
    return !exhausted;
  };

  const claimStep = (claimIndex: number, requestIndex: number): void => {
    if (exhausted) return;
    if (claimIndex >= model.claims.length) {
      const objective = tracker.snapshot(alternatives);
      if (best === undefined || compareObjective(objective, best.objective) < 0) best = { picks: [...trail], chosen: chosen.map((c) => [...c]), objective };
      return;
    }
    // claimIndex < claims, requestIndex < the claim's groups, s < the group's alternatives (checked here).
    const claim = model.claims[claimIndex]!;
    if (requestIndex >= claim.groups.length) return claimStep(claimIndex + 1, 0);
    const group = claim.groups[requestIndex]!;
    const chosenOfClaim = chosen[claimIndex]!;
    for (let s = 0; s < group.alternatives.length; s++) {
      const request = group.alternatives[s]!;
      reach(request);
      if (state.picked[claimIndex]!.length + request.count > ALLOCATION_RESULTS_MAX_SIZE) {
        orderDependent = true;
        continue;
      }
      chosenOfClaim[requestIndex] = s;
      if (group.firstAvailable) alternatives.push(s);
      if (!hopeless()) {
        if (request.allMode) allStep(request, 0);
        else devicesStep(request, request.count, orderFor(request), 0);
      }
      if (group.firstAvailable) alternatives.pop();
      if (exhausted) return;
    }
  };

  const allStep = (request: RequestModel, at: number): void => {
    const devices = request.allDevices as number[];
    if (devices.length === 0) return;
    if (at >= devices.length) return claimStep(request.claimIndex, request.requestIndex + 1);
    if (!budgetLeft()) return;
    const index = devices[at]!; // at < devices.length
    const undo = tryTake(request, index, true);
    if (undo === undefined) return;
    push(request, index, true);
    if (!hopeless()) allStep(request, at + 1);
    pop();
    undo();
  };

  const push = (request: RequestModel, index: number, must: boolean): void => {
    tracker.push(request.claimIndex, request, index);
    trail.push({ request, index, must });
  };
  const pop = (): void => {
    tracker.pop();
    trail.pop();
  };

  /**
   * Per request, the classes it may take from in this search, in class order: those whose members
   * its selectors accept (or fail on: the take meets the error then) and, unless it asks for admin
   * access, that have a member other claims do not hold and fit their pool's counters alone. Members
   * of a class are alike to every selector and draw alike on one pool, so the first speaks for all
   * (and the members of a class other claims hold are all held); a class left out could give no
   * take in this search, so it is left out of the request's slots, unpreviewed.
   */
  const selectable = new Map<RequestModel, number[]>();
  const selectableClasses = (request: RequestModel): number[] => {
    let list = selectable.get(request);
    if (list === undefined) {
      list = [];
      for (let cls = 0; cls < members.length; cls++) {
        const slot = members[cls]!; // cls < members.length
        const first = slot[0]!; // no class is empty
        let ok: boolean;
        let failed = false;
        try {
          ok = model.selectable(request, first);
        } catch {
          ok = failed = true;
        }
        if (ok && !failed && !request.adminAccess && !model.candidates[first]!.shared)
          ok = counters.fitsAlone(first) && slot.some((index) => !model.allocated.devices.has(model.candidates[index]!.id));
        if (ok) list.push(cls);
      }
      selectable.set(request, list);
    }
    return list;
  };

  /**
   * The slots the request takes devices from, cheapest first (then first-fit order): one slot per
   * class, or per device for admin access (which may reuse devices other claims hold, so members of a
   * class are not interchangeable then).
   */
  const orderFor = (request: RequestModel): number[][] => {
    const keyed: Array<{ cls: number; first: number; key: [number, number, number, number] }> = [];
    for (const cls of selectableClasses(request)) {
      const first = members[cls]![0]!; // no class is empty (symmetryClasses makes a class with its first member)
      keyed.push({ cls, first, key: tracker.preview(request.claimIndex, request, first) });
    }
    keyed.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2] || a.key[3] - b.key[3] || a.first - b.first);
    return request.adminAccess ? keyed.flatMap((k) => members[k.cls]!.map((index) => [index])) : keyed.map((k) => members[k.cls]!);
  };

  const free = (request: RequestModel, index: number): boolean => (request.adminAccess ? !state.takenByClaim(index, request.claimIndex) : !state.inUse(index));

  /** The first member of a slot the request can take now, or -1. */
  const firstFree = (request: RequestModel, slot: readonly number[]): number => {
    for (const index of slot) if (free(request, index)) return index;
    return -1;
  };

  /** Whether the slots from `pos` on still hold `need` devices the request may take. */
  const enoughLeft = (request: RequestModel, need: number, order: readonly number[][], pos: number): boolean => {
    let count = 0;
    for (let p = pos; p < order.length && count < need; p++) {
      for (const index of order[p]!) {
        if (!free(request, index)) continue;
        let ok: boolean;
        try {
          ok = model.selectable(request, index);
        } catch {
          ok = true;
        }
        if (ok) count++;
      }
    }
    return count >= need;
  };

  const devicesStep = (request: RequestModel, need: number, order: readonly number[][], pos: number): void => {
    if (need === 0) return claimStep(request.claimIndex, request.requestIndex + 1);
    if (!enoughLeft(request, need, order, pos)) return;
    for (let p = pos; p < order.length; p++) {
      const index = firstFree(request, order[p]!); // p < order.length
      if (index < 0) continue;
      if (!budgetLeft()) return;
      const undo = tryTake(request, index, false);
      if (undo === undefined) continue;
      push(request, index, false);
      // The same slot again (its next free member), unless the device is a share: one per request.
      const next = model.candidates[index]!.shared || request.adminAccess ? p + 1 : p;
      if (!hopeless()) devicesStep(request, need - 1, order, next);
      pop();
      undo();
      if (exhausted) return;
    }
  };

  claimStep(0, 0);
  if (best === undefined) return { chosen, furthest, steps, budgetExhausted: exhausted, orderDependent };
  // Replay the best allocation into a fresh state (takes re-check everything and rebuild consumption).
  const final = new SearchState(model, counters);
  for (const pick of best.picks) {
    if (final.take(pick.request, pick.index, pick.must) === undefined) throw new Error(`scored search: replay of ${model.candidates[pick.index]!.id} failed`);
  }
  return { state: final, chosen: best.chosen, furthest, steps, budgetExhausted: exhausted, objective: best.objective, orderDependent };
}

/** What the scored mode decides: an allocation (state and alternatives) or the reason there is none. */
export type ScoredDecision =
  | { state: SearchState; chosen: number[][]; objective?: DraObjective; budgetExhausted: boolean; steps: number }
  | { state?: undefined; reason: string; budgetExhausted: boolean; steps: number };

/**
 * The scored mode: the search, and where it finds nothing, the per-request counts (the check
 * first-fit mode makes before its search: refusing a claim the search would place is beyond them,
 * so only a refusal needs them) and the polynomial proofs. Where the search met an error upstream reports or the claim limit, first-fit decides
 * whether that error is the outcome (it throws then); the allocation is still the scored one.
 */
export function decideScored(model: AllocationModel, budget: number, setup?: TopologySetup, shapes?: readonly WorkloadShape[], base?: AllocatedBase, supply?: PairingSupply): ScoredDecision {
  const placement = new CandidateTopology(model, setup, shapes, base, supply);
  const classes = symmetryClasses(model, placement.setup.symmetry, placement.classesByState, placement.held);
  // The search first, on a small budget: where it ends within it (an allocation, or none anywhere) the
  // proofs cannot change the allocation, and only a refusal asks them for its reason. Otherwise the
  // proofs, then the search on the whole budget, as if the short one had not run.
  // The searches and the replay share what the candidates draw on the counters.
  const counters = placement.counterSlots;
  let outcome = scoredSearch(model, Math.min(budget, QUICK_SEARCH_STEPS), classes, placement, counters);
  if (outcome.state === undefined || (outcome.budgetExhausted && budget > QUICK_SEARCH_STEPS)) {
    const counted = outcome.state === undefined ? provablyInfeasible(model) : undefined;
    if (counted !== undefined) return { reason: counted, budgetExhausted: false, steps: 0 };
    const proof = infeasibleReason(model, classes, placement);
    if (proof !== undefined) return { reason: proof, budgetExhausted: false, steps: 0 };
    if (outcome.budgetExhausted && budget > QUICK_SEARCH_STEPS) outcome = scoredSearch(model, budget, classes, placement, counters);
  }
  if (outcome.orderDependent) {
    const upstream = firstFit(model);
    if (outcome.state === undefined) {
      if (upstream.state !== undefined) return { state: upstream.state, chosen: upstream.chosen, budgetExhausted: outcome.budgetExhausted, steps: outcome.steps + upstream.steps };
      return { reason: unschedulableReason(model, upstream.furthest), budgetExhausted: outcome.budgetExhausted, steps: outcome.steps + upstream.steps };
    }
  }
  if (outcome.state !== undefined) return { state: outcome.state, chosen: outcome.chosen, objective: outcome.objective, budgetExhausted: outcome.budgetExhausted, steps: outcome.steps };
  if (outcome.budgetExhausted) {
    return {
      reason: `the scored search used its budget of ${budget} steps without finding an allocation (not proven impossible; raise budget or use mode 'first-fit')`,
      budgetExhausted: true,
      steps: outcome.steps,
    };
  }
  return { reason: unschedulableReason(model, outcome.furthest), budgetExhausted: false, steps: outcome.steps };
}
