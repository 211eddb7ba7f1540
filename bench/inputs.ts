// Deterministic benchmark inputs: every workload's data comes from one seeded PRNG, so two runs
// (and the wasm and ts backends within a run) time exactly the same requests.

import type { ReplicaPolicy, ReplicaRequest } from '../src/devices/replicas.js';
import type { SplitRequest } from '../src/devices/split.js';
import { Prng } from '../src/fleet/prng.js';
import { inventoryTopology } from '../src/hardware/inventory.js';
import { getPreset } from '../src/hardware/presets.js';
import { type Topology, validateTopology } from '../src/hardware/topology.js';
import type { Slot } from '../src/placement/index.js';

/** The seed every generator starts from unless told otherwise. */
export const DEFAULT_SEED = 0x9e3779b9;

const GIB = 2 ** 30;

/** The bench's helpers over the simulator's seeded PRNG (mulberry32, src/fleet/prng.ts): `next()` is uniform in [0, 1). */
export class Rng {
  private readonly prng: Prng;

  /** Starts the sequence at `seed` (any 32-bit integer). */
  constructor(seed: number = DEFAULT_SEED) {
    this.prng = new Prng(seed);
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.prng.float();
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** One element of `items`, uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `count` lowercase hex digits. */
  hex(count: number): string {
    let s = '';
    for (let k = 0; k < count; k++) s += '0123456789abcdef'[Math.floor(this.next() * 16)];
    return s;
  }

  /** A new array with the items in a random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let k = out.length - 1; k > 0; k--) {
      const j = Math.floor(this.next() * (k + 1));
      const t = out[k]!;
      out[k] = out[j]!;
      out[j] = t;
    }
    return out;
  }
}

/** A UUID-shaped string (8-4-4-4-12 hex digits). */
function _uuid(rng: Rng): string {
  return `${rng.hex(8)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(4)}-${rng.hex(12)}`;
}

/**
 * `count` device IDs of mixed shapes, as a host reports them: `cuda12`, `nvme0n1p3`, `GPU-<uuid>`,
 * `MIG-<uuid>`, replica IDs `GPU-<uuid>::3`, `/dev/nvidia7`, `mlx5_11`, upper-case `CUDA4`.
 * Shuffled, with a few exact duplicates (the sort must keep them, in input order).
 */
export function mixedDeviceIds(count: number, seed: number = DEFAULT_SEED): string[] {
  const rng = new Rng(seed);
  const ids: string[] = [];
  for (let k = 0; k < count; k++) {
    const kind = rng.int(0, 9);
    switch (kind) {
      case 0:
      case 1:
        ids.push(`cuda${rng.int(0, 4095)}`);
        break;
      case 2:
        ids.push(`nvme${rng.int(0, 31)}n${rng.int(1, 8)}p${rng.int(1, 16)}`);
        break;
      case 3:
        ids.push(`GPU-${_uuid(rng)}`);
        break;
      case 4:
        ids.push(`MIG-${_uuid(rng)}`);
        break;
      case 5:
        ids.push(`GPU-${_uuid(rng)}::${rng.int(0, 15)}`);
        break;
      case 6:
        ids.push(`/dev/nvidia${rng.int(0, 63)}`);
        break;
      case 7:
        ids.push(`mlx5_${rng.int(0, 31)}`);
        break;
      case 8:
        ids.push(`CUDA${rng.int(0, 999)}`);
        break;
      default:
        ids.push(ids.length > 0 ? rng.pick(ids) : 'cuda0');
    }
  }
  return ids;
}

/** Workload 2: `agents` agents auto-splitting a host of `cpus` CPUs, `gpus` GPUs and its memory. */
export function splitRequest(agents = 64, cpus = 512, gpus = 16, seed: number = DEFAULT_SEED): SplitRequest {
  const rng = new Rng(seed);
  const cpuIds = rng.shuffle(Array.from({ length: cpus }, (_, k) => String(k)));
  const gpuIds = rng.shuffle(Array.from({ length: gpus }, (_, k) => ({ id: `cuda${k}`, slots: { 'cuda.device': 1, 'cuda.mem': 80 * GIB } })));
  return {
    agents: Array.from({ length: agents }, (_, k) => `agent-${k + 1}`),
    mode: 'auto-split',
    devices: { cpu: cpuIds, cuda: gpuIds, mem: ['root'] },
    amounts: { mem: 2048 * GIB },
    reserved: { mem: 8 * GIB },
  };
}

/**
 * Workload 3: `gpus` GPUs shared as `replicas` replicas each (`GPU-<uuid>::k`), `takenShare` of them
 * already handed out, asking for `size`.
 */
export function replicaRequest(policy: ReplicaPolicy, gpus = 8, replicas = 16, takenShare = 0.5, size = 8, seed: number = DEFAULT_SEED): ReplicaRequest {
  const rng = new Rng(seed);
  const devices: string[] = [];
  for (let g = 0; g < gpus; g++) {
    const uuid = `GPU-${_uuid(rng)}`;
    for (let r = 0; r < replicas; r++) devices.push(`${uuid}::${r}`);
  }
  const taken = Math.round(devices.length * takenShare);
  const available = rng.shuffle(devices).slice(taken);
  return { devices, available, size, policy };
}

/** The topology (GPU count and links) of a built-in preset. */
export function presetTopology(name: string): Topology {
  // Validated once, as a service holding a node's topology would: validateTopology's frozen result
  // is taken by identity in every request (a caller-built plain object is compared link by link on
  // each call instead; bench/README.md gives that cost).
  return validateTopology(inventoryTopology(getPreset(name)));
}

/**
 * An unstructured node: every pair gets a random PCIe level and 0–2 NVLinks (a linear congruential
 * sequence from `seed`). The hard case for besteffort's bounds: the timings in docs/besteffort.md
 * and the README use seeds 42, 7 and 1234.
 */
export function unstructuredTopology(gpus: number, seed: number): Topology {
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const levels = ['PIX', 'PXB', 'PHB', 'NODE', 'SYS'] as const;
  const links = [];
  for (let a = 0; a < gpus; a++) for (let b = a + 1; b < gpus; b++) links.push({ a, b, pcie: levels[Math.floor(next() * 5)], nvlink: Math.floor(next() * 3) });
  return { gpus, links };
}

/** GPUs of a preset as placement wants them (index, memoryTotal in bytes). */
export function presetGpus(name: string): Array<{ index: number; memoryTotal: number }> {
  return getPreset(name).gpus.map((g) => ({ index: g.index, memoryTotal: g.memoryTotal }));
}

/**
 * `count` running slots on `gpus` GPUs of `memoryPerGpuTotal` bytes each: TP sizes 1, 2, 4 on
 * aligned groups, about half of them stale, memory such that the node is busy but not full.
 */
export function runningSlots(gpus: number, count: number, memoryPerGpuTotal: number, seed: number = DEFAULT_SEED): Slot[] {
  const rng = new Rng(seed);
  const used = new Float64Array(gpus);
  const slots: Slot[] = [];
  for (let k = 0; k < count * 10 && slots.length < count; k++) {
    const tp = rng.pick([1, 1, 2, 2, 4]);
    const first = rng.int(0, gpus / tp - 1) * tp;
    const members = Array.from({ length: tp }, (_, j) => first + j);
    const memoryPerGpu = rng.int(1, 8) * 2 * GIB;
    if (members.some((g) => used[g]! + memoryPerGpu > memoryPerGpuTotal * 0.95)) continue;
    for (const g of members) used[g]! += memoryPerGpu;
    slots.push({
      id: `slot-${slots.length}`,
      model: rng.pick(['llama3-8b', 'mistral-7b', 'qwen2-14b', 'phi3-mini', 'gemma2-9b']),
      gpus: members,
      memoryPerGpu,
      lastActivity: 1_700_000_000_000 + rng.int(0, 3_600_000),
      stale: rng.next() < 0.5,
    });
  }
  return slots;
}

/** One cluster request: model memory in bytes and the tensor-parallel sizes it accepts. */
export type ClusterRequest = { model: string; memory: number; tensorParallelSizes: number[] };

/**
 * Workload 6: `count` requests of mixed sizes (TP 1 mostly, some 2, 4, 8; 4 to 600 GiB), the shape
 * of an inference fleet's arrivals.
 */
export function clusterRequests(count = 10_000, seed: number = DEFAULT_SEED): ClusterRequest[] {
  const rng = new Rng(seed);
  const out: ClusterRequest[] = [];
  for (let k = 0; k < count; k++) {
    const r = rng.next();
    const tp = r < 0.6 ? 1 : r < 0.8 ? 2 : r < 0.95 ? 4 : 8;
    const perGpu = rng.int(4, 75) * GIB;
    out.push({ model: `model-${rng.int(0, 199)}`, memory: perGpu * tp, tensorParallelSizes: [tp] });
  }
  return out;
}

/** Workload 6's cluster: `nodes` nodes of `gpusPerNode` 80 GiB GPUs, IDs `node-1` … */
export function clusterNodes(nodes = 5000, gpusPerNode = 8): Array<{ id: string; gpus: Array<{ index: number; memoryTotal: number }> }> {
  return Array.from({ length: nodes }, (_, n) => ({ id: `node-${n + 1}`, gpus: Array.from({ length: gpusPerNode }, (_, index) => ({ index, memoryTotal: 80 * GIB })) }));
}
