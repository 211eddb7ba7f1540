// Why claims cannot be allocated on a node, and a cheap proof of it before any search: a request
// that cannot get enough devices even with nothing else allocated in this call makes the claims
// infeasible, so the exponential search over the other requests is skipped. The proof is used only
// where it cannot change upstream's outcome (no selector or attribute error anywhere, no `All`
// request under a claim constraint, whose refusal upstream reports as an error).
// Candidate indexes and a request's claim position read with `!`: the model made them.
import { type AllocationModel, lookupAttribute, type Pool, type RequestModel, taintPreventsAllocation } from '../model/index.js';
import type { AttributeValue, Quantity } from '../objects/index.js';
import type { SearchProgress } from './first-fit.js';
import { SearchState } from './search-state.js';

/** How many devices survive each filter for one request, filter after filter. */
export interface FilterCounts {
  /** Devices of complete, valid pools on the node (for `All`: the devices it collected). */
  onNode: number;
  /** Accepted by the class's selectors (and allowed binding conditions). */
  classMatch: number;
  /** Also accepted by the request's selectors and per-device node selection. */
  selected: number;
  /** Of those, not held by other claims (admin access: all). */
  free: number;
  /** Of those, without a NoSchedule/NoExecute taint the request does not tolerate. */
  untainted: number;
  /** Of those, usable alone: counters, capacity and the claim's constraints allow it. */
  usable: number;
  /** A selector or attribute failed while counting (the counts are partial). */
  error?: string;
  /** The usable devices (candidate indices), when asked for. */
  usableDevices?: number[];
}

/** Counts candidates filter by filter for a request, on an empty search state. */
export function filterCounts(model: AllocationModel, request: RequestModel, state = new SearchState(model), collect = false): FilterCounts {
  const indices = request.allDevices ?? model.candidates.map((c) => c.index);
  const counts: FilterCounts = { onNode: indices.length, classMatch: 0, selected: 0, free: 0, untainted: 0, usable: 0 };
  if (collect) counts.usableDevices = [];
  // Without constraints on the claim, a device that consumes no counters is usable when its capacity fits (all that take would check beyond the counts above).
  const unconstrained = state.constraints[request.claimIndex]!.length === 0;
  try {
    for (const index of indices) {
      // A selectable device matches its class too (selectable checks the class first, memoized):
      // the class's selectors alone are evaluated again only for devices the request refuses.
      const selected = model.selectable(request, index);
      if (!selected && !model.matchesClass(request, index)) continue;
      counts.classMatch++;
      if (!selected) continue;
      counts.selected++;
      if (!request.adminAccess && state.inUse(index)) continue;
      counts.free++;
      if (model.features.deviceTaints && taintPreventsAllocation(model.candidates[index]!.device.taints, request.body.tolerations)) continue;
      counts.untainted++;
      if (unconstrained && model.candidates[index]!.device.consumesCounters.length === 0) {
        if (model.features.consumableCapacity && !state.capacityFits(request, index)) continue;
        counts.usable++;
        counts.usableDevices?.push(index);
        continue;
      }
      const undo = state.take(request, index, false);
      if (undo === undefined) continue;
      counts.usable++;
      counts.usableDevices?.push(index);
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

/** The pools of the node that are incomplete, as `pool X: 8 of 9 slices` (their devices are not used until the driver publishes the rest). */
function incompletePools(model: AllocationModel): string {
  const notes = model.pools.filter((p) => p.incomplete).map((p) => `pool ${p.id}: ${p.slices?.found ?? 0} of ${p.slices?.expected ?? 0} slices`);
  return notes.length === 0 ? '' : ` (${notes.join(', ')}, not used until complete)`;
}

/**
 * The claim's constraints over the request whose attribute too few of the request's selected
 * devices have (a device without it cannot be allocated under the constraint), named.
 */
function constraintNotes(model: AllocationModel, request: RequestModel, c: FilterCounts): string {
  if (c.usable >= request.count || c.untainted === 0 || c.error !== undefined) return '';
  const indices = request.allDevices ?? model.candidates.map((d) => d.index);
  const notes: string[] = [];
  for (const spec of model.claims[request.claimIndex]!.constraintSpecs) {
    const covered = spec.requests.size === 0 || spec.requests.has(request.base) || (request.sub !== undefined && spec.requests.has(request.name));
    if (!covered) continue;
    let selected = 0;
    let having = 0;
    for (const index of indices) {
      if (!model.selectable(request, index)) continue;
      selected++;
      const d = model.candidates[index]!;
      if (lookupAttribute(d.device, d.driver, spec.attribute) !== undefined) having++;
    }
    if (having >= request.count) continue;
    const which = having === 0 ? `none of the ${selected} selected device(s) has` : `only ${having} of the ${selected} selected device(s) have`;
    notes.push(`constraint ${spec.kind}Attribute ${spec.attribute}: ${which} attribute ${spec.attribute}`);
  }
  return notes.length === 0 ? '' : `; ${notes.join('; ')}`;
}

function describeCounts(model: AllocationModel, request: RequestModel, c: FilterCounts): string {
  const head =
    `${needed(request)} of class ${request.deviceClass.name}: ${c.onNode} device(s) on node ${model.node.name}${incompletePools(model)}, ${c.classMatch} match the class, ` +
    `${c.selected} the request's selectors, ${c.free} free, ${c.untainted} untainted, ${c.usable} usable (counters, capacity, constraints)${constraintNotes(model, request, c)}`;
  return c.error === undefined ? head : `${head} (counting stopped: ${c.error})`;
}

function describe(model: AllocationModel, request: RequestModel): string {
  return describeCounts(model, request, filterCounts(model, request));
}

/** The reason message for claims the search could not allocate. */
export function unschedulableReason(model: AllocationModel, furthest: SearchProgress): string {
  // furthest names a request the search reached (a claim's group, which has at least one alternative).
  const claim = model.claims[furthest.claimIndex]!;
  const group = claim.groups[furthest.requestIndex]!;
  const request = group.alternatives[0]!;
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
      // What each alternative's note says, written only when the group is the reason.
      const found: Array<{ request: RequestModel; counts: FilterCounts; short: string | undefined }> = [];
      for (const request of group.alternatives) {
        const counts = filterCounts(model, request, state, true);
        if (counts.error !== undefined) return undefined;
        const enough = request.allMode ? request.count > 0 && counts.usable === request.count : counts.usable >= request.count;
        const usable = counts.usableDevices as number[];
        const short = enough ? (counterShortage(model, state, request, usable) ?? matchShortage(model, request, usable)) : undefined;
        if (enough && short === undefined) feasible = true;
        found.push({ request, counts, short });
      }
      if (!feasible && reason === undefined) {
        const notes = found.map(
          ({ request, counts, short }) => `${group.firstAvailable ? `${request.name}: ` : ''}${describeCounts(model, request, counts)}${short === undefined ? '' : `, but ${short}`}`,
        );
        reason = `claim ${claim.label}, request ${group.alternatives[0]!.base}: not enough devices; needs ${notes.join('; ')}`;
      }
    }
  }
  return reason;
}

/**
 * Whether the request's devices cannot fit a pool's shared counters: of the usable devices, those
 * that do not consume a counter can cover at most that many of the request's devices; the rest
 * consume at least the smallest amounts of it. Devices that allow multiple allocations count as not
 * consuming (a later share skips the counters). Returns what is short, or undefined.
 */
function counterShortage(model: AllocationModel, state: SearchState, request: RequestModel, usable: readonly number[]): string | undefined {
  const need = request.count;
  // (pool, counter set, counter) → amounts consumed by the usable devices that consume it.
  const uses = new Map<string, { pool: Pool; set: string; counter: string; amounts: Quantity[] }>();
  for (const index of usable) {
    const c = model.candidates[index]!;
    if (c.shared || c.device.consumesCounters.length === 0) continue;
    // One amount per device and counter (a device may name a counter set twice).
    const own = new Map<string, { set: string; counter: string; amount: Quantity }>();
    for (const use of c.device.consumesCounters) {
      for (const [counter, amount] of Object.entries(use.counters)) {
        // Names are DNS labels (no NUL): the key is unique per (pool, counter set, counter).
        const key = `${c.poolIndex}\u0000${use.counterSet}\u0000${counter}`;
        const have = own.get(key);
        own.set(key, { set: use.counterSet, counter, amount: have === undefined ? amount : have.amount.add(amount) });
      }
    }
    for (const [key, { set, counter, amount }] of own) {
      let entry = uses.get(key);
      if (entry === undefined) {
        entry = { pool: c.pool, set, counter, amounts: [] };
        uses.set(key, entry);
      }
      entry.amounts.push(amount);
    }
  }
  for (const { pool, set, counter, amounts } of uses.values()) {
    const forced = need - (usable.length - amounts.length);
    if (forced <= 0) continue;
    const left = state.countersLeft(pool).get(set)?.get(counter);
    if (left === undefined) continue;
    const smallest = [...amounts].sort((a, b) => a.compare(b)).slice(0, forced);
    const total = smallest.reduce((sum, q) => sum.add(q));
    if (total.compare(left) > 0) return `${forced} of them consume at least ${total.toString()} of counter ${counter} in counter set ${set} of pool ${pool.id}, which has ${left.toString()} left`;
  }
  return undefined;
}

/** The values an attribute offers for matching: one for a scalar, each element of a list. */
function matchKeys(value: AttributeValue): string[] {
  const v = value as Record<string, unknown>;
  for (const kind of ['int', 'bool', 'string', 'version'] as const) {
    if (kind in v) return [`${kind}:${String(v[kind])}`];
    const list = v[`${kind}s`];
    if (Array.isArray(list)) return [...new Set(list.map((x) => `${kind}:${String(x)}`))];
  }
  return [];
}

/**
 * Whether a matchAttribute constraint over the request rules it out: its devices must all share a
 * value of the attribute, so some value must be offered by at least as many usable devices as the
 * request needs. Returns what is short, or undefined.
 */
function matchShortage(model: AllocationModel, request: RequestModel, usable: readonly number[]): string | undefined {
  for (const spec of model.claims[request.claimIndex]!.constraintSpecs) {
    if (spec.kind !== 'match') continue;
    const covered = spec.requests.size === 0 || spec.requests.has(request.base) || (request.sub !== undefined && spec.requests.has(request.name));
    if (!covered) continue;
    const counts = new Map<string, number>();
    for (const index of usable) {
      const c = model.candidates[index]!;
      const value = lookupAttribute(c.device, c.driver, spec.attribute);
      if (value === undefined) continue;
      for (const key of matchKeys(value)) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const most = Math.max(0, ...counts.values());
    if (most < request.count) return `no value of attribute ${spec.attribute} is shared by ${request.count} of them (at most ${most})`;
  }
  return undefined;
}
