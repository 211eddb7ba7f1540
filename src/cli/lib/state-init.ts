// `gpualloc state init`: a new cluster state with the node of a preset or an inventory, in a state
// file (--state FILE) or a PostgreSQL store (--store URL, store.ts); both report the nodes made.

import { nodeFromInventory } from '../../cluster/node.js';
import type { ClusterNode, ClusterState } from '../../cluster/state.js';
import type { Engine } from '../../engine.js';
import { formatBytes } from '../../shared/units.js';
import type { Io } from './common.js';
import { resolveInventory } from './source.js';
import type { StateFile } from './state-file.js';
import { UsageError } from './usage-error.js';

/** A node as init reports it: GPUs, their memory, and what processes outside gpualloc hold. */
export type InitNode = { id: string; gpus: number; memoryTotal: number; memoryUsed: number };

/**
 * Where init takes the nodes from: --preset NAME (`nodes` copies of it, default 1) or --inventory FILE
 * (repeatable: a node per file); `labels` (--label KEY=VALUE) go on every node, after each inventory's own.
 */
export type InitSource = { inventory?: string[] | undefined; preset?: string | undefined; nodes?: number | undefined; labels?: Record<string, string> | undefined; quiet: boolean };

/** The state of the presets or inventories of `source` (as plan --state seeds a new file). */
export async function initialState(engine: Engine, source: InitSource, io: Io): Promise<ClusterState> {
  const files = source.inventory ?? [];
  if (files.length === 0 && source.preset === undefined) throw new UsageError('state init: --preset NAME or --inventory FILE is required (the nodes to create)');
  if (source.nodes !== undefined && source.preset === undefined) throw new UsageError('--nodes N is for --preset NAME (each --inventory FILE is one node)');
  const nodes: ClusterNode[] = [];
  if (source.preset !== undefined) {
    const { inventory } = await resolveInventory({ preset: source.preset, quiet: source.quiet }, io);
    const count = source.nodes ?? 1;
    const base = nodeFromInventory(inventory);
    // Several copies of one machine: node IDs <host>-1, <host>-2, …
    for (let k = 1; k <= count; k++) nodes.push(count === 1 ? base : { ...nodeFromInventory(inventory), id: `${base.id}-${k}` });
  }
  for (const file of files) nodes.push(nodeFromInventory((await resolveInventory({ inventory: file, quiet: source.quiet }, io)).inventory));
  if (source.labels !== undefined) for (const node of nodes) node.labels = { ...node.labels, ...source.labels };
  return engine.createClusterState({ nodes });
}

/** Parses `--label KEY=VALUE` (repeatable) into labels. */
export function parseLabelFlags(texts: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const text of texts) {
    const at = text.indexOf('=');
    if (at <= 0) throw new UsageError(`--label ${text}: expected KEY=VALUE, such as --label nvidia.com/gpu.clique=c1`);
    Object.defineProperty(labels, text.slice(0, at), { value: text.slice(at + 1), enumerable: true, writable: true, configurable: true });
  }
  return labels;
}

/** The nodes of a state as init reports them. */
export function initNodes(state: ClusterState): InitNode[] {
  return state.nodes().map((id) => {
    const gpus = state.usage().filter((u) => u.node === id);
    return { id, gpus: gpus.length, memoryTotal: gpus.reduce((t, u) => t + u.memoryTotal, 0), memoryUsed: gpus.reduce((t, u) => t + (u.memoryUsed ?? 0), 0) };
  });
}

/** One indented line per node of an init report. */
export function renderNodes(nodes: readonly InitNode[]): string {
  return nodes
    .map((n) => `  node ${n.id}: ${n.gpus} GPU${n.gpus === 1 ? '' : 's'}, ${formatBytes(n.memoryTotal)}${n.memoryUsed > 0 ? ` (${formatBytes(n.memoryUsed)} in use by other processes)` : ''}\n`)
    .join('');
}

/** What `state init --state FILE` reports. */
export type FileInitReport = { state: string; nodes: InitNode[] };

/** `gpualloc state init --state FILE (--preset NAME | --inventory FILE) [--replace]`: writes a new state file. */
export async function initFile(engine: Engine, file: StateFile, name: string, source: InitSource, replace: boolean, io: Io): Promise<FileInitReport> {
  const state = await initialState(engine, source, io);
  await file.update(async (saved) => {
    if (saved !== undefined && !replace) throw new UsageError(`--state ${name} already exists; nothing was changed (pass --replace to start over)`);
    return { value: undefined, write: state };
  });
  return { state: name, nodes: initNodes(state) };
}

/** The lines `state init --state FILE` prints. */
export function renderFileInit(report: FileInitReport): string {
  return `initialised ${report.state}\n${renderNodes(report.nodes)}`;
}
