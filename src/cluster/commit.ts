// Commit's checks, written once: an option (from a plan, a pod scheduler or a caller) re-validated
// against a ledger as it is now. A pure function: it reads the ledger and changes nothing; the
// in-memory state and the stores (src/store/apply.ts) apply what it returns with Ledger.commit.

import { isEvictable, PLACEMENT_OPTION_KEYS, validateParts } from '../placement/index.js';
import { AllocationError } from '../shared/errors.js';
import { LIMITS } from '../shared/limits.js';
import { formatBytes } from '../shared/units.js';
import { describeValue, fail, keysOf, readInput, rejectUnknownKeys, requireArray, requireInteger, requireObject, requireString } from '../shared/validate.js';
import type { CheckedCommit, Ledger } from './ledger.js';

/** Options of commit: the new slot's ID (default `slot-<n>`) and lastActivity (ms since the epoch). */
export type CommitOptions = { id?: string; lastActivity?: number };

/** What commit's checks read of a ledger. */
export type CommitView = Pick<Ledger, 'nodeOf' | 'positionOf' | 'checkShare' | 'slots' | 'record' | 'gpuStart' | 'free' | 'indices' | 'nodeCpu' | 'cpuHeld' | 'nodeHostMemory' | 'hostMemoryHeld'>;

/** The keys of CommitOptions. */
const COMMIT_OPTION_KEYS = keysOf<CommitOptions>()(['id', 'lastActivity']);

/**
 * Checks `option` (and commit's `options`) against `view` as it is now: the argument errors name the
 * field; CONFLICT when the option no longer fits (memory, CPU or host memory taken since planning, an
 * evicted slot gone or no longer stale); DUPLICATE_SLOT when options.id is taken. Changes nothing;
 * returns what Ledger.commit applies.
 */
export function checkCommit(view: CommitView, option: unknown, options: unknown = {}): CheckedCommit {
  const { gpuStart, free, indices, nodeCpu, cpuHeld, nodeHostMemory, hostMemoryHeld } = view;
  const o = requireObject('option', readInput('option', option));
  // A misspelt key (a pod's `cpus`, `hostmemory`) would commit a slot that holds nothing of it.
  rejectUnknownKeys('option', o, PLACEMENT_OPTION_KEYS);
  if (o.parts !== undefined) return checkSpanCommit(view, o, options);
  if (o.tensorParallel !== undefined || o.pipelineParallel !== undefined)
    fail(
      'INVALID_ARGUMENT',
      o.tensorParallel !== undefined ? 'option.tensorParallel' : 'option.pipelineParallel',
      'nothing without option.parts (an option on one node)',
      o.tensorParallel ?? o.pipelineParallel,
    );
  const nodeId = requireString('option.node', o.node, LIMITS.maxIdLength);
  const node = view.nodeOf.get(nodeId);
  if (node === undefined) throw new AllocationError('UNKNOWN_NODE', `option.node: node ${describeValue(nodeId)} is not in the state`, { field: 'option.node' });
  const gpus = requireArray('option.gpus', o.gpus, LIMITS.maxGpus);
  const cpu = o.cpu === undefined ? undefined : requireInteger('option.cpu', o.cpu, 0, LIMITS.maxMilliCpu);
  const hostMemory = o.hostMemory === undefined ? undefined : requireInteger('option.hostMemory', o.hostMemory, 0, LIMITS.maxBytes);
  if (gpus.length === 0 && cpu === undefined && hostMemory === undefined) fail('INVALID_ARGUMENT', 'option.gpus', 'at least one GPU index (or cpu / hostMemory for a slot without GPUs)', gpus);
  const positions: number[] = [];
  gpus.forEach((g, j) => {
    const idx = requireInteger(`option.gpus[${j}]`, g, 0, 0x7fffffff);
    const p = view.positionOf(node, idx);
    if (p < 0) throw new AllocationError('UNKNOWN_DEVICE_ID', `option.gpus[${j}]: GPU index ${idx} is not on node ${nodeId}`, { field: `option.gpus[${j}]` });
    if (positions.includes(p)) throw new AllocationError('DUPLICATE_DEVICE', `option.gpus[${j}]: GPU index ${idx} appears twice`, { field: `option.gpus[${j}]` });
    positions.push(p);
  });
  const perGpu = gpus.length === 0 ? requireInteger('option.memoryPerGpu', o.memoryPerGpu, 0, 0) : requireInteger('option.memoryPerGpu', o.memoryPerGpu, 1, LIMITS.maxBytes);
  let milli: number | undefined;
  if (o.milli !== undefined) {
    if (gpus.length === 0) fail('INVALID_ARGUMENT', 'option.milli', 'no share (the option has no GPUs)', o.milli);
    milli = requireInteger('option.milli', o.milli, 1, 1000);
    view.checkShare(node, positions, milli, perGpu, 'option.', (j) => `option.gpus[${j}]`);
  }
  const model = o.model === undefined ? undefined : requireString('option.model', o.model, LIMITS.maxIdLength);
  const evict = o.evict === undefined ? [] : requireArray('option.evict', o.evict, LIMITS.maxSlotsPerNode);
  const { id, lastActivity } = commitOptionsOf(view, options);
  // Re-validate against the current state; nothing changes before every check passes. `node` came
  // from nodeOf and each position from positionOf: the ledger's arrays hold them (`!`).
  const start = gpuStart[node]!;
  const gained = new Map<number, number>();
  const evictIds = new Set<string>();
  let cpuGained = 0;
  let hostGained = 0;
  evict.forEach((raw, j) => {
    const sid = requireString(`option.evict[${j}]`, raw, LIMITS.maxIdLength);
    const r = view.slots.has(sid) ? view.record(node, sid) : undefined;
    if (r === undefined || r.node !== node)
      throw new AllocationError('CONFLICT', `option.evict[${j}]: slot ${describeValue(sid)} is no longer on node ${nodeId}; nothing was changed`, { field: `option.evict[${j}]` });
    if (!isEvictable(r.slot, model))
      throw new AllocationError('CONFLICT', `option.evict[${j}]: slot ${describeValue(sid)} is no longer evictable (not stale, or the same model); nothing was changed`, {
        field: `option.evict[${j}]`,
      });
    if (evictIds.has(sid)) fail('INVALID_ARGUMENT', `option.evict[${j}]`, 'each slot once', sid);
    evictIds.add(sid);
    for (const p of r.positions) gained.set(p, (gained.get(p) ?? 0) + r.slot.memoryPerGpu);
    cpuGained += r.slot.cpu ?? 0;
    hostGained += r.slot.hostMemory ?? 0;
  });
  if (cpu !== undefined && nodeCpu[node]! >= 0) {
    const left = nodeCpu[node]! - cpuHeld[node]! + cpuGained;
    if (left < cpu)
      throw new AllocationError('CONFLICT', `option: node ${nodeId} has ${left} milli-CPU left, less than the ${cpu} asked; nothing was changed`, {
        field: 'option.cpu',
        details: { shortBy: cpu - left },
      });
  }
  if (hostMemory !== undefined && nodeHostMemory[node]! >= 0) {
    const left = nodeHostMemory[node]! - hostMemoryHeld[node]! + hostGained;
    if (left < hostMemory)
      throw new AllocationError('CONFLICT', `option: node ${nodeId} has ${formatBytes(left)} of host memory left, less than the ${formatBytes(hostMemory)} asked; nothing was changed`, {
        field: 'option.hostMemory',
        details: { shortBy: hostMemory - left },
      });
  }
  for (const p of positions) {
    const avail = free[start + p]! + (gained.get(p) ?? 0);
    if (avail < perGpu) {
      throw new AllocationError(
        'CONFLICT',
        `option: GPU ${indices[node]![p]} of node ${nodeId} has ${formatBytes(avail)} free after the listed evictions, less than ${formatBytes(perGpu)}; nothing was changed`,
        { field: 'option.gpus', details: { gpu: indices[node]![p], shortBy: perGpu - avail } },
      );
    }
  }
  const change: CheckedCommit = { node, positions, memoryPerGpu: perGpu, evict: evictIds, id };
  if (model !== undefined) change.model = model;
  if (lastActivity !== undefined) change.lastActivity = lastActivity;
  if (milli !== undefined) change.milli = milli;
  if (cpu !== undefined) change.cpu = cpu;
  if (hostMemory !== undefined) change.hostMemory = hostMemory;
  return change;
}

/** The commit options both kinds of option take: the new slot's ID (unused) and lastActivity. */
function commitOptionsOf(view: CommitView, options: unknown): { id: string | undefined; lastActivity: number | undefined } {
  const opts = requireObject('options', readInput('options', options));
  rejectUnknownKeys('options', opts, COMMIT_OPTION_KEYS);
  let id: string | undefined;
  if (opts.id !== undefined) {
    id = requireString('options.id', opts.id, LIMITS.maxIdLength);
    if (view.slots.has(id)) throw new AllocationError('DUPLICATE_SLOT', `options.id: slot ID ${describeValue(id)} is already in the state`, { field: 'options.id' });
  }
  if (opts.lastActivity !== undefined && (typeof opts.lastActivity !== 'number' || !Number.isFinite(opts.lastActivity)))
    fail('INVALID_ARGUMENT', 'options.lastActivity', 'a finite number (ms since the epoch)', opts.lastActivity);
  return { id, lastActivity: opts.lastActivity as number | undefined };
}

/**
 * checkCommit of an option across several nodes (`parts`): every part re-validated against its node
 * as it is now (CONFLICT naming the part that no longer fits); no node, GPUs, evictions or pod fields
 * of its own; tensorParallel and pipelineParallel, when given, as its parts say.
 */
function checkSpanCommit(view: CommitView, o: Record<string, unknown>, options: unknown): CheckedCommit {
  for (const key of ['node', 'milli', 'cpu', 'hostMemory'] as const) if (o[key] !== undefined) fail('INVALID_ARGUMENT', `option.${key}`, 'nothing on an option with parts', o[key]);
  if (o.gpus !== undefined && (!Array.isArray(o.gpus) || o.gpus.length > 0)) fail('INVALID_ARGUMENT', 'option.gpus', '[] on an option with parts (each part names its GPUs)', o.gpus);
  if (o.evict !== undefined && (!Array.isArray(o.evict) || o.evict.length > 0)) fail('INVALID_ARGUMENT', 'option.evict', '[] on an option with parts (it evicts nothing)', o.evict);
  const parts = validateParts(o.parts, 'option.parts');
  if (o.memoryPerGpu !== undefined) requireInteger('option.memoryPerGpu', o.memoryPerGpu, 1, LIMITS.maxBytes);
  const model = o.model === undefined ? undefined : requireString('option.model', o.model, LIMITS.maxIdLength);
  if (o.pipelineParallel !== undefined && o.pipelineParallel !== parts.length) fail('INVALID_ARGUMENT', 'option.pipelineParallel', `${parts.length} (its parts)`, o.pipelineParallel);
  if (o.tensorParallel !== undefined) {
    const j = parts.findIndex((p) => p.gpus.length !== o.tensorParallel);
    if (j >= 0) fail('INVALID_ARGUMENT', `option.parts[${j}].gpus`, `${describeValue(o.tensorParallel)} GPUs (option.tensorParallel)`, parts[j]!.gpus);
  }
  const { id, lastActivity } = commitOptionsOf(view, options);
  const checked = parts.map((part, j) => {
    const node = view.nodeOf.get(part.node);
    if (node === undefined) throw new AllocationError('UNKNOWN_NODE', `option.parts[${j}].node: node ${describeValue(part.node)} is not in the state`, { field: `option.parts[${j}].node` });
    const positions = part.gpus.map((g, i) => {
      const p = view.positionOf(node, g);
      if (p < 0) throw new AllocationError('UNKNOWN_DEVICE_ID', `option.parts[${j}].gpus[${i}]: GPU index ${g} is not on node ${part.node}`, { field: `option.parts[${j}].gpus[${i}]` });
      return p;
    });
    return { node, positions, memoryPerGpu: part.memoryPerGpu };
  });
  // Re-validate every part; nothing changes before all pass.
  checked.forEach((part, j) => {
    const start = view.gpuStart[part.node]!;
    for (const p of part.positions) {
      const avail = view.free[start + p]!;
      if (avail < part.memoryPerGpu) {
        const gpu = view.indices[part.node]![p];
        throw new AllocationError(
          'CONFLICT',
          `option.parts[${j}]: GPU ${gpu} of node ${parts[j]!.node} has ${formatBytes(avail)} free, less than ${formatBytes(part.memoryPerGpu)}; nothing was changed on any node`,
          { field: `option.parts[${j}].gpus`, details: { gpu, shortBy: part.memoryPerGpu - avail } },
        );
      }
    }
  });
  const first = checked[0]!; // validateParts takes at least 2 parts
  const change: CheckedCommit = { node: first.node, positions: first.positions, memoryPerGpu: first.memoryPerGpu, evict: new Set(), id, parts: checked };
  if (model !== undefined) change.model = model;
  if (lastActivity !== undefined) change.lastActivity = lastActivity;
  return change;
}
