// Polynomial proofs that claims cannot be allocated on a node, run by the scored search before it
// searches: (1) counts — the requests together need more distinct devices than a flow from requests
// to the devices each can use alone finds, where the partitions of one parent pass at most as many
// devices as the parent's counters hold together (its cheapest devices); (2) counter sums — the requests' cheapest
// possible consumption of a shared counter (or of a counter set in total) exceeds what the pool has
// left; (3) constraint groups — no single value of a matchAttribute attribute, or not enough
// distinct values of a distinctAttribute attribute, serves the requests the constraint covers.
// Each is a relaxation (it ignores some rule), so "infeasible" here is always right; "maybe" leaves
// the answer to the search. Skipped where upstream would report an error instead (selector or
// attribute errors, `All` under a claim constraint).
// Device numbers here are candidate indexes (`model.candidates[i]!`, `parentOf[i]!`, `classOf[i]!`:
// in range by construction); flow nodes and edges index the arrays `matchable` sizes for them.
import { type AllocationModel, lookupAttribute, type RequestModel } from '../model/index.js';
import type { AttributeValue } from '../objects/index.js';
import { CandidateTopology } from './objective.js';
import { SearchState } from './search-state.js';
import { type SymmetryClasses, symmetryClasses } from './symmetry.js';

/** One request (or the alternatives of one firstAvailable request) as the checks see it. */
interface GroupFacts {
  claimIndex: number;
  alternatives: Array<{ request: RequestModel; usable: number[] }>;
}

/**
 * Candidates each request can use with nothing else allocated in this call (judged once per class
 * of interchangeable devices); undefined on any selector or attribute error.
 */
function usableDevices(model: AllocationModel, classes: SymmetryClasses): GroupFacts[] | undefined {
  const state = new SearchState(model);
  const out: GroupFacts[] = [];
  try {
    for (const claim of model.claims) {
      for (const group of claim.groups) {
        // A request group has at least one alternative (the model builds none empty).
        const facts: GroupFacts = { claimIndex: group.alternatives[0]!.claimIndex, alternatives: [] };
        for (const request of group.alternatives) {
          const usable: number[] = [];
          const indices = request.allDevices ?? model.candidates.map((c) => c.index);
          const verdict = new Map<number, boolean>();
          for (const index of indices) {
            const cls = classes.classOf[index]!;
            let ok = verdict.get(cls);
            if (ok === undefined) {
              ok = model.selectable(request, index) && (request.adminAccess || !state.inUse(index));
              if (ok) {
                const undo = state.take(request, index, false);
                ok = undo !== undefined;
                if (undo !== undefined) undo();
              }
              verdict.set(cls, ok);
            }
            if (ok) usable.push(index);
          }
          facts.alternatives.push({ request, usable });
        }
        out.push(facts);
      }
    }
  } catch {
    return undefined;
  }
  return out;
}

/** Units of a request to match: `need` devices out of `devices` (exclusive devices only). */
interface Demand {
  need: number;
  devices: number[];
}

/** Most devices of each parent that fit its counters together, and the parent of each candidate. */
interface Parents {
  of: Int32Array;
  cap: Map<number, number>;
}

/**
 * Whether every demand can get its devices: a flow from requests through devices (one unit each)
 * to their parents, where a parent carrying partitions passes at most as many devices as its
 * counters can hold together. Augmenting paths (Ford-Fulkerson): O(units × edges).
 */
function matchable(demands: readonly Demand[], parents: Parents): boolean {
  const deviceNode = new Map<number, number>();
  const parentNode = new Map<number, number>();
  let n = 2 + demands.length;
  for (const d of demands) {
    for (const i of d.devices) {
      if (!deviceNode.has(i)) deviceNode.set(i, n++);
      const p = parents.of[i]!;
      if (!parentNode.has(p)) parentNode.set(p, n++);
    }
  }
  const head = new Int32Array(n).fill(-1);
  const to: number[] = [];
  const cap: number[] = [];
  const next: number[] = [];
  const edge = (u: number, v: number, c: number): void => {
    for (const [a, b, k] of [[u, v, c] as const, [v, u, 0] as const]) {
      to.push(b);
      cap.push(k);
      next.push(head[a]!);
      head[a] = to.length - 1;
    }
  };
  let total = 0;
  demands.forEach((d, r) => {
    edge(0, 2 + r, d.need);
    total += d.need;
    for (const i of d.devices) edge(2 + r, deviceNode.get(i) as number, 1);
  });
  for (const [i, node] of deviceNode) edge(node, parentNode.get(parents.of[i]!) as number, 1);
  for (const [p, node] of parentNode) edge(node, 1, parents.cap.get(p) ?? 1);
  let seen = new Uint8Array(n);
  const augment = (u: number): boolean => {
    if (u === 1) return true;
    seen[u] = 1;
    // u < n nodes; e an edge (head and next hold edge numbers, -1 ends a list); edges come in pairs e, e ^ 1.
    for (let e = head[u]!; e >= 0; e = next[e]!) {
      const v = to[e]!;
      if (cap[e]! > 0 && seen[v] === 0 && augment(v)) {
        cap[e]!--;
        cap[e ^ 1]!++;
        return true;
      }
    }
    return false;
  };
  for (let flow = 0; flow < total; flow++) {
    seen = new Uint8Array(n);
    if (!augment(0)) return false;
  }
  return true;
}

/** The demand of a request on exclusive devices: shares of multi-allocatable devices serve one unit each. */
function demandOf(model: AllocationModel, request: RequestModel, usable: readonly number[], keep: (index: number) => boolean = () => true): Demand {
  const devices = usable.filter((i) => keep(i) && !model.candidates[i]!.shared);
  const shared = usable.filter((i) => keep(i) && model.candidates[i]!.shared).length;
  return { need: Math.max(0, request.count - shared), devices };
}

/** What other claims left of every counter: `pool\0set\0counter` (and `pool\0set\0` for the set's total). */
function countersLeft(model: AllocationModel): Map<string, bigint> {
  const left = new Map<string, bigint>();
  for (const pool of model.pools) {
    if (pool.incomplete || pool.invalid) continue;
    for (const [name, set] of pool.counterSets) {
      let sum = 0n;
      for (const [counter, q] of Object.entries(set.counters)) {
        left.set(counterKey(pool.id, name, counter), q.nanoValue());
        sum += q.nanoValue();
      }
      left.set(counterKey(pool.id, name, ''), sum);
    }
    for (const slices of [pool.deviceSlices, pool.otherSlices]) {
      for (const slice of slices) {
        for (const device of slice.devices) {
          if (!model.allocatedElsewhere(`${pool.driver}/${pool.name}/${device.name}`)) continue;
          for (const use of device.consumesCounters) {
            for (const [counter, q] of Object.entries(use.counters)) {
              for (const k of [counterKey(pool.id, use.counterSet, counter), counterKey(pool.id, use.counterSet, '')]) {
                const have = left.get(k);
                if (have !== undefined) left.set(k, have - q.nanoValue());
              }
            }
          }
        }
      }
    }
  }
  return left;
}

function counterKey(pool: string, set: string, counter: string): string {
  return `${pool}\u0000${set}\u0000${counter}`;
}

/** Per parent, the most of the given devices its counters hold together (a plain device: 1). */
function parentCaps(model: AllocationModel, placement: CandidateTopology, devices: Iterable<number>, left: Map<string, bigint>): Parents {
  const members = new Map<number, number[]>();
  for (const i of devices) {
    if (model.candidates[i]!.shared) continue;
    const p = placement.parentOf[i]!;
    members.set(p, [...(members.get(p) ?? []), i]);
  }
  const cap = new Map<number, number>();
  for (const [p, list] of members) {
    let most = list.length;
    const use = new Map<string, bigint[]>();
    list.forEach((i, at) => {
      const c = model.candidates[i]!;
      for (const u of c.device.consumesCounters) {
        for (const [counter, q] of Object.entries(u.counters)) {
          const k = counterKey(c.pool.id, u.counterSet, counter);
          if (!use.has(k)) use.set(k, new Array<bigint>(list.length).fill(0n));
          // at < list.length, the array's size.
          (use.get(k) as bigint[])[at]! += q.nanoValue();
        }
      }
    });
    for (const [k, amounts] of use) {
      const have = left.get(k);
      if (have === undefined) continue;
      const sorted = [...amounts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      let sum = 0n;
      let fit = 0;
      while (fit < sorted.length && sum + sorted[fit]! <= have) sum += sorted[fit++]!;
      most = Math.min(most, fit);
    }
    cap.set(p, most);
  }
  return { of: placement.parentOf, cap };
}

function fixed(group: GroupFacts): { request: RequestModel; usable: number[] } | undefined {
  return group.alternatives.length === 1 ? group.alternatives[0]! : undefined;
}

/** (1) Counts: the requests without alternatives and without admin access, matched together. */
function countsCheck(model: AllocationModel, groups: readonly GroupFacts[], caps: (devices: Iterable<number>) => Parents): string | undefined {
  const chosen = groups.map(fixed).filter((f): f is { request: RequestModel; usable: number[] } => f !== undefined && !f.request.adminAccess);
  const demands = chosen.map((f) => demandOf(model, f.request, f.usable));
  if (matchable(demands, caps(demands.flatMap((d) => d.devices)))) return undefined;
  const total = chosen.reduce((s, f) => s + f.request.count, 0);
  const distinct = new Set(chosen.flatMap((f) => f.usable)).size;
  // The counters are named only where some of the devices consume counters.
  const counted = chosen.some((f) => f.usable.some((i) => model.candidates[i]!.device.consumesCounters.length > 0));
  const within = counted ? ' within the shared counters of their parents' : '';
  return `the requests need ${total} device(s) together, but no assignment of distinct devices serves them${within} (${distinct} device(s) could serve some request alone)`;
}

/** (2) Counter sums: the cheapest consumption of each counter (and of each counter set in total) against what is left. */
function countersCheck(model: AllocationModel, groups: readonly GroupFacts[]): string | undefined {
  if (!model.features.partitionableDevices) return undefined;
  const left = countersLeft(model);
  const key = counterKey;
  // The least each request consumes of each counter: its `count` cheapest usable devices.
  const needed = new Map<string, bigint>();
  for (const group of groups) {
    let least: Map<string, bigint> | undefined;
    for (const { request, usable } of group.alternatives) {
      const bound = leastConsumption(model, request, usable, key);
      if (least === undefined) least = bound;
      else for (const k of new Set([...least.keys(), ...bound.keys()])) least.set(k, min(least.get(k) ?? 0n, bound.get(k) ?? 0n));
    }
    for (const [k, v] of least ?? []) needed.set(k, (needed.get(k) ?? 0n) + v);
  }
  for (const [k, need] of [...needed].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const have = left.get(k);
    if (have === undefined || need <= have) continue;
    const [pool, set, counter] = k.split('\u0000');
    const what = counter === '' ? `counter set ${set} (all counters together)` : `counter ${counter} of counter set ${set}`;
    return `the requests consume at least ${nanoText(need)} of ${what} in pool ${pool}, but only ${nanoText(have)} is left`;
  }
  return undefined;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function nanoText(n: bigint): string {
  const whole = n / 1_000_000_000n;
  const frac = n % 1_000_000_000n;
  return frac === 0n ? String(whole) : `${n}n`;
}

function leastConsumption(model: AllocationModel, request: RequestModel, usable: readonly number[], key: typeof counterKey): Map<string, bigint> {
  const perDevice = new Map<string, bigint[]>();
  const exclusive = usable.filter((i) => !model.candidates[i]!.shared);
  exclusive.forEach((index, at) => {
    const c = model.candidates[index]!;
    for (const use of c.device.consumesCounters) {
      for (const [counter, q] of Object.entries(use.counters)) {
        for (const k of [key(c.pool.id, use.counterSet, counter), key(c.pool.id, use.counterSet, '')]) {
          let list = perDevice.get(k);
          if (list === undefined) {
            list = new Array<bigint>(exclusive.length).fill(0n);
            perDevice.set(k, list);
          }
          list[at]! += q.nanoValue(); // at < exclusive.length, the list's size
        }
      }
    }
  });
  // Shares of multi-allocatable devices may serve units without consuming counters again.
  const units = request.allMode ? request.count : Math.max(0, request.count - (usable.length - exclusive.length));
  const out = new Map<string, bigint>();
  for (const [k, list] of perDevice) {
    const sorted = [...list].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    let sum = 0n;
    for (let i = 0; i < Math.min(units, sorted.length); i++) sum += sorted[i]!;
    if (sum > 0n) out.set(k, sum);
  }
  return out;
}

/** Values of an attribute as typed keys; undefined when the device lacks it or it does not take part. */
function attributeKeys(value: AttributeValue | undefined, listTypes: boolean): string[] | 'error' | undefined {
  if (value === undefined) return undefined;
  const v = value as Record<string, unknown>;
  const version = (s: string): string => (s.includes('+') ? s.slice(0, s.indexOf('+')) : s);
  if ('int' in v) return [`int:${String(v.int)}`];
  if ('bool' in v) return [`bool:${String(v.bool)}`];
  if ('string' in v) return [`string:${v.string as string}`];
  if ('version' in v) return [`version:${version(v.version as string)}`];
  const lists: Array<[string, (x: unknown) => string]> = [
    ['ints', (x) => `int:${String(x)}`],
    ['bools', (x) => `bool:${String(x)}`],
    ['strings', (x) => `string:${x as string}`],
    ['versions', (x) => `version:${version(x as string)}`],
  ];
  for (const [name, format] of lists) if (name in v) return listTypes ? (v[name] as unknown[]).map(format) : undefined;
  return 'error';
}

/** (3) Constraint groups: one shared value for matchAttribute, enough distinct values for distinctAttribute. */
function constraintsCheck(model: AllocationModel, groups: readonly GroupFacts[], caps: (devices: Iterable<number>) => Parents): string | undefined {
  for (const claim of model.claims) {
    const claimIndex = model.claims.indexOf(claim);
    const mine = groups.filter((g) => g.claimIndex === claimIndex);
    for (const constraint of claim.claim.constraints) {
      const attribute = constraint.matchAttribute ?? constraint.distinctAttribute;
      if (attribute === undefined) continue;
      const names = new Set(constraint.requests);
      const covered = mine.map(fixed).filter((f): f is { request: RequestModel; usable: number[] } => f !== undefined && (names.size === 0 || names.has(f.request.base) || names.has(f.request.name)));
      if (covered.length === 0) continue;
      const keysOf = new Map<number, string[]>();
      for (const f of covered) {
        for (const index of f.usable) {
          const c = model.candidates[index]!;
          const keys = attributeKeys(lookupAttribute(c.device, c.driver, attribute), model.features.listTypeAttributes);
          if (keys === 'error') return undefined;
          if (keys !== undefined) keysOf.set(index, keys);
        }
      }
      const values = [...new Set([...keysOf.values()].flat())].sort();
      if (constraint.matchAttribute !== undefined) {
        const fits = values.some((value) => {
          const demands = covered.map((f) => demandOf(model, f.request, f.usable, (i) => keysOf.get(i)?.includes(value) === true));
          return matchable(demands, caps(demands.flatMap((d) => d.devices)));
        });
        if (!fits) return `claim ${claim.label}: no single value of ${attribute} is shared by enough devices for the requests its matchAttribute constraint covers`;
        continue;
      }
      // distinctAttribute: each device needs its own value (a device without the attribute cannot serve); each key list below has one value.
      if ([...keysOf.values()].some((k) => k.length !== 1)) continue;
      const valueIndex = new Map(values.map((v, i) => [v, i]));
      const demands = covered.map((f) => ({
        need: f.request.count,
        devices: [...new Set(f.usable.filter((i) => keysOf.has(i)).map((i) => valueIndex.get((keysOf.get(i) as string[])[0]!) as number))],
      }));
      if (!matchable(demands, { of: Int32Array.from(values, (_, i) => i), cap: new Map() })) {
        const total = covered.reduce((s, f) => s + f.request.count, 0);
        return `claim ${claim.label}: its distinctAttribute constraint on ${attribute} needs ${total} different values, the usable devices have ${values.length}`;
      }
    }
  }
  return undefined;
}

/**
 * A reason when the claims provably cannot be allocated on the node, or undefined when the search
 * must decide. Polynomial: one pass of selectors per request and device, then matchings.
 */
export function infeasibleReason(model: AllocationModel, classes: SymmetryClasses = symmetryClasses(model), placement?: CandidateTopology): string | undefined {
  for (const claim of model.claims) {
    if (claim.claim.constraints.length > 0 && claim.groups.some((g) => g.alternatives.some((a) => a.allMode))) return undefined;
  }
  const groups = usableDevices(model, classes);
  if (groups === undefined) return undefined;
  const left = countersLeft(model);
  const parents = placement ?? new CandidateTopology(model);
  const caps = (devices: Iterable<number>): Parents => parentCaps(model, parents, devices, left);
  return countsCheck(model, groups, caps) ?? countersCheck(model, groups) ?? constraintsCheck(model, groups, caps);
}
