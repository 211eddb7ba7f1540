// The DRA page's picture of a cluster's GPUs, read from its ResourceSlices (no DOM): each counter set
// (a GPU whose partitions draw on shared counters) and each device that consumes no counters is one
// GPU; its placements are the devices drawing on it. Given the devices in use, it says what each
// GPU's counters have left, which placements they still allow, and how much of each GPU is
// allocated. The page draws this; the replay sums it over the fleet.
import { parseBytes } from '../../src/index.ts';

/** What a device takes from one counter set: counter name → amount. */
export type Consumption = ReadonlyMap<string, number>;

/** A device that can be allocated on a GPU: a partition, the whole GPU, or a device with no counters. */
export interface Placement {
  /** `driver/pool/device`, as allocation results and `allocatedDevices` name it. */
  id: string;
  /** The device's name. */
  name: string;
  /** The row it is drawn in: the MIG profile, else the counters it takes, else `device`. */
  profile: string;
  /** Counter set key (`driver/pool/set`) → what it takes there. */
  consumes: ReadonlyMap<string, Consumption>;
  /** The bar positions it covers: slice indices (layout 'slices'), else [from, from + amount) in the bar's unit. */
  span: readonly [number, number] | undefined;
}

/** One GPU as the page draws it. */
export interface Gpu {
  /** `driver/pool/set` for a counter set, else the device's `driver/pool/device`. */
  key: string;
  /** The node whose slice published it; undefined for pools shared between nodes. */
  node: string | undefined;
  /** The counter set's or the device's name. */
  name: string;
  /**
   * How the bar is drawn: 'slices' (one counter per memory slice, each of 1: placements sit where
   * NVIDIA's DynamicMIG places them), 'amount' (one memory counter with a total: partitions stack),
   * 'whole' (a device without counters: one unit).
   */
  layout: 'slices' | 'amount' | 'whole';
  /** Units in the bar (memory slices, or the bar counter's total). */
  units: number;
  /** The counter the bar shows ('amount'), or the slice counters in bar order ('slices'). */
  barCounters: readonly string[];
  /** The counter set's counters and their totals (empty for 'whole'). */
  capacity: ReadonlyMap<string, number>;
  placements: readonly Placement[];
}

/** The GPUs of a dump, node by node in node order (shared pools last). */
export interface GpuMap {
  gpus: readonly Gpu[];
  /** Device ID → the GPU drawn for it. */
  gpuOf: ReadonlyMap<string, Gpu>;
}

/** A GPU's state for a set of devices in use. */
export interface GpuState {
  /** Counter → what is in use. */
  used: ReadonlyMap<string, number>;
  /** Bar units in use (0..units). */
  usedUnits: number;
  /** Placement ID → 'used' (allocated), 'free' (its counters allow it) or 'blocked' (they no longer do). */
  placement: ReadonlyMap<string, 'used' | 'free' | 'blocked'>;
}

type RawSlice = {
  spec?: { driver?: string; pool?: { name?: string }; nodeName?: string; sharedCounters?: Array<{ name: string; counters?: Record<string, { value?: string }> }>; devices?: RawDevice[] };
};
type RawDevice = { name: string; attributes?: Record<string, Record<string, unknown>>; consumesCounters?: Array<{ counterSet: string; counters?: Record<string, { value?: string }> }> };

/** A counter's value as a number (plain integers and Kubernetes suffixes; anything else counts 0). */
export function counterValue(text: string | undefined): number {
  if (text === undefined) return 0;
  try {
    return parseBytes(text, 'counter');
  } catch {
    const n = Number(text);
    return Number.isFinite(n) ? n : 0;
  }
}

/** The memory-slice index of a counter named like `memory-slice-3`, `memorySlice3` or `memory_slice_3`. */
function sliceIndex(counter: string): number | undefined {
  const m = /^memory[-_]?slices?[-_]?(\d+)$/i.exec(counter);
  return m === null ? undefined : Number(m[1]);
}

/** The counter whose total the bar shows: memory slices, else memory, else the first. */
function barCounter(counters: readonly string[]): string | undefined {
  return counters.find((c) => /memor(y|ies)[-_]?slices?$/i.test(c)) ?? counters.find((c) => /memory/i.test(c)) ?? counters[0];
}

function profileOf(d: RawDevice, layoutCounters: readonly string[]): string {
  const attrs = d.attributes ?? {};
  const profile = attrs.profile?.string;
  if (typeof profile === 'string') return profile;
  const type = attrs.type?.string;
  if (type === 'gpu' || (d.consumesCounters ?? []).length === 0) return typeof type === 'string' ? type : 'device';
  const c = d.consumesCounters?.[0]?.counters ?? {};
  return layoutCounters.map((n) => `${n}=${c[n]?.value ?? 0}`).join(' ');
}

/** Reads the GPUs of a dump's slices; `nodes` gives the node order. */
export function readGpus(slices: readonly unknown[], nodes: readonly string[]): GpuMap {
  const sets = new Map<string, { node: string | undefined; name: string; capacity: Map<string, number> }>();
  const raw = slices as RawSlice[];
  for (const s of raw) {
    const spec = s.spec ?? {};
    for (const set of spec.sharedCounters ?? []) {
      const capacity = new Map(Object.entries(set.counters ?? {}).map(([k, v]) => [k, counterValue(v.value)] as const));
      sets.set(`${spec.driver}/${spec.pool?.name}/${set.name}`, { node: spec.nodeName, name: set.name, capacity });
    }
  }
  const gpus = new Map<string, Gpu & { placements: Placement[] }>();
  const gpuOf = new Map<string, Gpu>();
  for (const s of raw) {
    const spec = s.spec ?? {};
    for (const d of spec.devices ?? []) {
      const id = `${spec.driver}/${spec.pool?.name}/${d.name}`;
      const consumes = new Map<string, Consumption>();
      for (const c of d.consumesCounters ?? [])
        consumes.set(`${spec.driver}/${spec.pool?.name}/${c.counterSet}`, new Map(Object.entries(c.counters ?? {}).map(([k, v]) => [k, counterValue(v.value)] as const)));
      const first = d.consumesCounters?.[0];
      const setKey = first === undefined ? undefined : `${spec.driver}/${spec.pool?.name}/${first.counterSet}`;
      const set = setKey === undefined ? undefined : sets.get(setKey);
      let gpu: (Gpu & { placements: Placement[] }) | undefined;
      if (setKey !== undefined && set !== undefined) {
        gpu = gpus.get(setKey);
        if (gpu === undefined) {
          const names = [...set.capacity.keys()];
          const slices = names.filter((n) => sliceIndex(n) !== undefined && set.capacity.get(n) === 1).sort((a, b) => (sliceIndex(a) ?? 0) - (sliceIndex(b) ?? 0));
          const bar = barCounter(names);
          gpu =
            slices.length > 0
              ? { key: setKey, node: set.node, name: set.name, layout: 'slices', units: slices.length, barCounters: slices, capacity: set.capacity, placements: [] }
              : {
                  key: setKey,
                  node: set.node,
                  name: set.name,
                  layout: 'amount',
                  units: bar === undefined ? 1 : (set.capacity.get(bar) ?? 1),
                  barCounters: bar === undefined ? [] : [bar],
                  capacity: set.capacity,
                  placements: [],
                };
          gpus.set(setKey, gpu);
        }
      } else {
        gpu = { key: id, node: spec.nodeName, name: d.name, layout: 'whole', units: 1, barCounters: [], capacity: new Map(), placements: [] };
        gpus.set(id, gpu);
      }
      const own = consumes.get(gpu.key);
      let span: [number, number] | undefined;
      if (gpu.layout === 'whole') span = [0, 1];
      else if (gpu.layout === 'slices') {
        const at = gpu.barCounters.map((c, k) => ((own?.get(c) ?? 0) > 0 ? k : -1)).filter((k) => k >= 0);
        span = at.length === 0 ? undefined : [Math.min(...at), Math.max(...at) + 1];
      }
      gpu.placements.push({ id, name: d.name, profile: profileOf(d, gpu.layout === 'amount' ? [...gpu.capacity.keys()] : gpu.barCounters), consumes, span });
      gpuOf.set(id, gpu);
    }
  }
  const order = new Map(nodes.map((n, k) => [n, k]));
  const rank = (g: Gpu): number => (g.node === undefined ? nodes.length : (order.get(g.node) ?? nodes.length));
  const list = [...gpus.values()].sort((a, b) => rank(a) - rank(b));
  return { gpus: list, gpuOf };
}

/** Each GPU's state when `inUse` (device IDs) are allocated. */
export function gpuStates(map: GpuMap, inUse: Iterable<string>): Map<string, GpuState> {
  const usedSet = new Set(inUse);
  // What every counter set has in use (a device may draw on several sets).
  const used = new Map<string, Map<string, number>>();
  for (const id of usedSet) {
    const gpu = map.gpuOf.get(id);
    const p = gpu?.placements.find((x) => x.id === id);
    for (const [set, counters] of p?.consumes ?? []) {
      const m = used.get(set) ?? new Map<string, number>();
      for (const [c, n] of counters) m.set(c, (m.get(c) ?? 0) + n);
      used.set(set, m);
    }
  }
  const capacityOf = new Map<string, ReadonlyMap<string, number>>();
  for (const g of map.gpus) if (g.layout !== 'whole') capacityOf.set(g.key, g.capacity);
  const out = new Map<string, GpuState>();
  for (const g of map.gpus) {
    const mine = used.get(g.key) ?? new Map<string, number>();
    const placement = new Map<string, 'used' | 'free' | 'blocked'>();
    let wholeUsed = false;
    for (const p of g.placements) {
      if (usedSet.has(p.id)) {
        placement.set(p.id, 'used');
        wholeUsed = true;
        continue;
      }
      let fits = true;
      for (const [set, counters] of p.consumes) {
        const cap = capacityOf.get(set);
        const have = used.get(set);
        for (const [c, n] of counters) if ((have?.get(c) ?? 0) + n > (cap?.get(c) ?? 0)) fits = false;
      }
      placement.set(p.id, fits ? 'free' : 'blocked');
    }
    let usedUnits: number;
    if (g.layout === 'whole') usedUnits = wholeUsed ? 1 : 0;
    else if (g.layout === 'slices') usedUnits = g.barCounters.filter((c) => (mine.get(c) ?? 0) > 0).length;
    else usedUnits = Math.min(g.units, g.barCounters[0] === undefined ? 0 : (mine.get(g.barCounters[0]) ?? 0));
    out.set(g.key, { used: mine, usedUnits, placement });
  }
  return out;
}

/** Totals over some GPUs: how many, how many hold anything, the allocated share (Σ used units / units per GPU), placements left. */
export interface GpuTotals {
  gpus: number;
  busy: number;
  /** Σ over the GPUs of usedUnits / units: GPUs' worth allocated. */
  allocated: number;
  free: number;
  blocked: number;
}

/** Sums the states of the given GPUs. */
export function totals(gpus: readonly Gpu[], states: ReadonlyMap<string, GpuState>): GpuTotals {
  const t: GpuTotals = { gpus: 0, busy: 0, allocated: 0, free: 0, blocked: 0 };
  for (const g of gpus) {
    const st = states.get(g.key);
    if (st === undefined) continue;
    t.gpus++;
    if (st.usedUnits > 0) t.busy++;
    t.allocated += g.units > 0 ? st.usedUnits / g.units : 0;
    for (const v of st.placement.values()) {
      if (v === 'free') t.free++;
      else if (v === 'blocked') t.blocked++;
    }
  }
  return t;
}

/** Lays placements out in lanes: a placement goes in the first lane where its span overlaps nothing. */
export function lanes(placements: readonly Placement[]): Placement[][] {
  const out: Placement[][] = [];
  for (const p of placements) {
    const lane = p.span === undefined ? undefined : out.find((l) => l.every((q) => q.span === undefined || q.span[1] <= p.span![0] || p.span![1] <= q.span[0]));
    if (lane !== undefined) lane.push(p);
    else out.push([p]);
  }
  return out;
}
