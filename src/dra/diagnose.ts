// Why claims cannot be allocated on a node, and a cheap proof of it before any search: a request
// that cannot get enough devices even with nothing else allocated in this call makes the claims
// infeasible, so the exponential search over the other requests is skipped. The proof is used only
// where it cannot change upstream's outcome (no selector or attribute error anywhere, no `All`
// request under a claim constraint, whose refusal upstream reports as an error).
import type { AllocationModel, RequestModel } from './model.js';
import type { SearchProgress } from './first-fit.js';
import { SearchState } from './state.js';

/** How many devices survive each filter for one request. */
export interface FilterCounts {
  /** Devices of complete, valid pools on the node. */
  onNode: number;
  /** Accepted by the class's and the request's selectors (and per-device node selection). */
  selected: number;
  /** Of those, not held by other claims and usable alone (taints, counters, capacity, constraints). */
  usable: number;
  /** A selector or attribute failed while counting (the counts are partial). */
  error?: string;
}

/** Counts candidates filter by filter for a request, on an empty search state. */
export function filterCounts(model: AllocationModel, request: RequestModel, state = new SearchState(model)): FilterCounts {
  const counts: FilterCounts = { onNode: model.candidates.length, selected: 0, usable: 0 };
  const indices = request.allDevices ?? model.candidates.map((c) => c.index);
  try {
    for (const index of indices) {
      if (!model.selectable(request, index)) continue;
      counts.selected++;
      const undo = state.take(request, index, false);
      if (undo === undefined) continue;
      counts.usable++;
      undo();
    }
  } catch (error) {
    counts.error = error instanceof Error ? error.message : String(error);
  }
  return counts;
}

function needed(request: RequestModel): string {
  return request.allMode ? `all ${request.count} matching device(s)` : `${request.count} device(s)`;
}

function describe(model: AllocationModel, request: RequestModel): string {
  const c = filterCounts(model, request);
  const head = `${needed(request)} of class ${request.deviceClass.name}: ${c.onNode} device(s) on node ${model.node.name}, ${c.selected} match the selectors, ${c.usable} free and usable`;
  return c.error === undefined ? head : `${head} (counting stopped: ${c.error})`;
}

/** The reason message for claims the search could not allocate. */
export function unschedulableReason(model: AllocationModel, furthest: SearchProgress): string {
  const claim = model.claims[furthest.claimIndex];
  const group = claim.groups[furthest.requestIndex];
  const request = group.alternatives[0];
  const parts = group.firstAvailable ? group.alternatives.map((a) => `${a.name}: ${describe(model, a)}`).join('; ') : describe(model, request);
  return `claim ${claim.label}, request ${request.base}: cannot be satisfied together with the requests before it; needs ${parts}`;
}

/**
 * A reason when some request can never get its devices on this node, or undefined when that cannot
 * be shown cheaply (then the search decides).
 */
export function provablyInfeasible(model: AllocationModel): string | undefined {
  for (const claim of model.claims) {
    if (claim.claim.constraints.length > 0 && claim.groups.some((g) => g.alternatives.some((a) => a.allMode))) return undefined;
  }
  const state = new SearchState(model);
  let reason: string | undefined;
  for (const claim of model.claims) {
    for (const group of claim.groups) {
      let feasible = false;
      const notes: string[] = [];
      for (const request of group.alternatives) {
        const counts = filterCounts(model, request, state);
        if (counts.error !== undefined) return undefined;
        const enough = request.allMode ? request.count > 0 && counts.usable === request.count : counts.usable >= request.count;
        if (enough) feasible = true;
        notes.push(`${group.firstAvailable ? `${request.name}: ` : ''}${needed(request)} of class ${request.deviceClass.name}: ${counts.onNode} device(s) on node ${model.node.name}, ${counts.selected} match the selectors, ${counts.usable} free and usable`);
      }
      if (!feasible && reason === undefined) reason = `claim ${claim.label}, request ${group.alternatives[0].base}: not enough devices; needs ${notes.join('; ')}`;
    }
  }
  return reason;
}
