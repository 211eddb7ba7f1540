// The PostgreSQL store's rows as the cluster state's types: a slot row as a Slot, a GPU row as a
// NodeGpu, and the SQL that reads a node's slots or GPUs as a JSON list of them (in one statement).
import type { ClusterStateJSON } from '../cluster/state.js';
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
  parts: Slot['parts'] | null;
}): Slot {
  const s: Slot = { id: r.id, gpus: r.gpus, memoryPerGpu: r.memory_per_gpu };
  if (r.model !== null) s.model = r.model;
  if (r.last_activity !== null) s.lastActivity = r.last_activity;
  if (r.stale !== null) s.stale = r.stale;
  if (r.milli !== null) s.milli = r.milli;
  if (r.cpu !== null) s.cpu = r.cpu;
  if (r.host_memory !== null) s.hostMemory = r.host_memory;
  if (r.parts !== null) s.parts = r.parts;
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
  return `(SELECT coalesce(json_agg(json_strip_nulls(json_build_object('id', sl.id, 'gpus', sl.gpus, 'memoryPerGpu', sl.memory_per_gpu, 'model', sl.model, 'lastActivity', sl.last_activity, 'stale', sl.stale, 'milli', sl.milli, 'cpu', sl.cpu, 'hostMemory', sl.host_memory, 'parts', sl.parts)) ORDER BY sl.added), '[]') FROM ${s}.slots sl WHERE sl.node = ${node})`;
}

/** SQL for the GPUs of node `node` in schema `s` as a JSON list of NodeGpu ({ index, memoryTotal, memoryUsed when > 0, mig when true }), in the order given. */
export function gpusJsonSql(s: string, node: string): string {
  return `(SELECT json_agg(json_strip_nulls(json_build_object('index', g.index, 'memoryTotal', g.memory_total, 'memoryUsed', nullif(g.memory_used, 0), 'mig', nullif(g.mig, false))) ORDER BY g.position) FROM ${s}.gpus g WHERE g.node = ${node})`;
}

/** The rows `PostgresStore.init` writes for a state: nodes, GPUs, and slots (one row per part of a slot across nodes), in order. */
export function initRows(json: ClusterStateJSON): { nodes: object[]; gpus: object[]; slots: object[] } {
  const nodes = json.nodes.map((n, position) => ({
    id: n.id,
    position,
    topology: n.topology ?? null,
    cpu: n.cpu ?? null,
    host_memory: n.hostMemory ?? null,
    gpu_model: n.gpuModel ?? null,
    labels: n.labels ?? null,
  }));
  const gpus = json.nodes.flatMap((n) => n.gpus.map((g, position) => ({ node: n.id, index: g.index, position, memory_total: g.memoryTotal, memory_used: g.memoryUsed ?? 0, mig: g.mig === true })));
  const slots = json.nodes
    .flatMap((n) =>
      n.slots.map((sl) => ({
        id: sl.id,
        node: n.id,
        gpus: sl.gpus,
        memory_per_gpu: sl.memoryPerGpu,
        model: sl.model ?? null,
        last_activity: sl.lastActivity ?? null,
        stale: sl.stale ?? null,
        milli: sl.milli ?? null,
        cpu: sl.cpu ?? null,
        host_memory: sl.hostMemory ?? null,
        // A slot across nodes: one row per part, each on its node.
        part: sl.parts === undefined ? 0 : sl.parts.findIndex((p) => p.node === n.id),
        parts: sl.parts ?? null,
      })),
    )
    .map((row, ord) => ({ ord, ...row }));
  return { nodes, gpus, slots };
}
