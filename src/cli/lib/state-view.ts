// What `gpualloc state` prints, for a state file and a --store state alike: the slots and nodes as
// entries, their table and JSON, and the lines the changes print.

import type { ClusterState } from '../../cluster/state.js';
import type { Slot } from '../../placement/index.js';
import { AllocationError } from '../../shared/errors.js';
import { formatBytes } from '../../shared/units.js';
import { table } from './common.js';
import { busyLine } from './state-file.js';

/** One slot as `state list --json` prints it (a pod's milli, cpu and hostMemory only when it holds them). */
export type SlotEntry = {
  id: string;
  node: string;
  gpus: number[];
  memoryPerGpu: number;
  model: string | null;
  lastActivity: number | null;
  stale: boolean;
  milli?: number;
  cpu?: number;
  hostMemory?: number;
  /** A slot across nodes: every part (node, GPUs, memoryPerGpu); `node` and `gpus` are the first part's. */
  parts?: Array<{ node: string; gpus: number[]; memoryPerGpu: number }>;
};

/**
 * A node's pod resources as `state list --json` prints them, for nodes that track any: allocatable
 * cpu (milli-CPU) and hostMemory (bytes) with what the slots hold of them, and the GPU model.
 */
export type NodeEntry = { id: string; cpu?: number; cpuHeld?: number; hostMemory?: number; hostMemoryHeld?: number; gpuModel?: string };

/** A duration in ms as the largest whole unit or two: 0s, 45s, 5m, 2h 5m, 3d 4h. */
export function formatAge(ms: number): string {
  if (ms < 0) return 'in the future';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d}d` : `${d}d ${h % 24}h`;
}

/** Every slot of the state with its node, in node order then the order slots were added (a slot across nodes once, at its first part's node). */
export function entries(state: Pick<ClusterState, 'nodes' | 'listSlots'>): SlotEntry[] {
  const out: SlotEntry[] = [];
  for (const node of state.nodes()) for (const s of state.listSlots(node)) if (s.parts === undefined || s.parts[0]!.node === node) out.push(entry(node, s));
  return out;
}

function entry(node: string, s: Slot): SlotEntry {
  const e: SlotEntry = { id: s.id, node, gpus: [...s.gpus], memoryPerGpu: s.memoryPerGpu, model: s.model ?? null, lastActivity: s.lastActivity ?? null, stale: s.stale === true };
  if (s.milli !== undefined) e.milli = s.milli;
  if (s.cpu !== undefined) e.cpu = s.cpu;
  if (s.hostMemory !== undefined) e.hostMemory = s.hostMemory;
  if (s.parts !== undefined) e.parts = s.parts.map((p) => ({ node: p.node, gpus: [...p.gpus], memoryPerGpu: p.memoryPerGpu }));
  return e;
}

/** Where a slot sits, as the table shows it: its node, or its parts' nodes joined by `+`. */
function nodesOf(e: SlotEntry): string {
  return e.parts === undefined ? e.node : e.parts.map((p) => p.node).join('+');
}

/** A slot's GPUs, as the table shows them: `0,1`, or each part's joined by ` + `. */
function gpusOf(e: SlotEntry): string {
  if (e.parts !== undefined) return e.parts.map((p) => p.gpus.join(',')).join(' + ');
  return e.gpus.length === 0 ? '-' : e.gpus.join(',');
}

/** The nodes that track CPU, host memory or a GPU model, in node order, with what their slots hold. */
function nodeEntries(state: Pick<ClusterState, 'toJSON'>): NodeEntry[] {
  const out: NodeEntry[] = [];
  for (const n of state.toJSON().nodes) {
    if (n.cpu === undefined && n.hostMemory === undefined && n.gpuModel === undefined) continue;
    const e: NodeEntry = { id: n.id };
    if (n.cpu !== undefined) {
      e.cpu = n.cpu;
      e.cpuHeld = n.slots.reduce((sum, s) => sum + (s.cpu ?? 0), 0);
    }
    if (n.hostMemory !== undefined) {
      e.hostMemory = n.hostMemory;
      e.hostMemoryHeld = n.slots.reduce((sum, s) => sum + (s.hostMemory ?? 0), 0);
    }
    if (n.gpuModel !== undefined) e.gpuModel = n.gpuModel;
    out.push(e);
  }
  return out;
}

/** Milli-CPU as CPUs: whole ones as a number (`4`), others in milli (`2500m`), as Kubernetes writes them. */
function formatCpu(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** A share of each GPU in milli as a fraction of the GPU (`0.25`). */
function formatShare(milli: number): string {
  return String(milli / 1000);
}

/** One line per node that tracks pod resources: `node a100: 4 of 16 CPUs held, 8 GiB of 64 GiB host memory held, GPU model A100`. */
function renderNodes(nodes: NodeEntry[]): string {
  return nodes.map((n) => `node ${n.id}: ${nodeSummary(n)}\n`).join('');
}

/** What a node tracks for pods: `4 of 16 CPUs held, 8 GiB of 64 GiB host memory held, GPU model A100`. */
function nodeSummary(n: NodeEntry): string {
  const parts: string[] = [];
  // In CPUs on both sides (`6.5 of 16`): `6500m of 16` would make the reader convert.
  if (n.cpu !== undefined) parts.push(`${n.cpuHeld! / 1000} of ${n.cpu / 1000} CPUs held`);
  if (n.hostMemory !== undefined) parts.push(`${formatBytes(n.hostMemoryHeld!)} of ${formatBytes(n.hostMemory)} host memory held`);
  if (n.gpuModel !== undefined) parts.push(`GPU model ${n.gpuModel}`);
  return parts.join(', ');
}

/** `state list --json`: the slots, and the nodes that track pod resources when there are any. */
function listJson(list: SlotEntry[], nodes: NodeEntry[]): { slots: SlotEntry[]; nodes?: NodeEntry[] } {
  return nodes.length === 0 ? { slots: list } : { slots: list, nodes };
}

/** `state show --json`: the slot, and its node's pod resources when it tracks any. */
function showJson(e: SlotEntry, nodes: NodeEntry[]): { slot: SlotEntry; node?: NodeEntry } {
  const node = nodes.find((n) => n.id === e.node);
  return node === undefined ? { slot: e } : { slot: e, node };
}

/** The slot with this ID, or UNKNOWN_SLOT naming the ID and the file (exit 2). */
export function find(state: Pick<ClusterState, 'nodes' | 'listSlots'>, id: string, name: string): SlotEntry {
  const hit = entries(state).find((e) => e.id === id);
  if (hit === undefined) {
    const ids = entries(state).map((e) => e.id);
    const known = ids.length === 0 ? 'it has no slots' : `its slots: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? `, … (${ids.length} in all)` : ''}`;
    throw new AllocationError('UNKNOWN_SLOT', `slot ${JSON.stringify(id)} is not in ${name} (${known}); nothing was changed`, { field: 'SLOT', details: { slot: id } });
  }
  return hit;
}

/** What `state release` prints for a released slot. */
export function renderReleased(e: SlotEntry): string {
  if (e.parts !== undefined) return `released slot ${e.id} (${formatBytes(e.memoryPerGpu)} on each of ${e.parts.map((p) => `GPUs ${p.gpus.join(',')} of ${p.node}`).join(' and ')})\n`;
  if (e.gpus.length === 0) return `released slot ${e.id} (${podHeld(e)} on ${e.node})\n`;
  const where = e.gpus.length === 1 ? `on GPU ${e.gpus[0]}` : `on each of GPUs ${e.gpus.join(',')}`;
  // A pod also gives back its CPU and host memory on the node.
  const pod = e.cpu !== undefined || e.hostMemory !== undefined ? `, and ${podHeld(e)}` : '';
  return `released slot ${e.id} (${formatBytes(e.memoryPerGpu)} ${where} of ${e.node}${pod})\n`;
}

/** What a slot without GPUs holds: `2 CPUs, 4 GiB host memory` or `2500m CPU`. */
function podHeld(e: SlotEntry): string {
  const parts: string[] = [];
  if (e.cpu !== undefined) parts.push(`${formatCpu(e.cpu)} ${e.cpu % 1000 === 0 && e.cpu !== 1000 ? 'CPUs' : 'CPU'}`);
  if (e.hostMemory !== undefined) parts.push(`${formatBytes(e.hostMemory)} host memory`);
  return parts.join(', ');
}

/** What `state stale [--clear]` prints once the slot's mark is `stale` (--clear also records activity). */
export function renderStale(e: SlotEntry, stale: boolean): string {
  return stale ? `slot ${e.id} is stale: other models may evict it\n` : `slot ${e.id} is no longer stale; activity recorded (gc counts its idle time from now)\n`;
}

/** What `state touch` prints: a line per slot, with how long it had been idle (`before`: the entries as they were). */
export function renderTouched(before: SlotEntry[], now: number): string {
  return before.map((e) => `touched slot ${e.id} (${e.lastActivity === null ? 'no activity recorded before' : `idle ${age(e, now)} before`})\n`).join('');
}

/**
 * What `state gc --older-than TEXT [--dry-run]` prints: the `removed` slots (those it would remove,
 * in a dry run) as a table, then what it kept: all the others, `active` of them touched between
 * the listing and their removal.
 */
export function renderGc(removed: SlotEntry[], all: SlotEntry[], g: { olderThanText: string; name: string; now: number; dryRun: boolean; active?: number }): string {
  const unknown = all.filter((e) => e.lastActivity === null).length;
  const idle = `idle for more than ${g.olderThanText}`;
  let text: string;
  if (removed.length === 0) text = `no slot ${idle} in ${g.name}\n`;
  else {
    const count = `${removed.length} slot${removed.length === 1 ? '' : 's'}`;
    text = `${g.dryRun ? `would remove ${count} ${idle} from ${g.name} (dry run: nothing was changed)` : `removed ${count} ${idle} from ${g.name}`}:\n` + slotTable(removed, g.now);
  }
  const notes: string[] = [];
  if (unknown > 0) notes.push(`${unknown} with no recorded activity`);
  if ((g.active ?? 0) > 0) notes.push(`${g.active} active again since the listing`);
  return text + `${g.dryRun ? 'would keep' : 'kept'} ${all.length - removed.length}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}\n`;
}

function age(e: SlotEntry, now: number): string {
  return e.lastActivity === null ? '?' : formatAge(now - e.lastActivity);
}

function renderList(list: SlotEntry[], name: string, now: number): string {
  if (list.length === 0) return `no slots in ${name}\n`;
  const multiNode = new Set(list.map(nodesOf)).size > 1;
  return `${list.length} slot${list.length === 1 ? '' : 's'} in ${name}${multiNode ? '' : ` on ${nodesOf(list[0]!)}`}:\n` + slotTable(list, now);
}

/** The slots as `state list` and `state gc` show them; IDLE is the time since the slot's last activity (commit or touch). */
function slotTable(list: SlotEntry[], now: number): string {
  // Pod columns only when some slot is a pod, so a state of models prints as it always did.
  const pods = list.some((e) => e.milli !== undefined || e.cpu !== undefined || e.hostMemory !== undefined);
  const rows = list.map((e) => {
    // A slot without GPUs (a CPU-only pod) holds no GPU memory: '-', like its GPUS.
    const row = [e.id, nodesOf(e), gpusOf(e), e.gpus.length === 0 ? '-' : formatBytes(e.memoryPerGpu), e.model ?? '-', age(e, now), e.stale ? 'yes' : '-'];
    if (pods) row.push(e.milli === undefined ? '-' : formatShare(e.milli), e.cpu === undefined ? '-' : formatCpu(e.cpu), e.hostMemory === undefined ? '-' : formatBytes(e.hostMemory));
    return row;
  });
  const header = ['ID', 'NODE', 'GPUS', 'MEMORY/GPU', 'MODEL', 'IDLE', 'STALE', ...(pods ? ['SHARE', 'CPU', 'HOST MEMORY'] : [])];
  return table(header, rows);
}

function renderSlot(e: SlotEntry, now: number, node?: NodeEntry): string {
  const gpuCount = e.parts === undefined ? e.gpus.length : e.parts.reduce((n, p) => n + p.gpus.length, 0);
  const rows: Array<[string, string]> = [
    e.parts === undefined ? ['node', e.node] : ['nodes', `${nodesOf(e)} (${e.parts.length} pipeline stages of ${e.gpus.length} GPUs)`],
    ['gpus', e.gpus.length === 0 ? 'none' : e.parts === undefined ? e.gpus.join(',') : e.parts.map((p) => `${p.gpus.join(',')} on ${p.node}`).join('; ')],
    ['memory/gpu', e.gpus.length === 0 ? '-' : `${formatBytes(e.memoryPerGpu)} (${formatBytes(e.memoryPerGpu * gpuCount)} in all)`],
    ['model', e.model ?? '-'],
    ['last activity', e.lastActivity === null ? 'unknown' : `${new Date(e.lastActivity).toISOString()} (${age(e, now)} ago)`],
    ['stale', e.stale ? 'yes (other models may evict it)' : 'no'],
  ];
  if (e.milli !== undefined) rows.push(['share', `${formatShare(e.milli)} of each GPU (${e.milli} milli)`]);
  if (e.cpu !== undefined) rows.push(['cpu', `${formatCpu(e.cpu)} (${e.cpu} milli-CPU)`]);
  if (e.hostMemory !== undefined) rows.push(['host memory', formatBytes(e.hostMemory)]);
  if (node !== undefined) rows.push(['on node', nodeSummary(node)]);
  return `slot ${e.id}\n` + rows.map(([k, v]) => `  ${k.padEnd(14)}${v}`).join('\n') + '\n';
}

/** `state list`: its JSON and its text (the table, the busy line, the nodes' lines). */
export function listOutput(state: Pick<ClusterState, 'nodes' | 'listSlots' | 'toJSON' | 'usage'>, name: string, now: number): { json: unknown; text: string } {
  const busy = busyLine(state);
  const list = entries(state);
  const nodes = nodeEntries(state);
  return { json: listJson(list, nodes), text: renderList(list, name, now) + (busy === undefined ? '' : `${busy}\n`) + renderNodes(nodes) };
}

/** `state show SLOT`: its JSON and its text (UNKNOWN_SLOT when the state has no such slot). */
export function showOutput(state: Pick<ClusterState, 'nodes' | 'listSlots' | 'toJSON'>, id: string, name: string, now: number): { json: unknown; text: string } {
  const e = find(state, id, name);
  const nodes = nodeEntries(state);
  return {
    json: showJson(e, nodes),
    text: renderSlot(
      e,
      now,
      nodes.find((n) => n.id === e.node),
    ),
  };
}

/** The slots `state gc` removes: those whose last activity is more than `olderThan` ms before `now`. */
export function idleEntries(all: SlotEntry[], now: number, olderThan: number): SlotEntry[] {
  return all.filter((e) => e.lastActivity !== null && now - e.lastActivity > olderThan);
}
