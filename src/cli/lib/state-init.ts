// `gpualloc state init`: a new cluster state with the node of a preset or an inventory, in a state
// file (--state FILE) or a PostgreSQL store (--store URL, store.ts); both report the nodes made.

import { nodeFromInventory } from '../../cluster/node.js';
import type { ClusterState } from '../../cluster/state.js';
import type { Engine } from '../../engine.js';
import { formatBytes } from '../../shared/units.js';
import type { Io } from './common.js';
import { resolveInventory } from './source.js';
import type { StateFile } from './state-file.js';
import { UsageError } from './usage-error.js';

/** A node as init reports it: GPUs, their memory, and what processes outside gpualloc hold. */
export type InitNode = { id: string; gpus: number; memoryTotal: number; memoryUsed: number };

/** Where init takes the node from: --preset NAME or --inventory FILE (one is required). */
export type InitSource = { inventory?: string; preset?: string; quiet: boolean };

/** A one-node state from the preset or inventory of `source` (as plan --state seeds a new file). */
export async function initialState(engine: Engine, source: InitSource, io: Io): Promise<ClusterState> {
  if (source.inventory === undefined && source.preset === undefined) throw new UsageError('state init: --preset NAME or --inventory FILE is required (the node to create)');
  const { inventory } = await resolveInventory(source, io);
  return engine.createClusterState({ nodes: [nodeFromInventory(inventory)] });
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
