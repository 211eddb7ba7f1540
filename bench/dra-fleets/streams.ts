// Seeded streams of ResourceClaims for a fleet, FGD's protocol: claims arrive until the GPUs they
// ask for reach 100 % of the fleet's GPUs (a claim that fails is skipped, not retried). Shapes:
// MIG profiles (`mig.nvidia.com` with a `profile` selector), whole GPUs ×1/×2/×4/×8
// (`gpu.nvidia.com`), a GPU + RDMA NIC pair under one PCIe root (a `matchAttribute` constraint on
// `resource.kubernetes.io/pcieRoot`), shared GPUs by consumable `memory` (`gpu.example.com`); and
// openb's pods mapped to claims (a fraction of one GPU → the smallest MIG profile with as many
// compute slices of seven, whole GPUs → that many whole GPUs).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Fleet } from './fleets.js';

type Obj = Record<string, unknown>;

/** One claim of a stream: the object, its shape's name, and the GPUs it counts for. */
export interface StreamClaim {
  claim: Obj;
  shape: string;
  /** GPUs it asks for: whole GPUs count 1 each, a MIG profile its compute slices / 7, a share its memory / 80Gi. */
  gpus: number;
  /** Whole GPUs it asks for (for the PCIe split count; 0 for partitions and shares). */
  wholeGpus: number;
}

/** A shape and its weight in a stream. */
export interface ShapeWeight {
  shape: string;
  weight: number;
}

/** A mulberry32 generator: same seed, same stream. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMPUTE_SLICES: Record<string, number> = { '1g.10gb': 1, '1g.20gb': 1, '2g.20gb': 2, '3g.40gb': 3, '4g.40gb': 4, '7g.80gb': 7 };

function claimObject(name: string, requests: Obj[], constraints?: Obj[]): Obj {
  const devices: Obj = { requests };
  if (constraints !== undefined) devices.constraints = constraints;
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name, namespace: 'bench' }, spec: { devices } };
}

/** The claim of a shape: `mig:<profile>`, `gpu:<count>`, `pair`, `shared:<GiB>`. */
export function shapeClaim(name: string, shape: string): StreamClaim {
  const [kind, arg] = shape.split(':');
  if (kind === 'mig') {
    const slices = arg === undefined ? undefined : COMPUTE_SLICES[arg];
    if (slices === undefined) throw new Error(`unknown MIG profile in shape ${shape}`);
    const selectors = [{ cel: { expression: `device.attributes['gpu.nvidia.com'].profile == '${arg}'` } }];
    return { claim: claimObject(name, [{ name: 'mig', exactly: { deviceClassName: 'mig.nvidia.com', selectors } }]), shape, gpus: slices / 7, wholeGpus: 0 };
  }
  if (kind === 'gpu') {
    const count = Number(arg);
    return { claim: claimObject(name, [{ name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com', allocationMode: 'ExactCount', count } }]), shape, gpus: count, wholeGpus: count };
  }
  if (kind === 'pair') {
    const requests = [
      { name: 'gpu', exactly: { deviceClassName: 'gpu.nvidia.com' } },
      { name: 'nic', exactly: { deviceClassName: 'rdma-nic' } },
    ];
    return { claim: claimObject(name, requests, [{ requests: ['gpu', 'nic'], matchAttribute: 'resource.kubernetes.io/pcieRoot' }]), shape, gpus: 1, wholeGpus: 1 };
  }
  if (kind === 'shared') {
    const gib = Number(arg);
    return { claim: claimObject(name, [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', capacity: { requests: { memory: `${gib}Gi` } } } }]), shape, gpus: gib / 80, wholeGpus: 0 };
  }
  if (kind === 'example') {
    const count = Number(arg);
    return {
      claim: claimObject(name, [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count, capacity: { requests: { memory: '80Gi' } } } }]),
      shape,
      gpus: count,
      wholeGpus: count,
    };
  }
  throw new Error(`unknown shape ${shape}`);
}

/** The shape mix of each fleet: what its drivers can serve, MIG-heavy where MIG is published. */
export function shapeMix(fleet: Fleet): ShapeWeight[] {
  const mix: ShapeWeight[] = [];
  const add = (shape: string, weight: number) => mix.push({ shape, weight });
  const mig = fleet.kinds.has('h100-dynamic-mig') || fleet.kinds.has('a100-static-mig');
  if (fleet.kinds.has('example-shared')) {
    for (const [gib, w] of [
      [10, 30],
      [20, 25],
      [40, 20],
    ] as const)
      add(`shared:${gib}`, w);
    add('example:1', 15);
    add('example:2', 10);
    return mix;
  }
  if (mig) {
    const dynamic = fleet.kinds.has('h100-dynamic-mig');
    const weights: Record<string, number> = dynamic ? { '1g.10gb': 24, '1g.20gb': 6, '2g.20gb': 16, '3g.40gb': 14, '4g.40gb': 6, '7g.80gb': 4 } : { '1g.10gb': 30, '2g.20gb': 20, '3g.40gb': 20 };
    for (const [p, w] of Object.entries(weights)) if (fleet.profiles.has(p)) add(`mig:${p}`, w);
  }
  const whole = mig && !fleet.kinds.has('dgx-h100') ? 0.5 : 1;
  add('gpu:1', 14 * whole);
  add('gpu:2', 8 * whole);
  add('gpu:4', 4 * whole);
  add('gpu:8', 2 * whole);
  add('pair', 6 * whole);
  return mix;
}

/** Total GPUs of the fleet (each GPU once, whole or partitioned). */
export function fleetGpus(fleet: Fleet): number {
  return fleet.gpus.size;
}

/** A seeded stream over `mix` until the arrived GPUs reach `target` × the fleet's GPUs. */
export function seededStream(fleet: Fleet, mix: readonly ShapeWeight[], seed: number, target = 1): StreamClaim[] {
  if (mix.length === 0) throw new Error('seededStream: the shape mix is empty');
  const next = rng(seed * 7919 + 17);
  const total = mix.reduce((s, m) => s + m.weight, 0);
  const out: StreamClaim[] = [];
  let arrived = 0;
  const goal = fleetGpus(fleet) * target;
  while (arrived < goal) {
    let r = next() * total;
    const pick = mix.find((m) => (r -= m.weight) < 0) ?? mix[mix.length - 1]!; // mix is not empty (checked above)
    const c = shapeClaim(`c-${out.length}`, pick.shape);
    out.push(c);
    arrived += c.gpus;
  }
  return out;
}

/**
 * openb's GPU pods (a pod list of the trace in data/openb/, default the default trace) as shapes:
 * `as` 'mig' (NVIDIA's fleets), a fraction of one GPU as the smallest MIG profile with as many
 * sevenths, whole GPUs by count (`gpu:<n>`); 'shared' (the example driver's shared GPUs), a fraction
 * as the smallest share of 80 GiB in the driver's 10 GiB steps that holds it (`shared:<GiB>`), whole
 * GPUs by count (`example:<n>`).
 */
export function openbShapes(root: string, trace = 'default', as: 'mig' | 'shared' = 'mig'): string[] {
  const text = readFileSync(join(root, `data/openb/openb_pod_list_${trace}.csv`), 'utf8');
  const lines = text.trim().split('\n');
  const header = lines[0]!.split(',');
  const gpuCol = header.indexOf('num_gpu');
  const milliCol = header.indexOf('gpu_milli');
  const shapes: string[] = [];
  for (const line of lines.slice(1)) {
    const cols = line.split(',');
    const num = Number(cols[gpuCol]);
    const milli = Math.min(1000, Number(cols[milliCol]));
    if (!(num > 0) || !(milli > 0)) continue;
    if (as === 'shared') {
      shapes.push(num === 1 && milli < 1000 ? `shared:${10 * Math.ceil((milli * 80) / 1000 / 10 - 1e-9)}` : `example:${num}`);
      continue;
    }
    if (num === 1 && milli < 1000) {
      const g = Math.ceil((milli * 7) / 1000 - 1e-9);
      shapes.push(g <= 1 ? 'mig:1g.10gb' : g === 2 ? 'mig:2g.20gb' : g === 3 ? 'mig:3g.40gb' : g === 4 ? 'mig:4g.40gb' : 'mig:7g.80gb');
    } else shapes.push(`gpu:${num}`);
  }
  return shapes;
}

/** openb's pods shuffled by `seed` (as FGD's runs shuffle them), arriving until 100 % of the fleet's GPUs. */
export function openbStream(fleet: Fleet, shapes: readonly string[], seed: number): StreamClaim[] {
  const next = rng(seed * 104729 + 3);
  const order = shapes.map((s, i) => ({ s, i }));
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const out: StreamClaim[] = [];
  let arrived = 0;
  const goal = fleetGpus(fleet);
  for (let k = 0; arrived < goal; k = (k + 1) % order.length) {
    const c = shapeClaim(`c-${out.length}`, order[k]!.s);
    out.push(c);
    arrived += c.gpus;
  }
  return out;
}
