// Reading and writing a `--state FILE` (a ClusterState as JSON) for the commands that share it:
// `plan --state FILE [--commit]` and `state ...`. Changes happen under withFileLock and land through
// writeFileAtomic, so concurrent gpualloc runs take turns and a reader never sees half a file.
import { readFile } from 'node:fs/promises';
import type { Engine } from '../../engine.js';
import { AllocationError } from '../../shared/errors.js';
import { nodeFromInventory } from '../../cluster/node.js';
import { stateFileText, type ClusterState } from '../../cluster/state.js';
import type { Inventory } from '../../hardware/inventory.js';
import { fileWriteError, writeFileAtomic } from '../../store/file-lock.js';
import { stateFromText } from './strict-files.js';
import { formatBytes } from '../../shared/units.js';

/** Reads a state file; a missing file is `undefined`, a corrupt one INVALID_STATE (and is left untouched). */
export async function readState(engine: Engine, path: string, name: string): Promise<ClusterState | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AllocationError('INVALID_STATE', `--state: cannot read ${name}: ${(error as Error).message}`, { field: 'state', cause: error });
  }
  // Strict: unknown keys and syntax errors name the file, line and column (see strict-files.ts).
  return stateFromText(engine, text, name);
}

/** Writes the state atomically (temp file, fsync, rename, fsync of the folder): readers never see half a file. */
export async function writeState(state: ClusterState, path: string): Promise<void> {
  await writeFileAtomic(path, stateFileText(state)).catch((error: unknown) => Promise.reject(fileWriteError(path, error)));
}

/** Most GPUs named in the `in use by other processes` line before it says how many more. */
const MAX_BUSY_LISTED = 16;

/**
 * One line naming the GPUs where processes outside gpualloc hold memory (counted as taken, never
 * evicted), such as `in use by other processes …: GPU 0 70 GiB, GPU 3 10 GiB`; undefined when none.
 */
export function busyLine(state: Pick<ClusterState, 'usage' | 'nodes'>): string | undefined {
  const busy = state.usage().filter((u) => (u.memoryUsed ?? 0) > 0);
  if (busy.length === 0) return undefined;
  const multiNode = new Set(state.nodes()).size > 1;
  const named = busy.slice(0, MAX_BUSY_LISTED).map((u) => `GPU ${u.gpu}${multiNode ? ` of ${u.node}` : ''} ${formatBytes(u.memoryUsed!)}`);
  if (busy.length > MAX_BUSY_LISTED) named.push(`${busy.length - MAX_BUSY_LISTED} more GPUs`);
  return `in use by other processes (counted as taken, never evicted): ${named.join(', ')}`;
}

/**
 * The state with one node's used memory read again from a fresh inventory of that node (the node is
 * the inventory's host, else `node0`; its GPUs and their totals must be the same). Through
 * nodeFromInventory with the node's slots: NVML counts the slots' own processes as used, so that
 * memory is taken off and never counted twice. The file is not written here.
 */
export function refreshUsed(engine: Engine, state: ClusterState, inventory: Inventory, inventoryName: string, stateName: string): ClusterState {
  const json = state.toJSON();
  const fresh = nodeFromInventory(inventory);
  const node = json.nodes.find((n) => n.id === fresh.id);
  if (node === undefined) {
    throw new AllocationError('INVALID_INVENTORY', `--inventory ${inventoryName} describes node ${JSON.stringify(fresh.id)}, which is not in ${stateName} (its nodes: ${json.nodes.slice(0, 10).map((n) => n.id).join(', ')}); nothing was changed`, { field: 'inventory' });
  }
  const same = fresh.gpus.length === node.gpus.length && fresh.gpus.every((g, k) => g.index === node.gpus[k].index && g.memoryTotal === node.gpus[k].memoryTotal);
  if (!same) {
    const show = (gpus: Array<{ index: number; memoryTotal: number }>) => gpus.map((g) => `${g.index}:${formatBytes(g.memoryTotal)}`).join(', ');
    throw new AllocationError('INVALID_INVENTORY', `--inventory ${inventoryName}: the GPUs of node ${JSON.stringify(node.id)} (${show(fresh.gpus)}) are not those in ${stateName} (${show(node.gpus)}); start a new state file for changed hardware; nothing was changed`, { field: 'inventory' });
  }
  const used = nodeFromInventory(inventory, { id: node.id, slots: node.slots }).gpus;
  node.gpus = node.gpus.map((g, k) => {
    const { memoryUsed: _old, ...rest } = g;
    return used[k].memoryUsed === undefined ? rest : { ...rest, memoryUsed: used[k].memoryUsed };
  });
  return engine.restoreClusterState(json);
}
