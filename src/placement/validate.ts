// Validation of placement input: a plan's request fields, a node's GPUs and topology, and slots.
// The checks run in order and name the field that fails; names are only built for an error.

import { type Topology, topologyFor } from '../hardware/topology.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import {
  describeValue,
  fail,
  hasUnknownKey,
  readError,
  readInput,
  rejectUnknownKeys,
  requireArray,
  requireBoolean,
  requireInteger,
  requireObject,
  requireOneOf,
  requireString,
} from '../shared/validate.js';
import { DEFAULT_PLACEMENT_LIMIT, MAX_PLACEMENT_LIMIT, NODE_GPU_KEYS, type NodeModel, type PlanRequest, SLOT_KEYS, SLOT_PART_KEYS, type Slot, type SlotPart } from './types.js';

/** Validates the request part of a plan (memory, model, sizes, eviction, policy, limit). */
export function validatePlanRequest(r: Record<string, unknown>): PlanRequest {
  const memory = requireInteger('memory', r.memory, 1, LIMITS.maxBytes);
  const model = r.model === undefined ? undefined : requireString('model', r.model, LIMITS.maxIdLength);
  let sizes: number[] | undefined;
  if (r.tensorParallelSizes !== undefined) {
    const raw = requireArray('tensorParallelSizes', r.tensorParallelSizes, LIMITS.maxGpus);
    if (raw.length === 0) fail('INVALID_ARGUMENT', 'tensorParallelSizes', 'at least one size', raw);
    if (raw.length === 1 && isCount(raw[0], LIMITS.maxGpus) && raw[0] >= 1) sizes = [raw[0]];
    else {
      const set = new Set<number>();
      raw.forEach((v, k) => set.add(requireInteger(`tensorParallelSizes[${k}]`, v, 1, LIMITS.maxGpus)));
      sizes = [...set].sort((x, y) => x - y);
    }
  }
  const allowEviction = r.allowEviction === undefined ? true : requireBoolean('allowEviction', r.allowEviction);
  const allowMig = r.allowMig === undefined ? false : requireBoolean('allowMig', r.allowMig);
  const policy = r.policy === undefined ? 'spread' : requireOneOf('policy', r.policy, ['spread', 'pack'] as const, 'UNKNOWN_POLICY');
  const limit = r.limit === undefined ? DEFAULT_PLACEMENT_LIMIT : requireInteger('limit', r.limit, 1, MAX_PLACEMENT_LIMIT);
  return { memory, model, sizes, allowEviction, allowMig, pack: policy === 'pack', limit };
}

/** A non-negative integer up to `max` (what requireInteger(…, 0, max) accepts), -0 read as 0. */
export function isCount(v: unknown, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= max;
}

/** A plain record (what requireObject accepts). */
function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `v` when it is a non-negative integer up to `max` (-0 read as 0), else requireInteger's error naming `field()`. */
function count(v: unknown, max: number, field: () => string): number {
  if (isCount(v, max)) return v === 0 ? 0 : v;
  return requireInteger(field(), v, 0, max);
}

/**
 * Validates GPUs, slots and topology of one node (field names prefixed by `prefix`). The checks
 * run in order and name the field that fails; names are only built for the error.
 */
export function validateNode(gpusValue: unknown, slotsValue: unknown, topologyValue: unknown, prefix: string): NodeModel {
  const rawGpus = requireArray(`${prefix}gpus`, gpusValue, LIMITS.maxGpus);
  const list: Array<{ index: number; memoryTotal: number; memoryUsed: number; mig: boolean }> = new Array(rawGpus.length);
  let anyMig = false;
  const seen = new Set<number>();
  let sorted = true;
  for (let k = 0; k < rawGpus.length; k++) {
    const at = (): string => `${prefix}gpus[${k}]`;
    const raw = rawGpus[k];
    const g = isRecord(raw) ? raw : requireObject(at(), raw);
    if (hasUnknownKey(g, NODE_GPU_KEYS)) rejectUnknownKeys(at(), g, NODE_GPU_KEYS);
    const index = count(g.index, 0x7fffffff, () => `${at()}.index`);
    if (seen.has(index)) throw AllocationError.at('DUPLICATE_DEVICE', `${at()}.index`, `GPU index ${index} appears twice`);
    seen.add(index);
    if (k > 0 && list[k - 1]!.index > index) sorted = false; // list[0 .. k) are set
    const memoryTotal = count(g.memoryTotal, LIMITS.maxBytes, () => `${at()}.memoryTotal`);
    const memoryUsed = g.memoryUsed === undefined ? 0 : count(g.memoryUsed, LIMITS.maxBytes, () => `${at()}.memoryUsed`);
    if (memoryUsed > memoryTotal) fail('INVALID_ARGUMENT', `${at()}.memoryUsed`, `at most memoryTotal (${memoryTotal})`, g.memoryUsed);
    const mig = g.mig === undefined ? false : requireBoolean(`${at()}.mig`, g.mig);
    if (mig) anyMig = true;
    list[k] = { index, memoryTotal, memoryUsed, mig };
  }
  if (!sorted) list.sort((a, b) => a.index - b.index);
  let topology: Topology | undefined;
  if (topologyValue !== undefined) {
    topology = topologyFor(topologyValue, `${prefix}topology`).topology;
    for (const g of list) {
      if (g.index >= topology.gpus)
        throw new AllocationError('INVALID_TOPOLOGY', `${prefix}topology: GPU index ${g.index} is outside the topology of ${topology.gpus} GPUs`, { field: `${prefix}topology.gpus` });
    }
  }
  const slots = slotsValue === undefined ? [] : validateSlots(slotsValue, `${prefix}slots`, seen);
  const model: NodeModel = { index: list.map((g) => g.index), total: list.map((g) => g.memoryTotal), used: list.map((g) => g.memoryUsed), slots, topology };
  if (anyMig) model.mig = list.map((g) => g.mig);
  return model;
}

/** Validates a slot list against the node's GPU indices; returns copies. */
export function validateSlots(value: unknown, field: string, indices: ReadonlySet<number>, ids: Set<string> = new Set()): Slot[] {
  const raw = requireArray(field, value, LIMITS.maxSlotsPerNode);
  const length = raw.length;
  const out: Slot[] = new Array(length);
  for (let k = 0; k < length; k++) out[k] = validateSlot(raw[k], field, k, indices, ids);
  return out;
}

/**
 * Validates slot `k` of the list `field` against the node's GPU indices and returns a copy; `ids`
 * collects slot IDs to catch duplicates. The checks run in order and name the field that fails
 * (`field[k].gpus[1]`); names are only built for the error.
 */
export function validateSlot(value: unknown, field: string, k: number, indices: ReadonlySet<number>, ids: Set<string>): Slot {
  // Field names are only built for an error (no closure per slot: this runs for every slot of every call).
  const s = isRecord(value) ? value : requireObject(`${field}[${k}]`, value);
  if (hasUnknownKey(s, SLOT_KEYS)) rejectUnknownKeys(`${field}[${k}]`, s, SLOT_KEYS);
  // Each field read once: the caller's slots may reach here uncopied (planPlacement), and a getter
  // or proxy must not answer differently between the check and the use.
  const idV = s.id;
  const gpusV = s.gpus;
  const memoryV = s.memoryPerGpu;
  const modelV = s.model;
  const lastV = s.lastActivity;
  const staleV = s.stale;
  const milliV = s.milli;
  const cpuV = s.cpu;
  const hostV = s.hostMemory;
  const partsV = s.parts;
  const maxId = LIMITS.maxIdLength;
  const id = typeof idV === 'string' && idV.length <= maxId ? idV : requireString(`${field}[${k}].id`, idV, maxId);
  if (ids.has(id)) throw AllocationError.at('DUPLICATE_SLOT', `${field}[${k}].id`, `slot ID ${describeValue(id)} appears twice`);
  ids.add(id);
  const gpusRaw = Array.isArray(gpusV) ? gpusV : requireArray(`${field}[${k}].gpus`, gpusV, LIMITS.maxGpus);
  const length = gpusRaw.length;
  if (length > LIMITS.maxGpus) requireArray(`${field}[${k}].gpus`, gpusRaw, LIMITS.maxGpus);
  if (length === 0 && cpuV === undefined && hostV === undefined) fail('INVALID_ARGUMENT', `${field}[${k}].gpus`, 'at least one GPU index (or cpu / hostMemory for a slot without GPUs)', gpusRaw);
  const gpus: number[] = new Array(length);
  let sorted = true;
  for (let j = 0; j < length; j++) {
    const raw: unknown = gpusRaw[j];
    const idx = isCount(raw, 0x7fffffff) ? (raw === 0 ? 0 : raw) : requireInteger(`${field}[${k}].gpus[${j}]`, raw, 0, 0x7fffffff);
    if (!indices.has(idx)) throw AllocationError.at('UNKNOWN_DEVICE_ID', `${field}[${k}].gpus[${j}]`, `GPU index ${idx} is not one of the node's GPUs`);
    for (let i = 0; i < j; i++) if (gpus[i] === idx) throw AllocationError.at('DUPLICATE_DEVICE', `${field}[${k}].gpus[${j}]`, `GPU index ${idx} appears twice`);
    if (j > 0 && gpus[j - 1]! > idx) sorted = false; // gpus[0 .. j) are set
    gpus[j] = idx;
  }
  if (!sorted) gpus.sort((a, b) => a - b);
  const memoryPerGpu = isCount(memoryV, LIMITS.maxBytes) ? (memoryV === 0 ? 0 : memoryV) : requireInteger(`${field}[${k}].memoryPerGpu`, memoryV, 0, LIMITS.maxBytes);
  if (length === 0 && memoryPerGpu !== 0) fail('INVALID_ARGUMENT', `${field}[${k}].memoryPerGpu`, '0 (the slot has no GPUs)', memoryV);
  const slot: Slot = { id, gpus, memoryPerGpu };
  if (milliV !== undefined) {
    if (length === 0) fail('INVALID_ARGUMENT', `${field}[${k}].milli`, 'no share (the slot has no GPUs)', milliV);
    slot.milli = requireInteger(`${field}[${k}].milli`, milliV, 1, 1000);
  }
  if (cpuV !== undefined) slot.cpu = requireInteger(`${field}[${k}].cpu`, cpuV, 0, LIMITS.maxMilliCpu);
  if (hostV !== undefined) slot.hostMemory = requireInteger(`${field}[${k}].hostMemory`, hostV, 0, LIMITS.maxBytes);
  if (modelV !== undefined) slot.model = typeof modelV === 'string' && modelV.length <= maxId ? modelV : requireString(`${field}[${k}].model`, modelV, maxId);
  if (lastV !== undefined) {
    if (typeof lastV !== 'number' || !Number.isFinite(lastV)) fail('INVALID_ARGUMENT', `${field}[${k}].lastActivity`, 'a finite number (ms since the epoch)', lastV);
    slot.lastActivity = lastV;
  }
  if (staleV !== undefined) slot.stale = typeof staleV === 'boolean' ? staleV : requireBoolean(`${field}[${k}].stale`, staleV);
  if (partsV !== undefined) {
    if (milliV !== undefined || cpuV !== undefined || hostV !== undefined) fail('INVALID_ARGUMENT', `${field}[${k}].parts`, 'no parts on a pod (a slot with milli, cpu or hostMemory)', partsV);
    slot.parts = validateParts(partsV, `${field}[${k}].parts`);
  }
  return slot;
}

/** Most nodes one slot or option may span (pipeline stages). */
export const MAX_PARTS = 64;

/**
 * Validates the parts of a slot or option that spans several nodes: 2..MAX_PARTS of
 * `{ node, gpus, memoryPerGpu }`, each node once, each part's GPUs distinct (sorted in the copy).
 * Whether the GPUs are the nodes' is for the caller, which knows the nodes.
 */
export function validateParts(value: unknown, field: string): SlotPart[] {
  const raw = requireArray(field, value, MAX_PARTS);
  if (raw.length < 2) fail('INVALID_ARGUMENT', field, 'at least 2 parts (a slot on one node has none)', raw);
  const nodes = new Set<string>();
  return raw.map((p, j) => {
    const f = `${field}[${j}]`;
    const o = requireObject(f, p);
    rejectUnknownKeys(f, o, SLOT_PART_KEYS);
    const node = requireString(`${f}.node`, o.node, LIMITS.maxIdLength);
    if (nodes.has(node)) fail('INVALID_ARGUMENT', `${f}.node`, 'each node once', node);
    nodes.add(node);
    const list = requireArray(`${f}.gpus`, o.gpus, LIMITS.maxGpus);
    if (list.length === 0) fail('INVALID_ARGUMENT', `${f}.gpus`, 'at least one GPU index', list);
    const gpus: number[] = [];
    list.forEach((g, i) => {
      const idx = requireInteger(`${f}.gpus[${i}]`, g, 0, 0x7fffffff);
      if (gpus.includes(idx)) throw AllocationError.at('DUPLICATE_DEVICE', `${f}.gpus[${i}]`, `GPU index ${idx} appears twice`);
      gpus.push(idx);
    });
    gpus.sort((a, b) => a - b);
    return { node, gpus, memoryPerGpu: requireInteger(`${f}.memoryPerGpu`, o.memoryPerGpu, 1, LIMITS.maxBytes) };
  });
}

/**
 * validateSlots on slots that may come uncopied from the caller (planPlacement). On an error, the
 * slots are read again as a copy (readInput) and that copy's error is thrown: the same error, path
 * and rendering as for copied input, and anything a getter or proxy throws becomes an
 * AllocationError naming the path. Errors only: a valid list is read once.
 */
export function validateCallerSlots(value: unknown, field: string, indices: ReadonlySet<number>): Slot[] {
  try {
    return validateSlots(value, field, indices);
  } catch (error) {
    const copy = readInput(field, value);
    validateSlots(copy, field, indices);
    throw readError(field, error);
  }
}
