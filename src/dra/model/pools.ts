// Resource pools as the allocator sees them from one node: the slices that reach the node, grouped
// by (driver, pool), the newest generation only, checked for completeness and validity, and ordered
// as upstream orders them (pools by driver then name, pools with binding conditions last; slices by
// name), which is the order in which first-fit tries devices.

import type { CounterSet, Device, Node, Quantity, ResourceSlice } from '../objects/index.js';
import type { ResolvedFeatures } from './features.js';
import { nodeMatches } from './node-match.js';

/** One pool reachable from the node. */
export interface Pool {
  driver: string;
  name: string;
  /** `driver/pool`. */
  id: string;
  /** Not all slices of the current generation are there: nothing is allocated from it; `All` fails. */
  incomplete: boolean;
  /** For an incomplete pool: how many slices of its generation are there, and how many it announces (`resourceSliceCount`). */
  slices?: { found: number; expected: number };
  /** Malformed (duplicate device or counter set names, unknown counters): nothing is allocated from it. */
  invalid: boolean;
  invalidReason?: string;
  /** Slices with devices that may be used on the node, sorted by name. */
  deviceSlices: ResourceSlice[];
  /** Slices of the pool that do not reach the node (their allocated devices still consume counters). */
  otherSlices: ResourceSlice[];
  /** Counter sets by name (partitionable devices). */
  counterSets: Map<string, CounterSet>;
  /** Some device of the pool has binding conditions (such pools are tried last). */
  hasBindingConditions: boolean;
}

/** Whether a slice names its node(s) at slice level. */
function sliceSelectsNodes(slice: ResourceSlice): boolean {
  return slice.nodeName !== undefined || slice.allNodes === true || slice.nodeSelector !== undefined;
}

/** The pools reachable from `node`, in first-fit order. Throws DRA_REJECTED for a malformed node selector. */
export function gatherPools(allSlices: readonly ResourceSlice[], node: Node, features: ResolvedFeatures): Pool[] {
  // Slices on other nodes are not even looked at, except to judge whether a pool is complete.
  const forNode = allSlices.filter((s) => s.nodeName === undefined || s.nodeName === node.name);
  const byPool = new Map<string, ResourceSlice[]>();
  const add = (slice: ResourceSlice): void => {
    const key = poolKey(slice);
    const current = byPool.get(key);
    const generation = current?.[0]?.pool.generation;
    if (current === undefined || generation === undefined || slice.pool.generation > generation) byPool.set(key, [slice]);
    else if (slice.pool.generation === generation) current.push(slice);
  };
  for (const slice of forNode) {
    if (!features.partitionableDevices && (slice.perDeviceNodeSelection !== undefined || slice.sharedCounters.length > 0)) continue;
    if (slice.sharedCounters.length > 0) add(slice);
    else if (sliceSelectsNodes(slice)) {
      if (nodeMatches(node, slice.nodeName, slice.allNodes, slice.nodeSelector, `slice ${slice.name}`)) add(slice);
    } else if (slice.perDeviceNodeSelection === true) {
      if (slice.devices.some((d) => nodeMatches(node, d.nodeName, d.allNodes, d.nodeSelector, `device ${d.name} in slice ${slice.name}`))) add(slice);
    }
  }
  const pools: Pool[] = [];
  for (const slices of byPool.values()) {
    const first = slices[0]!; // every list in byPool starts with one slice
    const count = first.pool.resourceSliceCount;
    if (slices.length === count) {
      pools.push(buildPool(first.driver, first.pool.name, slices, undefined, features));
      continue;
    }
    // Some slices may have been left out above because they do not reach the node: look at all.
    const all: ResourceSlice[] = [];
    let obsolete = false;
    for (const s of allSlices) {
      if (s.driver !== first.driver || s.pool.name !== first.pool.name) continue;
      if (s.pool.generation === first.pool.generation) all.push(s);
      else if (s.pool.generation > first.pool.generation) obsolete = true;
    }
    // A newer generation exists that has no slice for this node: the old devices are gone.
    if (obsolete) continue;
    if (all.length !== count) pools.push({ ...emptyPool(first.driver, first.pool.name, { incomplete: true }), slices: { found: all.length, expected: count } });
    else pools.push(buildPool(first.driver, first.pool.name, slices, all, features));
  }
  pools.sort((a, b) => Number(a.hasBindingConditions) - Number(b.hasBindingConditions) || compareText(a.driver, b.driver) || compareText(a.name, b.name));
  return pools;
}

function poolKey(slice: ResourceSlice): string {
  return JSON.stringify([slice.driver, slice.pool.name]);
}

/** Plain code-unit order (Go's string comparison for ASCII names). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function emptyPool(driver: string, name: string, flags: { incomplete?: boolean }): Pool {
  return { driver, name, id: `${driver}/${name}`, incomplete: flags.incomplete === true, invalid: false, deviceSlices: [], otherSlices: [], counterSets: new Map(), hasBindingConditions: false };
}

function buildPool(driver: string, name: string, slices: ResourceSlice[], all: ResourceSlice[] | undefined, features: ResolvedFeatures): Pool {
  const pool = emptyPool(driver, name, {});
  // Counter sets belong to the whole pool, wherever their slice is published.
  const counterSlices = features.partitionableDevices ? (all ?? slices).filter((s) => s.sharedCounters.length > 0) : [];
  for (const slice of slices) {
    if (slice.devices.length > 0 || !features.partitionableDevices) pool.deviceSlices.push(slice);
  }
  pool.deviceSlices.sort((a, b) => compareText(a.name, b.name));
  pool.hasBindingConditions = pool.deviceSlices.some((s) => s.devices.some((d) => d.bindingConditions.length > 0));
  const invalid = (reason: string): Pool => ({ ...pool, invalid: true, invalidReason: reason });
  const names = new Set<string>();
  for (const slice of pool.deviceSlices) {
    for (const device of slice.devices) {
      if (names.has(device.name)) return invalid(`duplicate device name ${device.name}`);
      names.add(device.name);
    }
  }
  if (!features.partitionableDevices) return pool;
  for (const slice of counterSlices) {
    for (const set of slice.sharedCounters) {
      if (pool.counterSets.has(set.name)) return invalid(`duplicate counter set name ${set.name}`);
      pool.counterSets.set(set.name, set);
    }
  }
  const unknown = unknownCounter(pool.counterSets, slices);
  if (unknown !== undefined) return invalid(unknown);
  if (all !== undefined && all.length !== slices.length) {
    const seen = new Set(slices);
    pool.otherSlices = all.filter((s) => !seen.has(s) && s.devices.length > 0);
    const other = unknownCounter(pool.counterSets, pool.otherSlices);
    if (other !== undefined) return invalid(other);
  }
  return pool;
}

/** The first consumption of a counter set or counter the pool does not define, as upstream words it. */
function unknownCounter(sets: Map<string, CounterSet>, slices: readonly ResourceSlice[]): string | undefined {
  for (const slice of slices) {
    for (const device of slice.devices) {
      for (const use of device.consumesCounters) {
        const set = sets.get(use.counterSet);
        if (set === undefined) return `counter set ${use.counterSet} not found`;
        for (const counter of Object.keys(use.counters)) if (!(counter in set.counters)) return `counter ${counter} not found in counter set ${set.name}`;
      }
    }
  }
  return undefined;
}

/** Whether a device of a per-device-node-selection slice reaches the node. */
export function deviceReachesNode(slice: ResourceSlice, device: Device, node: Node): boolean {
  if (slice.perDeviceNodeSelection !== true) return true;
  return nodeMatches(node, device.nodeName, device.allNodes, device.nodeSelector, `device ${device.name} in slice ${slice.name}`);
}

/** What the devices `held` picks leave of one pool's counters (AllocationModel.countersLeft). */
export interface PoolCountersLeft {
  /** Counter set → counter → amount left (may be negative). */
  readonly counters: ReadonlyMap<string, ReadonlyMap<string, Quantity>>;
  /** Some counter is below zero: nothing drawing on the pool's counters fits. */
  readonly overdrawn: boolean;
}

/** The pool's counters less what every device `held` says is in use consumes from them. */
export function poolCountersLeft(pool: Pool, held: (device: Device) => boolean): PoolCountersLeft {
  const counters = new Map<string, Map<string, Quantity>>();
  for (const [name, set] of pool.counterSets) counters.set(name, new Map(Object.entries(set.counters)));
  for (const slices of [pool.deviceSlices, pool.otherSlices]) {
    for (const slice of slices) {
      for (const device of slice.devices) {
        if (device.consumesCounters.length === 0 || !held(device)) continue;
        for (const use of device.consumesCounters) {
          const set = counters.get(use.counterSet);
          if (set === undefined) continue;
          for (const [name, q] of Object.entries(use.counters)) {
            const have = set.get(name);
            if (have !== undefined) set.set(name, have.sub(q));
          }
        }
      }
    }
  }
  let overdrawn = false;
  for (const set of counters.values()) for (const q of set.values()) if (q.sign() < 0) overdrawn = true;
  return { counters, overdrawn };
}
