// A `--state FILE` (a ClusterState as JSON) for the commands that share it: `plan --state FILE
// [--commit]` and `state ...`. The file is a JsonFileStore: changes happen under its lock and land
// through an atomic write; reads are strict, and their errors are said with `--state FILE`.
import { dirname, resolve } from 'node:path';
import { nodeFromInventory } from '../../cluster/node.js';
import type { ClusterState } from '../../cluster/state.js';
import type { Engine } from '../../engine.js';
import type { Inventory } from '../../hardware/inventory.js';
import { AllocationError } from '../../shared/errors.js';
import { formatBytes } from '../../shared/units.js';
import { JsonFileStore } from '../../store/index.js';
import type { Io } from './common.js';
import { sayInFile } from './error-words.js';
import { FlagFileError, isFileError, UsageError } from './usage-error.js';

/** A state file as the CLI uses it: states restored through the command's engine, errors said with `--state NAME`. */
export type StateFile = {
  /** The state the file holds now (no lock), or undefined when there is none. */
  current(): Promise<ClusterState | undefined>;
  /**
   * One read-change-write under the file's lock (JsonFileStore.update): `change` gets the state
   * (undefined when there is no file yet, unless `mustExist`: then a usage error naming the file).
   */
  update<T>(change: (saved: ClusterState | undefined) => Promise<{ value: T; write?: ClusterState }>, options?: { mustExist?: boolean }): Promise<T>;
};

/** The `--state NAME` file (NAME as typed, resolved against the working folder). */
export function stateFile(engine: Engine, io: Io, name: string): StateFile {
  const path = resolve(io.cwd, name);
  const store = JsonFileStore.create(path);
  const said = (error: unknown): unknown => {
    if (error instanceof AllocationError && error.origin === path && error.details?.missing === true) {
      return new UsageError(`--state ${name}: no such file (gpualloc plan --state ${name} --commit, or gpualloc state init --state ${name}, creates one)`);
    }
    // The file or its lock cannot be opened (a missing folder, no permission): say which flag named it.
    if (isFileError(error) && (error.path === undefined || error.path.startsWith(dirname(path)))) return new FlagFileError(`--state ${name}`, error);
    return sayInFile(error, { origin: path, label: `--state ${name}` });
  };
  return {
    async current() {
      const json = await store.current().catch((error: unknown) => {
        throw said(error);
      });
      return json === undefined ? undefined : engine.restoreClusterState(json);
    },
    async update(change, options = {}) {
      try {
        return await store.update(async (json) => change(json === undefined ? undefined : engine.restoreClusterState(json)), options);
      } catch (error) {
        throw said(error);
      }
    },
  };
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
    throw new AllocationError(
      'INVALID_INVENTORY',
      `--inventory ${inventoryName} describes node ${JSON.stringify(fresh.id)}, which is not in ${stateName} (its nodes: ${json.nodes
        .slice(0, 10)
        .map((n) => n.id)
        .join(', ')}); nothing was changed`,
      { field: 'inventory' },
    );
  }
  const same = fresh.gpus.length === node.gpus.length && fresh.gpus.every((g, k) => g.index === node.gpus[k]!.index && g.memoryTotal === node.gpus[k]!.memoryTotal); // the lengths are equal
  if (!same) {
    const show = (gpus: Array<{ index: number; memoryTotal: number }>) => gpus.map((g) => `${g.index}:${formatBytes(g.memoryTotal)}`).join(', ');
    throw new AllocationError(
      'INVALID_INVENTORY',
      `--inventory ${inventoryName}: the GPUs of node ${JSON.stringify(node.id)} (${show(fresh.gpus)}) are not those in ${stateName} (${show(node.gpus)}); start a new state file for changed hardware; nothing was changed`,
      { field: 'inventory' },
    );
  }
  const used = nodeFromInventory(inventory, { id: node.id, slots: node.slots }).gpus;
  node.gpus = node.gpus.map((g, k) => {
    const { memoryUsed: _old, ...rest } = g;
    return used[k]!.memoryUsed === undefined ? rest : { ...rest, memoryUsed: used[k]!.memoryUsed }; // used: the same GPUs, checked above
  });
  return engine.restoreClusterState(json);
}
