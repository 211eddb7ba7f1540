// The shapes partitions have: which counter sets form one parent, the share of its parent a
// partition takes, and the workload a node's own partitions make when the caller gives none. Read
// by the fragmentation term (partition-fragmentation.ts) and the objective's set-up.
import type { AllocationModel, Pool } from '../model/index.js';
import type { Device } from '../objects/index.js';

/** A claim shape of the workload: its weight and the candidates it could take. */
export interface WorkloadShape {
  /** Relative weight (any positive number; normalised to thousandths). */
  weight: number;
  /** Per candidate (first-fit index): 1 when a request of this shape may take it. */
  matches: Uint8Array;
  /** What each request of the claim takes (its first alternative): `count` devices among `matches`, or every one (`all`). Absent for the published shapes (a list of what may come, not claims). */
  requests?: ReadonlyArray<{ count: number; all: boolean; matches: Uint8Array }>;
}

/** A counter quantity as a double (a score's amount, not an admission check's). */
export function amount(q: { nanoValue(): bigint }): number {
  return Number(q.nanoValue()) / 1e9;
}

/** Counter sets of a pool joined when some device consumes from both: set name → its group's first name. */
export function counterSetRoots(pool: Pool): Map<string, string> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as string;
    return r;
  };
  for (const name of [...pool.counterSets.keys()].sort()) parent.set(name, name);
  for (const slices of [pool.deviceSlices, pool.otherSlices]) {
    for (const slice of slices) {
      for (const device of slice.devices) {
        const names = device.consumesCounters.map((u) => u.counterSet).filter((s) => parent.has(s));
        // k < names.length, and names[0] exists when the loop runs.
        for (let k = 1; k < names.length; k++) {
          const a = find(names[0]!);
          const b = find(names[k]!);
          if (a !== b) parent.set(a < b ? b : a, a < b ? a : b);
        }
      }
    }
  }
  const roots = new Map<string, string>();
  for (const name of parent.keys()) roots.set(name, find(name));
  return roots;
}

/**
 * The share of its parent a partition takes, in thousandths: the mean over the parent's counters
 * (those with a positive total) of the part it consumes. A MIG 1g slice of an H100 takes about a
 * ninth (its multiprocessors, engines, memory and one of eight memory slices), not all of it
 * because one memory-slice counter of 1 is used up; a counter whose total is 0 (`encoders`) is left out.
 */
export function partitionShare(pool: Pool, device: Device, roots: ReadonlyMap<string, string>): number {
  const firstUse = device.consumesCounters[0];
  if (firstUse === undefined) return 1000;
  const group = roots.get(firstUse.counterSet) ?? firstUse.counterSet;
  let sum = 0;
  let counters = 0;
  for (const [setName, set] of pool.counterSets) {
    if ((roots.get(setName) ?? setName) !== group) continue;
    for (const [name, total] of Object.entries(set.counters)) {
      const t = amount(total);
      if (t <= 0) continue;
      counters++;
      let used = 0;
      for (const use of device.consumesCounters) {
        const q = use.counterSet === setName ? use.counters[name] : undefined;
        if (q !== undefined) used += amount(q);
      }
      sum += Math.min(1, Math.max(0, used / t));
    }
  }
  return counters === 0 ? 1000 : Math.round((1000 * sum) / counters);
}

/** A partition's shape when the caller gives no workload: its consumption with placement-specific counter names folded (memory-slice-3 → memory-slice-#). */
function signature(device: Device): string {
  const parts: string[] = [];
  for (const use of device.consumesCounters) for (const [name, q] of Object.entries(use.counters)) parts.push(`${name.replace(/\d+$/, '#')}=${q.toString()}`);
  return parts.sort().join(',');
}

/** The default workload: every partition shape the node publishes, equally weighted. */
export function publishedShapes(model: AllocationModel): WorkloadShape[] {
  const bySignature = new Map<string, Uint8Array>();
  for (const c of model.candidates) {
    if (c.device.consumesCounters.length === 0 || c.shared) continue;
    const key = signature(c.device);
    let matches = bySignature.get(key);
    if (matches === undefined) {
      matches = new Uint8Array(model.candidates.length);
      bySignature.set(key, matches);
    }
    matches[c.index] = 1;
  }
  return [...bySignature.keys()].sort().map((key) => ({ weight: 1, matches: bySignature.get(key) as Uint8Array }));
}
