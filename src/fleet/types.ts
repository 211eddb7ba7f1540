// Fleet types and their validation: nodes with CPU, memory and N GPUs of one model; pods asking for
// CPU, memory and either a share of one GPU or whole GPUs, optionally restricted to GPU models.

import { type Topology, topologyFor } from '../hardware/topology.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { fail, keysOf, own, rejectUnknownKeys, requireArray, requireInteger, requireObject, requireString } from '../shared/validate.js';

/** A node of a fleet. */
export type FleetNode = {
  /** Unique node ID. */
  id: string;
  /** CPU, in milli-CPU. */
  cpu: number;
  /** Host memory, in MiB (the trace format's unit; ClusterState's hostMemory is in bytes). */
  memoryMiB: number;
  /** Number of GPUs (0: a CPU-only node). */
  gpus: number;
  /** GPU model (required when gpus > 0). */
  model?: string;
  /** The node's GPU links (gpus must match): multi-GPU pods then take GPUs by the topology search, and shares keep NVLink groups whole. */
  topology?: Topology;
  /**
   * Memory of each GPU in bytes, at least 1 MiB (default 16 GiB). Arbitrary for the simulation: the
   * fleet runs on a ClusterState, where a share of m milli is charged floor(m × gpuMemory / 1000)
   * bytes, and any GPU of more than 10^6 bytes gives back exactly 1000 − Σ milli free
   * (src/shared/share.ts), so the result does not depend on it.
   */
  gpuMemory?: number;
};

/** Default GPU memory of a fleet node, in bytes (16 GiB; see FleetNode.gpuMemory). */
export const DEFAULT_GPU_MEMORY = 16 * 2 ** 30;

/** A validated node (memory in MiB): topology, when given, validated with its pair-score matrix. */
export type NodeSpec = { id: string; cpu: number; memory: number; gpus: number; model: string; gpuMemory: number; aligned?: { topology: Topology; matrix: Int32Array } };

/** A pod (task) to place. */
export type FleetPod = {
  /** Pod ID (unique within a workload). */
  id: string;
  /** CPU request, in milli-CPU. */
  cpu: number;
  /** Host memory request, in MiB (the trace format's unit). */
  memoryMiB: number;
  /** Number of GPUs (0: CPU-only). */
  gpus: number;
  /** Per-GPU share in milli-GPU, 1..1000 (default 1000); below 1000 only with gpus = 1; ignored (may be 0) when gpus = 0. */
  milli?: number;
  /** Allowed GPU models (absent or empty: any). */
  models?: string[];
};

const NODE_KEYS = keysOf<FleetNode>()(['id', 'cpu', 'memoryMiB', 'gpus', 'model', 'topology', 'gpuMemory']);
const POD_KEYS = keysOf<FleetPod>()(['id', 'cpu', 'memoryMiB', 'gpus', 'milli', 'models']);
const MAX_INT = 0x7fffffff;

/**
 * Rejects the field `memory` of a fleet node or pod, which was renamed memoryMiB (fleet memory is in
 * MiB, plan requests' memory in bytes), then any other unknown key.
 */
function _rejectKeys(field: string, o: Record<string, unknown>, keys: readonly string[]): void {
  if (Object.prototype.hasOwnProperty.call(o, 'memory')) {
    throw AllocationError.at('INVALID_ARGUMENT', `${field}.memory`, 'unknown field (did you mean memoryMiB? fleet memory is in MiB and the field is named memoryMiB)', {
      expected: `one of the keys ${keys.join(', ')}`,
      received: '"memory"',
      details: { key: 'memory', closest: 'memoryMiB', known: [...keys] },
    });
  }
  rejectUnknownKeys(field, o, keys);
}

/** Validates a node list; returns normalized copies. */
export function validateNodes(field: string, value: unknown): NodeSpec[] {
  const list = requireArray(field, value, LIMITS.maxFleetNodes);
  if (list.length === 0) fail('INVALID_ARGUMENT', field, 'at least one node', value);
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const f = `${field}[${i}]`;
    const o = requireObject(f, raw);
    _rejectKeys(f, o, NODE_KEYS);
    const id = requireString(`${f}.id`, own(o, 'id'), LIMITS.maxIdLength);
    if (id === '') fail('INVALID_ARGUMENT', `${f}.id`, 'a non-empty string', id);
    if (seen.has(id)) throw AllocationError.at('INVALID_ARGUMENT', `${f}.id`, `node ${JSON.stringify(id)} appears twice`);
    seen.add(id);
    const gpus = requireInteger(`${f}.gpus`, own(o, 'gpus'), 0, LIMITS.maxGpus);
    const rawModel = own(o, 'model');
    const model = rawModel === undefined ? '' : requireString(`${f}.model`, rawModel, LIMITS.maxIdLength);
    if (gpus > 0 && model === '') fail('INVALID_ARGUMENT', `${f}.model`, 'a GPU model name (the node has GPUs)', rawModel);
    const rawGpuMemory = own(o, 'gpuMemory');
    const gpuMemory = rawGpuMemory === undefined ? DEFAULT_GPU_MEMORY : requireInteger(`${f}.gpuMemory`, rawGpuMemory, 1 << 20, LIMITS.maxBytes);
    const node: NodeSpec = { id, cpu: requireInteger(`${f}.cpu`, own(o, 'cpu'), 0, MAX_INT), memory: requireInteger(`${f}.memoryMiB`, own(o, 'memoryMiB'), 0, MAX_INT), gpus, model, gpuMemory };
    const rawTopology = own(o, 'topology');
    if (rawTopology !== undefined) {
      const t = topologyFor(rawTopology, `${f}.topology`);
      if (t.topology.gpus !== gpus) fail('INVALID_TOPOLOGY', `${f}.topology.gpus`, `${gpus} (the node's GPU count)`, t.topology.gpus);
      node.aligned = t;
    }
    return node;
  });
}

/** A validated pod (memory in MiB): milli 0 for a CPU-only pod, models [] for any. */
export type Pod = { id: string; cpu: number; memory: number; gpus: number; milli: number; models: string[] };

/** Validates one pod. */
export function validatePod(field: string, raw: unknown): Pod {
  const o = requireObject(field, raw);
  _rejectKeys(field, o, POD_KEYS);
  const id = requireString(`${field}.id`, own(o, 'id'), LIMITS.maxIdLength);
  const cpu = requireInteger(`${field}.cpu`, own(o, 'cpu'), 0, MAX_INT);
  const memory = requireInteger(`${field}.memoryMiB`, own(o, 'memoryMiB'), 0, MAX_INT);
  const gpus = requireInteger(`${field}.gpus`, own(o, 'gpus'), 0, LIMITS.maxGpus);
  const rawMilli = own(o, 'milli');
  let milli = rawMilli === undefined ? 1000 : requireInteger(`${field}.milli`, rawMilli, gpus === 0 ? 0 : 1, 1000);
  if (gpus > 1 && milli !== 1000) fail('INVALID_ARGUMENT', `${field}.milli`, '1000 (a pod of several GPUs takes them whole)', milli);
  if (gpus === 0) milli = 0;
  const rawModels = own(o, 'models');
  const models = rawModels === undefined ? [] : requireArray(`${field}.models`, rawModels, LIMITS.maxFleetModels * 4).map((m, k) => requireString(`${field}.models[${k}]`, m, LIMITS.maxIdLength));
  return { id, cpu, memory, gpus, milli, models };
}

/** Validates a pod list (IDs unique). */
export function validatePods(field: string, value: unknown): Pod[] {
  const list = requireArray(field, value, LIMITS.maxFleetPods);
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const pod = validatePod(`${field}[${i}]`, raw);
    if (seen.has(pod.id)) throw AllocationError.at('INVALID_ARGUMENT', `${field}[${i}].id`, `pod ${JSON.stringify(pod.id)} appears twice`);
    seen.add(pod.id);
    return pod;
  });
}

/** The public form of a validated pod (memory as memoryMiB): what PodScheduler.plan takes. */
export function fleetPodOf(pod: Pod): FleetPod {
  return { id: pod.id, cpu: pod.cpu, memoryMiB: pod.memory, gpus: pod.gpus, milli: pod.milli, models: pod.models };
}

/** A pod's model mask: -1 for any model; else the bits of the listed models that some node has (0: none). */
export function modelMask(models: readonly string[], bits: ReadonlyMap<string, number>): number {
  if (models.length === 0) return -1;
  let mask = 0;
  for (const m of models) {
    const b = bits.get(m);
    if (b !== undefined) mask |= 1 << b;
  }
  return mask;
}
