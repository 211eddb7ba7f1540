// Placement sequences as witnesses for the offline bounds of bench/dra-quality-bound.ts: a plan (per
// arrival its placement, or none) is checked on the abstract fleet of bench/dra-mig-sim.ts (every
// placement fits; a claim left out has no placement anywhere, the protocol's must-place rule) and
// replayed through the engine (createDraCluster, first-fit, each claim pinned to the plan's devices
// by CEL selectors on the GPU's `uuid` / `parentUUID`, the profile and the placement's first memory
// slice): what the plan allocates is then reached by an actual run of the engine.
import { createDraCluster, DEFAULT_DRA_FEATURES } from '../src/dra/index.js';
import { type Fleet, H100_80GB, migDeviceName, type StreamClaim } from './dra-fleets/index.js';
import { actions, apply, GPUS_PER_NODE, H100_PROFILES, type SimAction, SimFleet, type SimShape, simShape } from './dra-mig-sim.js';

type Obj = Record<string, unknown>;

/** Per arrival the placement a sequence makes, or null when it leaves the claim out. */
export type Plan = Array<SimAction | null>;

/** Why a plan is not a valid run, or null; and what it allocates (GPUs). */
export function checkPlan(stream: readonly SimShape[], plan: Plan, nodes = 8): { allocated: number; error: string | null } {
  const f = new SimFleet(nodes);
  if (plan.length !== stream.length) return { allocated: 0, error: `plan has ${plan.length} steps for ${stream.length} claims` };
  for (let i = 0; i < stream.length; i++) {
    const s = stream[i]!;
    const a = plan[i]!;
    if (a === null) {
      if (actions(f, s).length > 0) return { allocated: f.allocated, error: `arrival ${i} is left out but has a placement` };
      continue;
    }
    const why = invalid(f, s, a);
    if (why !== null) return { allocated: f.allocated, error: `arrival ${i}: ${why}` };
    apply(f, s, a);
  }
  return { allocated: f.allocated, error: null };
}

function invalid(f: SimFleet, s: SimShape, a: SimAction): string | null {
  const onNode = a.gpus.every((g) => Math.floor(g / GPUS_PER_NODE) === a.node && g >= 0 && g < f.nodes * GPUS_PER_NODE);
  if (!onNode || a.gpus.length !== s.count || new Set(a.gpus).size !== a.gpus.length) return `GPUs ${a.gpus.join(',')} are not ${s.count} of node ${a.node}`;
  if (s.kind === 'mig') return s.profile!.starts.includes(a.start) && f.fitsMig(a.gpus[0]!, s.profile!, a.start) ? null : `${s.profile!.name} does not fit GPU ${a.gpus[0]} at slice ${a.start}`;
  if (!a.gpus.every((g) => f.free(g))) return `GPUs ${a.gpus.join(',')} are not all free`;
  if (s.kind === 'pair' && f.nic[a.node * 4 + ((a.gpus[0]! % GPUS_PER_NODE) >> 1)] === 1) return `the NIC beside GPU ${a.gpus[0]} is taken`;
  return null;
}

/** The `uuid` attribute of every whole GPU of the fleet, keyed `node index × 8 + minor`. */
function gpuUuids(fleet: Fleet): string[] {
  const names = fleet.nodes.map((n) => (n.metadata as { name: string }).name);
  const out: string[] = [];
  for (const s of fleet.slices) {
    const spec = s.spec as { driver: string; nodeName?: string; devices?: Array<{ name: string; attributes?: Record<string, { string?: string }> }> };
    if (spec.driver !== 'gpu.nvidia.com') continue;
    for (const d of spec.devices ?? []) {
      const m = /^gpu-(\d+)$/.exec(d.name);
      const uuid = d.attributes?.uuid?.string;
      if (m === null || uuid === undefined) continue;
      out[names.indexOf(spec.nodeName ?? '') * GPUS_PER_NODE + Number(m[1])] = uuid;
    }
  }
  return out;
}

/** The claim of `c` pinned to the plan's devices (same requests, one more selector). */
function pinned(c: StreamClaim, a: SimAction, uuids: readonly string[]): Obj {
  const claim = structuredClone(c.claim);
  const requests = ((claim.spec as Obj).devices as { requests: Array<{ name: string; exactly: { selectors?: Obj[] } }> }).requests;
  const gpu = requests.find((r) => r.name === 'gpu' || r.name === 'mig')!;
  const list = a.gpus.map((g) => `'${uuids[g]}'`).join(', ');
  const s = simShape(c.shape);
  const expression =
    s.kind === 'mig'
      ? `device.attributes['gpu.nvidia.com'].parentUUID == ${list} && 'memorySlice${a.start}' in device.capacity['gpu.nvidia.com']`
      : `device.attributes['gpu.nvidia.com'].uuid in [${list}]`;
  gpu.exactly.selectors = [...(gpu.exactly.selectors ?? []), { cel: { expression } }];
  return claim;
}

/**
 * Replays a plan through the engine: each placed claim pinned to its devices must be scheduled on
 * the plan's node; each claim left out, unpinned, must find no node. Returns the GPUs allocated.
 */
export function replayPlanInEngine(fleet: Fleet, claims: readonly StreamClaim[], plan: Plan): { allocated: number; error: string | null } {
  const cluster = createDraCluster({ classes: fleet.classes, slices: fleet.slices, nodes: fleet.nodes, mode: 'first-fit', features: { ...DEFAULT_DRA_FEATURES, consumableCapacity: true } });
  const uuids = gpuUuids(fleet);
  const names = fleet.nodes.map((n) => (n.metadata as { name: string }).name);
  let allocated = 0;
  for (let i = 0; i < claims.length; i++) {
    const c = claims[i]!;
    const a = plan[i]!;
    const r = cluster.schedule(a === null ? c.claim : pinned(c, a, uuids));
    if (a === null) {
      if (r.node !== undefined) return { allocated, error: `arrival ${i} is left out but the engine places it on ${r.node}` };
      continue;
    }
    if (r.node !== names[a.node])
      return { allocated, error: `arrival ${i}: the engine ${r.node === undefined ? `finds no node (${JSON.stringify(r.reason)})` : `places it on ${r.node}`}, the plan on ${names[a.node]}` };
    const got = r.results[0]!.devices.results.filter((d) => d.driver === 'gpu.nvidia.com').map((d) => d.device);
    const want = a.gpus.map((g) => {
      const s = simShape(c.shape);
      const minor = g % GPUS_PER_NODE;
      return s.kind === 'mig' ? migDeviceName(minor, H100_80GB.profiles.find((p) => p.name === s.profile!.name)!, a.start) : `gpu-${minor}`;
    });
    if ([...got].sort().join() !== [...want].sort().join()) return { allocated, error: `arrival ${i}: the engine takes ${got.join(',')}, the plan ${want.join(',')}` };
    allocated += c.gpus;
  }
  return { allocated, error: null };
}

/**
 * A clairvoyant plan for streams of whole GPUs and MIG profiles without 1g slices: keep the last
 * node for the ×8 claims, put every 2g.20gb and 3g.40gb on a fresh GPU at memory slice 4, every
 * 4g.40gb beside one of them (slices 0–3) while one waits, else on a fresh GPU; whole GPUs take the
 * first free GPU outside the kept node (the kept node's once the others are full). A claim is left
 * out only when it has no placement at all.
 */
export function keepNodePairPlan(stream: readonly SimShape[], nodes = 8): Plan {
  const f = new SimFleet(nodes);
  const kept = nodes - 1;
  const gpus = nodes * GPUS_PER_NODE;
  const order = [...Array.from({ length: gpus - GPUS_PER_NODE }, (_, g) => g), ...Array.from({ length: GPUS_PER_NODE }, (_, g) => kept * GPUS_PER_NODE + g)];
  const plan: Plan = [];
  for (const s of stream) {
    let a: SimAction | null = null;
    const at = (gpu: number, start: number): SimAction => ({ node: Math.floor(gpu / GPUS_PER_NODE), gpus: [gpu], start });
    if (s.kind === 'gpu' && s.count === GPUS_PER_NODE) {
      for (let n = nodes - 1; n >= 0 && a === null; n--) {
        const free = Array.from({ length: GPUS_PER_NODE }, (_, i) => n * GPUS_PER_NODE + i).filter((g) => f.free(g));
        if (free.length === GPUS_PER_NODE) a = { node: n, gpus: free, start: 0 };
      }
    } else if (s.kind === 'mig' && s.profile!.name === '4g.40gb') {
      const beside = order.find((g) => f.mask[g] !== 0 && f.fitsMig(g, s.profile!, 0));
      const fresh = order.find((g) => f.free(g));
      const g = beside ?? fresh;
      if (g !== undefined) a = at(g, 0);
    } else if (s.kind === 'mig' && s.profile!.starts.includes(4)) {
      const g = order.find((x) => f.free(x)) ?? order.find((x) => f.fitsMig(x, s.profile!, 4));
      if (g !== undefined) a = at(g, 4);
    }
    if (a === null && s.kind !== 'gpu') {
      // Anything else (a 7g.80gb, a ×1 or a pair): the first placement in the kept order.
      const all = actions(f, s);
      const rank = (x: SimAction) => order.indexOf(x.gpus[0]!);
      if (all.length > 0) a = all.reduce((b, x) => (rank(x) < rank(b) ? x : b));
    }
    if (a === null && s.kind === 'gpu') {
      const free = order.filter((g) => f.free(g));
      const node = free.length > 0 ? Math.floor(free[0]! / GPUS_PER_NODE) : -1;
      const onNode = free.filter((g) => Math.floor(g / GPUS_PER_NODE) === node);
      if (onNode.length >= s.count) a = { node, gpus: onNode.slice(0, s.count), start: 0 };
    }
    if (a !== null) apply(f, s, a);
    plan.push(a);
  }
  return plan;
}

/** Node patterns as bench/dra-quality-bound.ts counts them: ×8, ×4, ×2, ×1, pairs, GPUs left for MIG. */
const PATTERN_SHAPES = ['gpu:8', 'gpu:4', 'gpu:2', 'gpu:1', 'pair'] as const;
const PATTERN_SIZES = [8, 4, 2, 1, 1];

/** One placement of each profile of a GPU configuration (counts per profile, H100_PROFILES order) on an empty GPU, or undefined. */
export function placeConfiguration(counts: readonly number[]): Array<{ profile: string; start: number }> | undefined {
  const profiles = Object.values(H100_PROFILES);
  const want = profiles.flatMap((p, i) => Array.from({ length: counts[i] ?? 0 }, () => p)).sort((a, b) => b.size - a.size || b.g - a.g);
  const f = new SimFleet(1);
  const out: Array<{ profile: string; start: number }> = [];
  const walk = (k: number, from: number): boolean => {
    if (k === want.length) return true;
    const p = want[k]!;
    // Equal profiles in increasing starts (each multiset of starts once).
    const min = k > 0 && want[k - 1] === p ? from : 0;
    for (const start of p.starts) {
      if (start < min || !f.fitsMig(0, p, start)) continue;
      f.placeMig(0, p, start);
      out.push({ profile: p.name, start });
      if (walk(k + 1, start + 1)) return true;
      out.pop();
      f.placeMig(0, p, start, -1);
    }
    return false;
  };
  return walk(0, 0) ? out : undefined;
}

/**
 * Realizes a final packing (the integer program's optimum of bench/dra-quality-bound.ts: per node
 * its pattern of whole-GPU claims, per MIG GPU its configuration) as a plan: each node's pairs on
 * GPUs 0, 2, 4, … (one per root, beside its NIC), its whole-GPU claims on the next free GPUs, its
 * MIG GPUs last; the earliest arrivals of each shape take the slots, the rest are left out. Every
 * placement is valid by construction (each slot is one claim's alone); checkPlan says whether every
 * claim left out indeed had no placement when it arrived.
 */
export function realizePlan(shapes: readonly string[], packing: { migGpus: readonly number[][]; nodes: readonly number[][] }): Plan {
  const slots = new Map<string, SimAction[]>();
  const push = (key: string, a: SimAction) => {
    const list = slots.get(key) ?? [];
    list.push(a);
    slots.set(key, list);
  };
  const migGpus: number[] = [];
  packing.nodes.forEach((pattern, n) => {
    const free = Array.from({ length: GPUS_PER_NODE }, (_, i) => n * GPUS_PER_NODE + i);
    for (let r = 0; r < pattern[4]!; r++) {
      push('pair', { node: n, gpus: [n * GPUS_PER_NODE + 2 * r], start: 0 });
      free.splice(free.indexOf(n * GPUS_PER_NODE + 2 * r), 1);
    }
    PATTERN_SHAPES.forEach((shape, i) => {
      if (shape === 'pair') return;
      for (let c = 0; c < pattern[i]!; c++) push(shape, { node: n, gpus: free.splice(0, PATTERN_SIZES[i]!), start: 0 });
    });
    migGpus.push(...free.slice(0, pattern[5]!));
  });
  packing.migGpus.forEach((counts, q) => {
    const gpu = migGpus[q];
    const placed = placeConfiguration(counts);
    if (gpu === undefined || placed === undefined) throw new Error(`realizePlan: MIG GPU ${q} has no room or no placement`);
    for (const { profile, start } of placed) push(`mig:${profile}`, { node: Math.floor(gpu / GPUS_PER_NODE), gpus: [gpu], start });
  });
  return shapes.map((s) => slots.get(s)?.shift() ?? null);
}
