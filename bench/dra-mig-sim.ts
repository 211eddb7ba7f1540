// An abstract model of the `h100-dynamic-mig` fleet of the placement-quality benchmark (8 nodes of
// 8 H100 80GB with DynamicMIG, two GPUs and one RDMA NIC per PCIe root), fast enough to replay a
// stream thousands of times: per GPU its memory slices (a bit mask), compute slices and
// multiprocessors in use, or taken whole; per root whether its NIC is taken. The counters NVIDIA's
// driver publishes reduce to these three (copy engines, decoders and JPEG engines follow the
// compute slices; memory follows the slices). Used by bench/dra-quality-bound.ts for the offline
// bounds and clairvoyant searches; first-fit here places every claim where upstream's allocator
// with the `pack` node order does (checked there against the benchmark's first-fit rows).

/** A MIG profile of the H100 80GB: compute slices, multiprocessors, memory slices, placement starts. */
export interface SimProfile {
  name: string;
  g: number;
  sm: number;
  size: number;
  starts: number[];
}

export const H100_PROFILES: Record<string, SimProfile> = {
  '1g.10gb': { name: '1g.10gb', g: 1, sm: 16, size: 1, starts: [0, 1, 2, 3, 4, 5, 6] },
  '1g.20gb': { name: '1g.20gb', g: 1, sm: 26, size: 2, starts: [0, 2, 4, 6] },
  '2g.20gb': { name: '2g.20gb', g: 2, sm: 32, size: 2, starts: [0, 2, 4] },
  '3g.40gb': { name: '3g.40gb', g: 3, sm: 60, size: 4, starts: [0, 4] },
  '4g.40gb': { name: '4g.40gb', g: 4, sm: 64, size: 4, starts: [0] },
  '7g.80gb': { name: '7g.80gb', g: 7, sm: 132, size: 8, starts: [0] },
};

export const GPUS_PER_NODE = 8;
export const ROOTS_PER_NODE = 4;
const SM_TOTAL = 132;
const G_TOTAL = 7;
/** Devices a node publishes: per GPU the whole GPU and 18 placements, and 4 NICs. */
const DEVICES_PER_GPU = 19;
const NODE_DEVICES = GPUS_PER_NODE * DEVICES_PER_GPU + ROOTS_PER_NODE;

/** A claim's shape: `mig:<profile>`, `gpu:<k>`, `pair`. */
export interface SimShape {
  kind: 'mig' | 'gpu' | 'pair';
  profile?: SimProfile;
  count: number;
  /** GPUs it counts for (compute slices / 7 for a profile). */
  mass: number;
}

export function simShape(shape: string): SimShape {
  const [kind, arg] = shape.split(':');
  if (kind === 'mig') {
    const profile = H100_PROFILES[arg!];
    if (profile === undefined) throw new Error(`unknown profile ${shape}`);
    return { kind: 'mig', profile, count: 1, mass: profile.g / 7 };
  }
  if (kind === 'gpu') return { kind: 'gpu', count: Number(arg), mass: Number(arg) };
  if (kind === 'pair') return { kind: 'pair', count: 1, mass: 1 };
  throw new Error(`shape ${shape} has no model here`);
}

/** The fleet's state: flat arrays, per GPU (node × 8 + minor) and per root (node × 4 + root). */
export class SimFleet {
  readonly whole: Uint8Array;
  readonly mask: Uint8Array;
  readonly g: Uint8Array;
  readonly sm: Uint16Array;
  readonly nic: Uint8Array;
  allocated = 0;

  constructor(readonly nodes: number) {
    this.whole = new Uint8Array(nodes * GPUS_PER_NODE);
    this.mask = new Uint8Array(nodes * GPUS_PER_NODE);
    this.g = new Uint8Array(nodes * GPUS_PER_NODE);
    this.sm = new Uint16Array(nodes * GPUS_PER_NODE);
    this.nic = new Uint8Array(nodes * ROOTS_PER_NODE);
  }

  clone(): SimFleet {
    const f = new SimFleet(this.nodes);
    f.whole.set(this.whole);
    f.mask.set(this.mask);
    f.g.set(this.g);
    f.sm.set(this.sm);
    f.nic.set(this.nic);
    f.allocated = this.allocated;
    return f;
  }

  /** A GPU nothing is on. */
  free(gpu: number): boolean {
    return this.whole[gpu] === 0 && this.mask[gpu] === 0;
  }

  fitsMig(gpu: number, p: SimProfile, start: number): boolean {
    if (this.whole[gpu] === 1) return false;
    const bits = ((1 << p.size) - 1) << start;
    return (this.mask[gpu]! & bits) === 0 && this.g[gpu]! + p.g <= G_TOTAL && this.sm[gpu]! + p.sm <= SM_TOTAL;
  }

  placeMig(gpu: number, p: SimProfile, start: number, sign = 1): void {
    const bits = ((1 << p.size) - 1) << start;
    this.mask[gpu] = sign > 0 ? this.mask[gpu]! | bits : this.mask[gpu]! & ~bits;
    this.g[gpu]! += sign * p.g;
    this.sm[gpu]! += sign * p.sm;
    this.allocated += (sign * p.g) / 7;
  }

  /** Devices of node n another claim could still take alone, as the node index counts its load. */
  load(n: number): number {
    let available = 0;
    for (let i = 0; i < GPUS_PER_NODE; i++) {
      const gpu = n * GPUS_PER_NODE + i;
      if (this.free(gpu)) available++;
      for (const p of Object.values(H100_PROFILES)) for (const s of p.starts) if (this.fitsMig(gpu, p, s)) available++;
    }
    for (let r = 0; r < ROOTS_PER_NODE; r++) if (this.nic[n * ROOTS_PER_NODE + r] === 0) available++;
    return 1 - available / NODE_DEVICES;
  }

  /** Nodes most loaded first (ties: node order), as `pack` orders them. */
  packOrder(): number[] {
    const loads = Array.from({ length: this.nodes }, (_, n) => this.load(n));
    return loads.map((_, n) => n).sort((a, b) => loads[b]! - loads[a]! || a - b);
  }
}

/** One placement of a claim: for MIG a GPU and a start; for whole GPUs the GPUs; for a pair its GPU (its root's NIC). */
export interface SimAction {
  node: number;
  gpus: number[];
  start: number;
}

export function apply(f: SimFleet, s: SimShape, a: SimAction, sign = 1): void {
  if (s.kind === 'mig') {
    f.placeMig(a.gpus[0]!, s.profile!, a.start, sign);
    return;
  }
  for (const gpu of a.gpus) f.whole[gpu] = sign > 0 ? 1 : 0;
  if (s.kind === 'pair') f.nic[a.node * ROOTS_PER_NODE + ((a.gpus[0]! % GPUS_PER_NODE) >> 1)] = sign > 0 ? 1 : 0;
  f.allocated += sign * s.mass;
}

/** First-fit on node n (upstream's allocator: devices in name order, the first that fit). */
export function firstFitOn(f: SimFleet, s: SimShape, n: number): SimAction | undefined {
  const base = n * GPUS_PER_NODE;
  if (s.kind === 'mig') {
    for (let i = 0; i < GPUS_PER_NODE; i++) for (const start of s.profile!.starts) if (f.fitsMig(base + i, s.profile!, start)) return { node: n, gpus: [base + i], start };
    return undefined;
  }
  if (s.kind === 'pair') {
    for (let i = 0; i < GPUS_PER_NODE; i++) if (f.free(base + i) && f.nic[n * ROOTS_PER_NODE + (i >> 1)] === 0) return { node: n, gpus: [base + i], start: 0 };
    return undefined;
  }
  const gpus: number[] = [];
  for (let i = 0; i < GPUS_PER_NODE && gpus.length < s.count; i++) if (f.free(base + i)) gpus.push(base + i);
  return gpus.length === s.count ? { node: n, gpus, start: 0 } : undefined;
}

/** Upstream's placement: the most loaded node that can take the claim, first-fit on it. */
export function firstFit(f: SimFleet, s: SimShape): SimAction | undefined {
  for (const n of f.packOrder()) {
    const a = firstFitOn(f, s, n);
    if (a !== undefined) return a;
  }
  return undefined;
}

/**
 * Every distinct placement of a claim up to symmetry: GPUs of one node in the same state are
 * alike, and so are nodes in the same state; whole-GPU claims take free GPUs (which ones matters
 * only through the NICs: each choice of roots is kept).
 */
export function actions(f: SimFleet, s: SimShape): SimAction[] {
  const out: SimAction[] = [];
  const seenNodes = new Set<string>();
  for (let n = 0; n < f.nodes; n++) {
    const key = nodeKey(f, n);
    if (seenNodes.has(key)) continue;
    seenNodes.add(key);
    const base = n * GPUS_PER_NODE;
    if (s.kind === 'mig') {
      const seen = new Set<string>();
      for (let i = 0; i < GPUS_PER_NODE; i++) {
        const gpu = base + i;
        const k = `${f.whole[gpu]}:${f.mask[gpu]}:${f.g[gpu]}:${f.sm[gpu]}`;
        if (seen.has(k)) continue;
        seen.add(k);
        for (const start of s.profile!.starts) if (f.fitsMig(gpu, s.profile!, start)) out.push({ node: n, gpus: [gpu], start });
      }
      continue;
    }
    // Free GPUs by root: whether the root's NIC is free and how many free GPUs it has.
    const freeByRoot: number[][] = Array.from({ length: ROOTS_PER_NODE }, () => []);
    for (let i = 0; i < GPUS_PER_NODE; i++) if (f.free(base + i)) freeByRoot[i >> 1]!.push(base + i);
    if (s.kind === 'pair') {
      const seen = new Set<string>();
      for (let r = 0; r < ROOTS_PER_NODE; r++) {
        if (f.nic[n * ROOTS_PER_NODE + r] === 1 || freeByRoot[r]!.length === 0) continue;
        const k = `${freeByRoot[r]!.length}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push({ node: n, gpus: [freeByRoot[r]![0]!], start: 0 });
      }
      continue;
    }
    const total = freeByRoot.reduce((a, r) => a + r.length, 0);
    if (total < s.count) continue;
    // Take from roots: prefer roots whose NIC is taken (a pair cannot use them), then fewest free; one choice (others only move NIC room).
    const roots = [...freeByRoot.keys()].sort((a, b) => f.nic[n * ROOTS_PER_NODE + b]! - f.nic[n * ROOTS_PER_NODE + a]! || freeByRoot[a]!.length - freeByRoot[b]!.length || a - b);
    const gpus: number[] = [];
    for (const r of roots) for (const gpu of freeByRoot[r]!) if (gpus.length < s.count) gpus.push(gpu);
    out.push({ node: n, gpus, start: 0 });
  }
  return out;
}

/** A node's state up to the order of its roots and of the GPUs in a root. */
export function nodeKey(f: SimFleet, n: number): string {
  const roots: string[] = [];
  for (let r = 0; r < ROOTS_PER_NODE; r++) {
    const gpus: string[] = [];
    for (let j = 0; j < 2; j++) {
      const gpu = n * GPUS_PER_NODE + 2 * r + j;
      gpus.push(`${f.whole[gpu]}.${f.mask[gpu]}.${f.g[gpu]}.${f.sm[gpu]}`);
    }
    roots.push(`${f.nic[n * ROOTS_PER_NODE + r]}[${gpus.sort().join(',')}]`);
  }
  return roots.sort().join('|');
}

/** The fleet's state up to node order. */
export function fleetKey(f: SimFleet): string {
  return Array.from({ length: f.nodes }, (_, n) => nodeKey(f, n))
    .sort()
    .join('#');
}

/** A placement policy: the placement of claim `s` (arrival i) on `f`, or undefined when none fits. */
export type Policy = (f: SimFleet, s: SimShape, i: number) => SimAction | undefined;

/** Replays `stream` with `choose` from arrival `from` (a claim with no placement is skipped); returns the GPUs allocated. */
export function replay(stream: readonly SimShape[], choose: Policy, fleet = new SimFleet(8), from = 0): number {
  for (let i = from; i < stream.length; i++) {
    const s = stream[i]!;
    const a = choose(fleet, s, i);
    if (a !== undefined) apply(fleet, s, a);
  }
  return fleet.allocated;
}

/** Free whole GPUs of node n. */
export function freeGpus(f: SimFleet, n: number): number {
  let c = 0;
  for (let i = 0; i < GPUS_PER_NODE; i++) if (f.free(n * GPUS_PER_NODE + i)) c++;
  return c;
}

/**
 * Best fit over the fleet: a MIG claim goes to the used GPU (any node) where it leaves the most of
 * the workload's MIG shapes placeable (weighted), a fresh GPU only when no used GPU can take it, on
 * the node with the fewest free GPUs; a whole-GPU claim to the node with the fewest free GPUs that
 * has enough, from roots whose NIC is taken first.
 */
export function bestFit(dist: ReadonlyArray<{ shape: SimShape; weight: number }>, freshByValue = false): Policy {
  return (f, s) => {
    const all = actions(f, s);
    if (all.length === 0) return undefined;
    const placeable = (gpu: number): number => {
      let v = 0;
      for (const d of dist) if (d.shape.kind === 'mig' && d.shape.profile!.starts.some((st) => f.fitsMig(gpu, d.shape.profile!, st))) v += d.weight;
      return v;
    };
    const key = (a: SimAction): number[] => {
      const free = freeGpus(f, a.node);
      if (s.kind !== 'mig') return [free, a.node];
      const gpu = a.gpus[0]!;
      const fresh = f.free(gpu) ? 1 : 0;
      f.placeMig(gpu, s.profile!, a.start);
      const left = placeable(gpu);
      f.placeMig(gpu, s.profile!, a.start, -1);
      return fresh === 1 && !freshByValue ? [1, free, -left, a.node] : [fresh, -left, free, a.node];
    };
    let best = all[0]!;
    let bestKey = key(best);
    for (const a of all.slice(1)) {
      const k = key(a);
      for (let i = 0; i < k.length; i++) {
        if (k[i] === bestKey[i]) continue;
        if (k[i]! < bestKey[i]!) [best, bestKey] = [a, k];
        break;
      }
    }
    return best;
  };
}
