// The PostgreSQL store's rows as the cluster state's types: a slot row as a Slot, a GPU row as a
// NodeGpu, and the SQL that reads a node's slots or GPUs as a JSON list of them (in one statement).
import type { NodeGpu, Slot } from '../placement/index.js';

/** A slot row as a Slot (optional fields only when set). */
export function slotOf(r: {
  id: string;
  gpus: number[];
  memory_per_gpu: number;
  model: string | null;
  last_activity: number | null;
  stale: boolean | null;
  milli: number | null;
  cpu: number | null;
  host_memory: number | null;
}): Slot {
  const s: Slot = { id: r.id, gpus: r.gpus, memoryPerGpu: r.memory_per_gpu };
  if (r.model !== null) s.model = r.model;
  if (r.last_activity !== null) s.lastActivity = r.last_activity;
  if (r.stale !== null) s.stale = r.stale;
  if (r.milli !== null) s.milli = r.milli;
  if (r.cpu !== null) s.cpu = r.cpu;
  if (r.host_memory !== null) s.hostMemory = r.host_memory;
  return s;
}

/** A GPU row as a NodeGpu (memoryUsed only when > 0, mig only when true). */
export function gpuOf(g: { index: number; memory_total: number; memory_used: number; mig: boolean }): NodeGpu {
  const gpu: NodeGpu = { index: g.index, memoryTotal: g.memory_total };
  if (g.memory_used > 0) gpu.memoryUsed = g.memory_used;
  if (g.mig === true) gpu.mig = true;
  return gpu;
}

/** SQL for the slots of node `node` (an SQL expression) in schema `s` (quoted) as a JSON list of Slot, in the order they were added. */
export function slotsJsonSql(s: string, node: string): string {
  return `(SELECT coalesce(json_agg(json_strip_nulls(json_build_object('id', sl.id, 'gpus', sl.gpus, 'memoryPerGpu', sl.memory_per_gpu, 'model', sl.model, 'lastActivity', sl.last_activity, 'stale', sl.stale, 'milli', sl.milli, 'cpu', sl.cpu, 'hostMemory', sl.host_memory)) ORDER BY sl.added), '[]') FROM ${s}.slots sl WHERE sl.node = ${node})`;
}

/** SQL for the GPUs of node `node` in schema `s` as a JSON list of NodeGpu ({ index, memoryTotal, memoryUsed when > 0, mig when true }), in the order given. */
export function gpusJsonSql(s: string, node: string): string {
  return `(SELECT json_agg(json_strip_nulls(json_build_object('index', g.index, 'memoryTotal', g.memory_total, 'memoryUsed', nullif(g.memory_used, 0), 'mig', nullif(g.mig, false))) ORDER BY g.position) FROM ${s}.gpus g WHERE g.node = ${node})`;
}
